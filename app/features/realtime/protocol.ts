import type { NotificationView } from "~/features/notifications";

/** Spec §9: the server sends a heartbeat every 30 s … */
export const HEARTBEAT_MS = 30_000;
/** … and 10 s of silence beyond what is expected counts as a failed connection. */
export const SILENCE_TIMEOUT_MS = 10_000;
/** Reconnect after 1, 2 and 5 s, then every 10 s. */
export const RECONNECT_DELAYS_MS = [1_000, 2_000, 5_000, 10_000] as const;

/** The events of `/api/events`, by name, with what their `data` holds. */
export type LiveEvent =
  | { type: "ready"; data: { heartbeatMs: number } }
  | { type: "heartbeat"; data: { at: number } }
  | { type: "notification"; data: NotificationView }
  | { type: "unread"; data: { count: number } }
  | { type: "post"; data: { postId: string; following: boolean; everyone: boolean } }
  /** `isOwn`: the reader wrote the post (their page may not show it yet: load it anyway). */
  | { type: "unfurl"; data: { postId: string; isOwn: boolean } }
  /**
   * `userId`'s listens or "now playing" changed: sent to them and to each reader their journey
   * lets in (audience, blocks), unless only they may know (paused "now playing", hidden
   * artists). Pages that show that person's listens reload them.
   */
  | { type: "listens"; data: { at: number; userId: string } }
  /** Someone whose "now playing" the reader may see started or stopped playing: refresh the strip. */
  | { type: "nowPlaying"; data: { userId: string } }
  /** A post's counts, as the reader sees them (`liked`: the reader's own like). */
  | {
      type: "counts";
      data: { postId: string; likeCount: number; commentCount: number; liked: boolean };
    };

export type LiveEventType = LiveEvent["type"];
