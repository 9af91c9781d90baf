import { queueFederationEvent } from "~/core/federation-events.server";
import { publishLive } from "~/core/live-bus.server";
import type { SocialEvent } from "~/core/social-events";
import type { DbOrTx } from "~/db/client.server";
import {
  notifyCommentAdded,
  notifyCommentDeleted,
  notifyFollowAccepted,
  notifyFollowRequestClosed,
  notifyFollowRequested,
  notifyPostCreated,
  notifyPostLiked,
  notifyPostUnliked,
  notifyUserBlocked,
  notifyUserFollowed,
  notifyUserUnfollowed,
} from "./notify.server";

/** Records a social event (core/social-events.ts) in the transaction of the change. */
export async function recordSocialEvent(tx: DbOrTx, event: SocialEvent): Promise<void> {
  // Cards on screen show a post's counts live (the realtime hub sends them to those it reaches).
  if (
    event.type === "postLiked" ||
    event.type === "postUnliked" ||
    event.type === "commentAdded" ||
    event.type === "commentDeleted"
  ) {
    await publishLive(tx, { t: "c", p: event.postId });
  }
  await notify(tx, event);
  // What concerns other servers goes out as ActivityPub, queued in the same transaction.
  await queueFederationEvent(tx, event);
}

async function notify(tx: DbOrTx, event: SocialEvent): Promise<void> {
  switch (event.type) {
    case "postCreated":
      return notifyPostCreated(tx, event);
    case "postDeleted":
      return;
    case "postLiked":
      return notifyPostLiked(tx, event);
    case "postUnliked":
      return notifyPostUnliked(tx, event);
    case "commentAdded":
      return notifyCommentAdded(tx, event);
    case "commentDeleted":
      return notifyCommentDeleted(tx, event);
    case "userFollowed":
      return notifyUserFollowed(tx, event);
    case "userUnfollowed":
      return notifyUserUnfollowed(tx, event);
    case "userBlocked":
      return notifyUserBlocked(tx, event);
    case "followRequested":
      return notifyFollowRequested(tx, event);
    case "followRequestClosed":
      return notifyFollowRequestClosed(tx, event);
    case "followAccepted":
      return notifyFollowAccepted(tx, event);
  }
}

export type { SocialEvent };
