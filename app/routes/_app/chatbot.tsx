import { EmptyState } from "~/components/ui/empty-state";
import { PageHeader } from "~/components/ui/page-header";
import { requireUser } from "~/lib/guards.server";
import type { Route } from "./+types/chatbot";

export const meta: Route.MetaFunction = () => [{ title: "Assistant · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  return null;
}

export default function Page() {
  return (
    <>
      <PageHeader title="Assistant">A music assistant that knows your journey.</PageHeader>
      <EmptyState icon="bot" title="The assistant is coming soon">
        It is not built yet. Soon you will be able to ask it about your top artists, what your
        friends are playing and what to listen to next. Until then, your posts and your friends' are
        on the feed.
      </EmptyState>
    </>
  );
}
