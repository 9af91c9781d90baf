import { Heart } from "lucide-react";
import { useEffect, useState } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { type FetcherOutcome, useFetcherOutcome } from "~/lib/use-fetcher-outcome";
import { cn } from "~/lib/utils";

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
  const classes =
    "inline-flex h-9 items-center gap-1.5 rounded-lg px-2.5 text-sm font-medium text-muted-foreground hover:bg-muted hover:text-foreground";

  if (!isSignedIn) {
    return (
      <Link
        to={`/auth/login?${new URLSearchParams({ redirectTo: here })}`}
        className={classes}
        aria-label={`${countLabel(shown.likeCount)}. Sign in to like`}
      >
        <Heart aria-hidden="true" className="size-4" />
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
        className={cn(classes, shown.liked && "text-danger hover:text-danger")}
      >
        <Heart aria-hidden="true" className={cn("size-4", shown.liked && "fill-current")} />
        <span aria-hidden="true">{shown.likeCount}</span>
      </button>
    </fetcher.Form>
  );
}
