/**
 * Social events: what one feature's change means to the others (notifications, the live feed).
 * The vocabulary is shared here; the notifications feature turns each event into notifications
 * (`recordSocialEvent`, called inside the transaction of the change, so whatever it writes
 * commits or rolls back with it, and live messages are delivered by PostgreSQL only once the
 * change has committed). A deleted post takes its notifications with it through foreign keys.
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
