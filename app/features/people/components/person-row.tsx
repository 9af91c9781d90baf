import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { FollowButton } from "~/features/follows";
import type { PersonSummary } from "~/features/follows/index.server";

/** A person in a list: avatar, names, why/bio, relationship badges and a follow button. */
export function PersonRow({
  person,
  viewerId,
  note,
}: {
  person: PersonSummary;
  viewerId: string | null;
  note?: string;
}) {
  const isSelf = person.id === viewerId;
  return (
    <div className="flex items-center gap-3 py-3">
      <Link to={`/u/${person.username}`} tabIndex={-1} aria-hidden="true">
        <Avatar name={person.displayName} username={person.username} src={person.avatarUrl} />
      </Link>
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-baseline gap-x-1.5">
          <Link
            to={`/u/${person.username}`}
            prefetch="intent"
            className="truncate font-semibold hover:underline"
          >
            {person.displayName}
          </Link>
          <span className="truncate text-sm text-muted-foreground">@{person.username}</span>
          {person.isFollowed && person.followsViewer ? (
            <span className="rounded-full bg-accent px-2 py-0.5 text-xs font-medium text-accent-foreground">
              Friend
            </span>
          ) : person.followsViewer ? (
            <span className="rounded-full border border-border px-2 py-0.5 text-xs text-muted-foreground">
              Follows you
            </span>
          ) : null}
        </p>
        {note || person.bio ? (
          <p className="truncate text-sm text-muted-foreground">{note ?? person.bio}</p>
        ) : null}
      </div>
      {isSelf ? null : (
        <FollowButton
          userId={person.id}
          name={person.displayName}
          isFollowed={person.isFollowed}
          isRequested={person.isRequested}
          requiresApproval={person.requiresApproval}
          isSignedIn={viewerId !== null}
        />
      )}
    </div>
  );
}
