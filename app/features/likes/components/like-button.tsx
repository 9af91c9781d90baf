import { useEffect, useState } from "react";
import { Link, useLocation } from "react-router";
import { useResilientAction } from "~/components/hooks/use-resend";
import { SendStatus } from "~/components/ui/send-status";

/**
 * Like / unlike with an instant (optimistic) count. A refusal rolls back to the last state the
 * server confirmed and says why in a toast; a network failure keeps the new state, says so
 * under the button and sends it again when it can (a like names the state it wants, so a
 * repeat changes nothing — ADR 037). Without JavaScript it is a plain form.
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
  const action = `/api/like?postId=${postId}`;
  const send = useResilientAction<{ liked: boolean; likeCount: number }>(
    action,
    "Could not update your like",
    (data) => setConfirmed({ liked: data.liked, likeCount: data.likeCount }),
  );

  const pending = send.pending?.get("intent");
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
  const unit = shown.likeCount === 1 ? "like" : "likes";
  // The look of the like and comment buttons, liked or not, and their icons are the post card's
  // footer's (.post-card > footer in app.css): no classes and no <svg> on them.

  // The names are the content, the visible count inside hidden words ("Like, 5 likes"), not an
  // aria-label: a name that does not contain what is visible fails WCAG 2.5.3 (axe
  // label-content-name-mismatch) for people who speak to their browser.
  if (!isSignedIn) {
    return (
      <Link to={`/auth/login?${new URLSearchParams({ redirectTo: here })}`}>
        {shown.likeCount}
        <span className="sr-only">{` ${unit}. Sign in to like`}</span>
      </Link>
    );
  }
  return (
    // A plain form without JavaScript; with it, the send is a fetch that survives the network
    // failing (a fetcher's network error would replace the page with the error screen).
    <form
      method="post"
      action={action}
      onSubmit={(event) => {
        event.preventDefault();
        void send.submit(
          new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter),
        );
      }}
    >
      <button
        type="submit"
        name="intent"
        value={shown.liked ? "unlike" : "like"}
        aria-pressed={shown.liked}
      >
        {/* The heart is CSS (.post-card > footer > form > button::before, filled when pressed). */}
        <span className="sr-only">Like, </span>
        {shown.likeCount}
        <span className="sr-only">{` ${unit}`}</span>
      </button>
      {send.sendState === "ok" ? null : (
        <SendStatus state={send.sendState} onRetry={send.retryNow} className="text-xs" />
      )}
    </form>
  );
}
