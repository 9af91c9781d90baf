import { Bot } from "lucide-react";
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
      <EmptyState icon={Bot} title="Your music assistant">
        Ask about your listening journey once you have shared some music.
      </EmptyState>
    </>
  );
}
