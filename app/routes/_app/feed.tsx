import { Disc3 } from "lucide-react";
import { ButtonLink } from "~/components/ui/button";
import { EmptyState } from "~/components/ui/empty-state";
import { PageHeader } from "~/components/ui/page-header";
import { getViewer } from "~/lib/guards.server";
import type { Route } from "./+types/feed";

export const meta: Route.MetaFunction = () => [
  { title: "Feed · Soundtrail" },
  { name: "description", content: "Share your music journey with friends" },
];

export function loader({ context }: Route.LoaderArgs) {
  return { isSignedIn: getViewer(context) !== null };
}

export default function Feed({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <PageHeader title={loaderData.isSignedIn ? "Your feed" : "Public feed"}>
        What people on this Soundtrail are listening to, newest first.
      </PageHeader>
      <EmptyState
        icon={Disc3}
        title="No posts yet"
        action={
          loaderData.isSignedIn ? null : (
            <ButtonLink to="/auth/signup">Join Soundtrail to share yours</ButtonLink>
          )
        }
      >
        Nobody has shared any music here yet. Posts appear here as soon as they do.
      </EmptyState>
    </>
  );
}
