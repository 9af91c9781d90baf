import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { user } from "./auth";
import { NOTIFICATION_KINDS } from "./enums";
import { posts } from "./posts";
import { comments } from "./social";

/**
 * One ever-growing counter shared by every notification. A notification takes a new value
 * whenever it changes in a way its recipient should hear about (created, another person joined
 * the group), so "everything after N" is exactly what a reconnecting browser missed; the value
 * is the Server-Sent Event id.
 */
export const notificationSeq = pgSequence("notification_seq", { startWith: 1 });

/**
 * What a person is told about. Unread notifications of one kind about one thing are grouped
 * ("Ana and 3 others liked your post"): `group_key` names the thing, and at most one unread
 * notification per recipient and key exists. Once read, the next event starts a new one.
 * The people behind a notification are its `notification_actors`; one without actors is
 * never shown (and is deleted when its last actor goes).
 */
export const notifications = pgTable(
  "notifications",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    recipientId: text("recipient_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: NOTIFICATION_KINDS }).notNull(),
    groupKey: text("group_key").notNull(),
    postId: uuid("post_id").references(() => posts.id, { onDelete: "cascade" }),
    /** The comment it is about (comment, reply, mention in a comment); its deletion removes it. */
    commentId: uuid("comment_id").references(() => comments.commentId, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull().default(sql`nextval('notification_seq')`),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    readAt: timestamp("read_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index("notifications_recipient_seq_idx").on(t.recipientId, t.seq.desc()),
    index("notifications_unread_idx").on(t.recipientId).where(sql`${t.readAt} is null`),
    uniqueIndex("notifications_open_group_idx")
      .on(t.recipientId, t.groupKey)
      .where(sql`${t.readAt} is null`),
  ],
);

/** The people behind a notification, with the comment each one wrote where that applies. */
export const notificationActors = pgTable(
  "notification_actors",
  {
    notificationId: uuid("notification_id")
      .notNull()
      .references(() => notifications.id, { onDelete: "cascade" }),
    actorId: text("actor_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    commentId: uuid("comment_id").references(() => comments.commentId, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.notificationId, t.actorId] }),
    index("notification_actors_actor_idx").on(t.actorId),
  ],
);

/**
 * A person's choice for one kind of notification, in the app and by e-mail. No row means the
 * defaults of `NOTIFICATION_DEFAULTS`.
 */
export const notificationPreferences = pgTable(
  "notification_preferences",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: NOTIFICATION_KINDS }).notNull(),
    inApp: boolean("in_app").notNull(),
    email: boolean("email").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.kind] })],
);
