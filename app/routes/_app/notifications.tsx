import { BellOff } from "lucide-react";
import { EmptyState } from "~/components/ui/empty-state";
import { PageHeader } from "~/components/ui/page-header";
import { requireUser } from "~/lib/guards.server";
import type { Route } from "./+types/notifications";

export const meta: Route.MetaFunction = () => [{ title: "Notifications · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  return null;
}

export default function Page() {
  return (
    <>
      <PageHeader title="Notifications">What happened around your posts.</PageHeader>
      <EmptyState icon={BellOff} title="You're all caught up">
        Likes, comments, mentions and new followers will show up here.
      </EmptyState>
    </>
  );
}
