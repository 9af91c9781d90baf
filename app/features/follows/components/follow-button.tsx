import { useEffect, useState } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { buttonClasses } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { type FetcherOutcome, useFetcherOutcome } from "~/lib/use-fetcher-outcome";

type FollowOutcome = FetcherOutcome<{ following: boolean; followerCount: number }>;

/** Follow / unfollow, optimistic with rollback and a toast when refused. */
export function FollowButton({
  userId,
  name,
  isFollowed,
  isSignedIn,
  size = "sm",
  onChange,
}: {
  userId: string;
  name: string;
  isFollowed: boolean;
  isSignedIn: boolean;
  size?: "sm" | "md";
  onChange?: (state: { following: boolean; followerCount: number }) => void;
}) {
  const fetcher = useFetcher<FollowOutcome>({ key: `follow-${userId}` });
  const location = useLocation();
  const [confirmed, setConfirmed] = useState(isFollowed);
  useEffect(() => setConfirmed(isFollowed), [isFollowed]);
  useFetcherOutcome(fetcher, `Could not update following ${name}`, (data) => {
    setConfirmed(data.following);
    onChange?.(data);
  });
  const pending = fetcher.formData?.get("intent");
  const following = pending ? pending === "follow" : confirmed;
  const here = `${location.pathname}${location.search}`;

  if (!isSignedIn) {
    return (
      <Link
        to={`/auth/login?${new URLSearchParams({ redirectTo: here })}`}
        className={buttonClasses("primary", size)}
      >
        <Icon name="user-plus" className="size-4" />
        Follow <span className="sr-only">{name}</span>
      </Link>
    );
  }
  return (
    <fetcher.Form method="post" action="/api/follow">
      <input type="hidden" name="userId" value={userId} />
      <input type="hidden" name="name" value={name} />
      <input type="hidden" name="redirectTo" value={here} />
      <button
        type="submit"
        name="intent"
        value={following ? "unfollow" : "follow"}
        aria-pressed={following}
        className={buttonClasses(following ? "secondary" : "primary", size, "whitespace-nowrap")}
      >
        {following ? (
          <Icon name="user-check" className="size-4" />
        ) : (
          <Icon name="user-plus" className="size-4" />
        )}
        {following ? "Following" : "Follow"} <span className="sr-only">{name}</span>
      </button>
    </fetcher.Form>
  );
}
