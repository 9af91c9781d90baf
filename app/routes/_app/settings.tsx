import { ChevronLeft } from "lucide-react";
import { Link, Outlet, useLocation } from "react-router";
import { PageHeader } from "~/components/ui/page-header";
import { requireUser } from "~/features/auth/guards.server";
import { SettingsNav } from "~/features/settings/components/settings-nav";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import type { Route } from "./+types/settings";

/** A side menu next to the section needs the room. */
export const handle = { isWide: true };

export const meta: Route.MetaFunction = () => [{ title: "Settings · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  return null;
}

// A settings save the network let down (ADR 037) reloads nothing: that reload would fail too.
export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function SettingsLayout() {
  const { pathname } = useLocation();
  const isIndex = pathname.replace(/\/+$/, "") === "/settings";
  return (
    <>
      <PageHeader title="Settings">Tune Soundtrail to your taste.</PageHeader>
      <div className="md:grid md:grid-cols-[13rem_minmax(0,1fr)] md:gap-8">
        <SettingsNav className="hidden md:block" />
        <div className="min-w-0">
          {isIndex ? null : (
            <Link
              to="/settings"
              className="mb-4 inline-flex items-center gap-1 text-sm font-medium text-primary hover:underline md:hidden"
            >
              <ChevronLeft aria-hidden="true" className="size-4" />
              All settings
            </Link>
          )}
          <Outlet />
        </div>
      </div>
    </>
  );
}
