import { useEffect, useState } from "react";
import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { FollowButton } from "~/features/follows";
import type { PersonResult } from "../search.server";
import { Highlighted } from "./highlighted";

function followers(count: number): string {
  return `${count.toLocaleString("en")} ${count === 1 ? "follower" : "followers"}`;
}

/** A person found by search: avatar, names, bio line, follower count, Follow in place. */
export function PersonResultRow({
  person,
  viewerId,
  terms,
}: {
  person: PersonResult;
  viewerId: string;
  terms: readonly string[];
}) {
  const [followerCount, setFollowerCount] = useState(person.followerCount);
  useEffect(() => setFollowerCount(person.followerCount), [person.followerCount]);
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
            <Highlighted text={person.displayName} terms={terms} />
          </Link>
          <span className="truncate text-sm text-muted-foreground">
            @<Highlighted text={person.username} terms={terms} />
          </span>
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
        {person.bio ? <p className="truncate text-sm text-muted-foreground">{person.bio}</p> : null}
        <p className="text-xs text-muted-foreground">{followers(followerCount)}</p>
      </div>
      {isSelf ? (
        <span className="text-sm text-muted-foreground">You</span>
      ) : (
        <FollowButton
          userId={person.id}
          name={person.displayName}
          isFollowed={person.isFollowed}
          isRequested={person.isRequested}
          requiresApproval={person.requiresApproval}
          isSignedIn
          onChange={(state) => setFollowerCount(state.followerCount)}
        />
      )}
    </div>
  );
}
