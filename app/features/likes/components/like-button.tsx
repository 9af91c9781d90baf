import { useEffect, useState } from "react";
import { Form, Link, useFetcher, useLocation } from "react-router";
import { type FetcherOutcome, useFetcherOutcome } from "~/components/hooks/use-fetcher-outcome";

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
  // Without JavaScript the action sends the browser back to this post on the page it came from
  // (its Referer, plus #post-…), so the form carries no return path of its own.
  const fetcher = useFetcher<LikeOutcome>({ key: `like-${postId}` });
  const location = useLocation();
  const [confirmed, setConfirmed] = useState({ liked, likeCount });
  // New counts from a revalidation replace the confirmed state; the same counts keep it, so the
  // 20 buttons of a feed do not render again right after hydration.
  useEffect(
    () =>
      setConfirmed((current) =>
        current.liked === liked && current.likeCount === likeCount ? current : { liked, likeCount },
      ),
    [liked, likeCount],
  );
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
  // The look of the like and comment buttons, liked or not, and their icons are the post card's
  // footer's (.post-card > footer in app.css): no classes and no <svg> on them.

  if (!isSignedIn) {
    return (
      <Link
        to={`/auth/login?${new URLSearchParams({ redirectTo: here })}`}
        aria-label={`${countLabel(shown.likeCount)}. Sign in to like`}
      >
        {shown.likeCount}
      </Link>
    );
  }
  return (
    // The fetcher's own form, as <Form navigate={false}> with its key: that one takes
    // discover="none" (/api/like is a resource route, nothing to discover).
    <Form
      method="post"
      action={`/api/like?postId=${postId}`}
      navigate={false}
      fetcherKey={`like-${postId}`}
      discover="none"
    >
      <button
        type="submit"
        name="intent"
        value={shown.liked ? "unlike" : "like"}
        aria-pressed={shown.liked}
        aria-label={`Like (${countLabel(shown.likeCount)})`}
      >
        {/* The heart is CSS (.post-card > footer > form > button::before, filled when pressed);
            aria-label names the button, so the count needs no aria-hidden of its own. */}
        {shown.likeCount}
      </button>
    </Form>
  );
}
