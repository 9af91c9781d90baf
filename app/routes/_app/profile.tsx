import { UserRound } from "lucide-react";
import { EmptyState } from "~/components/ui/empty-state";
import { requireUser } from "~/lib/guards.server";
import type { Route } from "./+types/profile";

export const meta: Route.MetaFunction = () => [{ title: "Profile · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  return { displayName: viewer.displayName, username: viewer.username };
}

export default function Profile({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <header className="mb-6 flex items-center gap-4">
        <span
          aria-hidden="true"
          className="flex size-16 items-center justify-center rounded-full bg-accent text-2xl font-bold text-accent-foreground"
        >
          {loaderData.displayName.slice(0, 1).toUpperCase()}
        </span>
        <div>
          <h1 className="text-2xl font-bold">{loaderData.displayName}</h1>
          <p className="text-muted-foreground">@{loaderData.username}</p>
        </div>
      </header>
      <EmptyState icon={UserRound} title="No posts yet">
        The music you share will be collected here.
      </EmptyState>
    </>
  );
}
