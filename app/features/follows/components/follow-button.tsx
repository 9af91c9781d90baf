import { useEffect, useState } from "react";
import { Link, useLocation } from "react-router";
import { useResilientAction } from "~/components/hooks/use-resend";
import { buttonClasses } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { SendStatus } from "~/components/ui/send-status";

type FollowState = { following: boolean; requested: boolean; followerCount: number };
type Relation = "none" | "requested" | "following";

/**
 * Follow / unfollow, or for people who approve their followers: ask, then "Requested" (press
 * again to cancel the request). Optimistic with rollback and a toast when refused; a network
 * failure keeps the new state, says so and sends it again (follow, unfollow and cancel name the
 * state they want, so a repeat changes nothing — ADR 037).
 */
export function FollowButton({
  userId,
  name,
  isFollowed,
  isRequested = false,
  requiresApproval = false,
  isSignedIn,
  size = "sm",
  onChange,
}: {
  userId: string;
  name: string;
  isFollowed: boolean;
  /** The viewer's request to follow them waits for approval. */
  isRequested?: boolean;
  /** They approve new followers (a press asks instead of following). */
  requiresApproval?: boolean;
  isSignedIn: boolean;
  size?: "sm" | "md";
  onChange?: (state: FollowState) => void;
}) {
  const location = useLocation();
  const initial: Relation = isFollowed ? "following" : isRequested ? "requested" : "none";
  const [confirmed, setConfirmed] = useState<Relation>(initial);
  useEffect(() => setConfirmed(initial), [initial]);
  const send = useResilientAction<FollowState>(
    "/api/follow",
    `Could not update following ${name}`,
    (data) => {
      setConfirmed(data.following ? "following" : data.requested ? "requested" : "none");
      onChange?.(data);
    },
  );
  const pending = send.pending?.get("intent");
  const relation: Relation =
    pending === "follow"
      ? requiresApproval
        ? "requested"
        : "following"
      : pending === "unfollow" || pending === "cancel"
        ? "none"
        : confirmed;
  const following = relation === "following";
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
    <form
      method="post"
      action="/api/follow"
      className="inline-flex flex-col items-start gap-1"
      onSubmit={(event) => {
        event.preventDefault();
        void send.submit(
          new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter),
        );
      }}
    >
      <input type="hidden" name="userId" value={userId} />
      <input type="hidden" name="name" value={name} />
      <input type="hidden" name="redirectTo" value={here} />
      <button
        type="submit"
        name="intent"
        value={following ? "unfollow" : relation === "requested" ? "cancel" : "follow"}
        aria-pressed={relation !== "none"}
        title={
          relation === "requested"
            ? "Waiting for approval. Press to cancel the request."
            : undefined
        }
        className={buttonClasses(
          relation === "none" ? "primary" : "secondary",
          size,
          "whitespace-nowrap",
        )}
      >
        <Icon
          name={following ? "user-check" : relation === "requested" ? "clock" : "user-plus"}
          className="size-4"
        />
        {following ? "Following" : relation === "requested" ? "Requested" : "Follow"}{" "}
        <span className="sr-only">{name}</span>
      </button>
      {send.sendState === "ok" ? null : (
        <SendStatus state={send.sendState} onRetry={send.retryNow} className="text-xs" />
      )}
    </form>
  );
}
