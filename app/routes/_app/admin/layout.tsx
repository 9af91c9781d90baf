import { Outlet } from "react-router";
import { RouteErrorScreen } from "~/components/layout/error-screen";
import { PageHeader } from "~/components/ui/page-header";
import { AdminNav } from "~/features/admin/components/admin-nav";
import { requireAdmin } from "~/features/auth/guards.server";
import type { Route } from "./+types/layout";

/** The admin area is wide: its tables need the room. */
export const handle = { isWide: true };

export function loader({ context, request }: Route.LoaderArgs) {
  requireAdmin(context, request);
  return null;
}

export default function AdminLayout() {
  return (
    <>
      <PageHeader title="Admin">Statistics, moderation, people and announcements.</PageHeader>
      <AdminNav />
      <Outlet />
    </>
  );
}

/**
 * A failure inside the admin area keeps its header and navigation, so the admin can go on to
 * another screen instead of losing the whole area to the app's error page.
 */
export function ErrorBoundary() {
  return (
    <>
      <PageHeader title="Admin">Statistics, moderation, people and announcements.</PageHeader>
      <AdminNav />
      <RouteErrorScreen inLayout />
    </>
  );
}
