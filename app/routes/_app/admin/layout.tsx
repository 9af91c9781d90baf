import { Outlet } from "react-router";
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
