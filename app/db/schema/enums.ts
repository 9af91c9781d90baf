/**
 * The value lists the schema's check constraints and column types are made of. They are the
 * features' vocabulary too: each feature's constants re-export its own (posts, notifications,
 * the assistant), so the browser and the server read the same lists as the database.
 */

/**
 * What a post is about. "recap" is a journey recap card posted from the journey page; the column
 * is plain text (no check constraint), so the list grows without a migration.
 */
export const POST_KINDS = ["track", "album", "artist", "playlist", "recap"] as const;
export type PostKind = (typeof POST_KINDS)[number];
/** The kinds a person picks in the composer; a recap is made on the journey page only. */
export const COMPOSER_KINDS = [
  "track",
  "album",
  "artist",
  "playlist",
] as const satisfies readonly PostKind[];

export const AUDIENCES = ["everyone", "followers", "only_me"] as const;
export type Audience = (typeof AUDIENCES)[number];

/** What a person can be notified about. */
export const NOTIFICATION_KINDS = [
  "like",
  "comment",
  "reply",
  "mention",
  "follow",
  "follow_request",
  "follow_accept",
  "listen_import",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export function isNotificationKind(value: unknown): value is NotificationKind {
  return typeof value === "string" && (NOTIFICATION_KINDS as readonly string[]).includes(value);
}

export const MESSAGE_ROLES = ["user", "assistant"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** `stopped`: the person pressed Stop; the text is what was written until then. */
export const MESSAGE_STATUSES = ["complete", "stopped"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const ENGINE_NAMES = ["builtin", "llm"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/** A post the assistant drafted, for the person to edit and publish. */
export interface PostDraft {
  kind: "track";
  title: string;
  artist: string;
  note: string;
}
