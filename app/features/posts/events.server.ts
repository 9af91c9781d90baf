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
} from "~/features/notifications/index.server";

/**
 * Social events that other features react to (notifications, the live feed). This is called
 * inside the transaction of the change, so whatever it writes commits or rolls back with it,
 * and live messages are delivered by PostgreSQL only once the change has committed.
 * A deleted post takes its notifications with it through foreign keys.
 */
export type SocialEvent =
  | {
      type: "postCreated";
      postId: string;
      authorId: string;
      mentions: string[];
      /** False when the fan-out worker announces the post after it reached every timeline. */
      announce: boolean;
    }
  | { type: "postDeleted"; postId: string; authorId: string }
  | { type: "postLiked"; postId: string; authorId: string; likerId: string }
  | { type: "postUnliked"; postId: string; authorId: string; likerId: string }
  | {
      type: "commentAdded";
      postId: string;
      commentId: string;
      /** The post's author. */
      authorId: string;
      commenterId: string;
      /** The comment this one answers, and who wrote it. */
      replyToId: string | null;
      replyToAuthorId: string | null;
      mentions: string[];
    }
  | { type: "commentDeleted"; postId: string }
  | { type: "userFollowed"; followerId: string; followeeId: string }
  | { type: "userUnfollowed"; followerId: string; followeeId: string }
  | { type: "userBlocked"; blockerId: string; blockedId: string }
  | { type: "followRequested"; requesterId: string; targetId: string }
  /** Accepted, declined, withdrawn or removed by a block: the target's notice of it goes. */
  | { type: "followRequestClosed"; requesterId: string; targetId: string }
  | { type: "followAccepted"; requesterId: string; targetId: string };

export async function recordSocialEvent(tx: DbOrTx, event: SocialEvent): Promise<void> {
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
