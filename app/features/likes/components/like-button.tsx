import { useEffect, useState } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { type FetcherOutcome, useFetcherOutcome } from "~/components/hooks/use-fetcher-outcome";
import { Icon } from "~/components/ui/icon";

type LikeOutcome = FetcherOutcome<{ liked: boolean; likeCount: number }>;

function countLabel(count: number) {
  return `${count} ${count === 1 ? "like" : "likes"}`;
}

/**
 * Like / unlike with an instant (optimistic) count. A refusal rolls back to the last state the
 * server confirmed and says why in a toast. Without JavaScript it is a plain form.
 */
export function LikeButton({
  postId,
  liked,
  likeCount,
  isSignedIn,
}: {
  postId: string;
  liked: boolean;
  likeCount: number;
  isSignedIn: boolean;
}) {
  const fetcher = useFetcher<LikeOutcome>({ key: `like-${postId}` });
  const location = useLocation();
  const [confirmed, setConfirmed] = useState({ liked, likeCount });
  useEffect(() => setConfirmed({ liked, likeCount }), [liked, likeCount]);
  useFetcherOutcome(fetcher, "Could not update your like", (data) =>
    setConfirmed({ liked: data.liked, likeCount: data.likeCount }),
  );

  const pending = fetcher.formData?.get("intent");
  const shown =
    pending === "like" || pending === "unlike"
      ? {
          liked: pending === "like",
          likeCount:
            confirmed.likeCount +
            (pending === "like" ? (confirmed.liked ? 0 : 1) : confirmed.liked ? -1 : 0),
        }
      : confirmed;
  const here = `${location.pathname}${location.search}`;
  // .post-action in app.css: the look of the like and comment buttons under a post.
  const classes = "post-action";

  if (!isSignedIn) {
    return (
      <Link
        to={`/auth/login?${new URLSearchParams({ redirectTo: here })}`}
        className={classes}
        aria-label={`${countLabel(shown.likeCount)}. Sign in to like`}
      >
        <Icon name="heart" className="size-4" />
        {shown.likeCount}
      </Link>
    );
  }
  return (
    <fetcher.Form method="post" action="/api/like">
      <input type="hidden" name="postId" value={postId} />
      <input type="hidden" name="redirectTo" value={`${here}#post-${postId}`} />
      <button
        type="submit"
        name="intent"
        value={shown.liked ? "unlike" : "like"}
        aria-pressed={shown.liked}
        aria-label={`Like (${countLabel(shown.likeCount)})`}
        className={shown.liked ? "post-action is-liked" : classes}
      >
        <Icon name="heart" className="size-4" />
        <span aria-hidden="true">{shown.likeCount}</span>
      </button>
    </fetcher.Form>
  );
}
