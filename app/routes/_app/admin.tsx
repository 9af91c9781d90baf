import { Shield } from "lucide-react";
import { EmptyState } from "~/components/ui/empty-state";
import { PageHeader } from "~/components/ui/page-header";
import { requireAdmin } from "~/lib/guards.server";
import type { Route } from "./+types/admin";

export const meta: Route.MetaFunction = () => [{ title: "Admin · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  requireAdmin(context, request);
  return null;
}

export default function Admin() {
  return (
    <>
      <PageHeader title="Admin">Statistics, moderation, people and announcements.</PageHeader>
      <EmptyState icon={Shield} title="Nothing to administer yet">
        Statistics, comment moderation, user management and bulk e-mail appear here as those
        features ship.
      </EmptyState>
    </>
  );
}
