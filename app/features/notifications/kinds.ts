import type { NotificationKind } from "~/db/schema/enums";

export {
  isNotificationKind,
  NOTIFICATION_KINDS,
  type NotificationKind,
} from "~/db/schema/enums";

export interface NotificationPreference {
  inApp: boolean;
  email: boolean;
}

/**
 * Defaults for someone who never chose: everything in the app; by e-mail what is addressed to
 * them (comments, replies, mentions, new followers) but not every like, which would be noise.
 */
export const NOTIFICATION_DEFAULTS: Record<NotificationKind, NotificationPreference> = {
  like: { inApp: true, email: false },
  comment: { inApp: true, email: true },
  reply: { inApp: true, email: true },
  mention: { inApp: true, email: true },
  follow: { inApp: true, email: true },
  follow_request: { inApp: true, email: true },
  follow_accept: { inApp: true, email: false },
  listen_import: { inApp: true, email: false },
};

export const NOTIFICATION_KIND_LABELS: Record<NotificationKind, string> = {
  like: "Likes on your posts",
  comment: "Comments on your posts",
  reply: "Replies to your comments",
  mention: "Mentions of you",
  follow: "New followers",
  follow_request: "Requests to follow you",
  follow_accept: "Your follow requests accepted",
  listen_import: "Listening history imports finished",
};

/** Kinds about the person's own things, not someone else's doing (no "who" in the sentence). */
export const SELF_NOTIFICATION_KINDS: readonly NotificationKind[] = ["listen_import"];
