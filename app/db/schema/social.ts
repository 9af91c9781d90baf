import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  check,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { user } from "./auth";
import { posts } from "./posts";

const createdAt = () =>
  timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow();

export const postLikes = pgTable(
  "post_likes",
  {
    postId: uuid("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.postId, t.userId] }),
    index("post_likes_user_idx").on(t.userId, t.createdAt),
    index("post_likes_created_idx").on(t.createdAt),
  ],
);

/** Spec §3 comments: comment_id, post_id, user_id, content, created_at (+ edited_at). */
export const comments = pgTable(
  "comments",
  {
    commentId: uuid("comment_id").primaryKey().defaultRandom(),
    postId: uuid("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    content: text("content").notNull(),
    /** The comment this one answers (same post); it stays when that one is deleted. */
    replyToId: uuid("reply_to_id").references((): AnyPgColumn => comments.commentId, {
      onDelete: "set null",
    }),
    /**
     * The top-level comment whose thread this reply is shown in (one level of nesting: a reply
     * to a reply joins the same thread); null for a top-level comment. A reply whose thread
     * starter is deleted becomes top-level.
     */
    threadId: uuid("thread_id").references((): AnyPgColumn => comments.commentId, {
      onDelete: "set null",
    }),
    createdAt: createdAt(),
    editedAt: timestamp("edited_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index("comments_post_created_idx").on(t.postId, t.createdAt, t.commentId),
    index("comments_thread_idx").on(t.threadId, t.createdAt, t.commentId),
    index("comments_created_idx").on(t.createdAt.desc()),
    index("comments_user_idx").on(t.userId),
    check("comments_content_length", sql`char_length(${t.content}) between 1 and 1000`),
  ],
);

export const follows = pgTable(
  "follows",
  {
    followerId: text("follower_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    followeeId: text("followee_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.followerId, t.followeeId] }),
    index("follows_followee_idx").on(t.followeeId, t.createdAt),
    /** The fan-out worker walks a person's followers in this order, a batch at a time. */
    index("follows_followee_follower_idx").on(t.followeeId, t.followerId),
    check("follows_not_self", sql`${t.followerId} <> ${t.followeeId}`),
  ],
);

/**
 * A request to follow someone who approves their followers. It becomes a row of `follows` when
 * accepted and goes when declined, cancelled, or when either person blocks the other.
 */
export const followRequests = pgTable(
  "follow_requests",
  {
    requesterId: text("requester_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    targetId: text("target_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.requesterId, t.targetId] }),
    index("follow_requests_target_idx").on(t.targetId, t.createdAt),
    check("follow_requests_not_self", sql`${t.requesterId} <> ${t.targetId}`),
  ],
);

export const blocks = pgTable(
  "blocks",
  {
    blockerId: text("blocker_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    blockedId: text("blocked_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.blockerId, t.blockedId] }),
    index("blocks_blocked_idx").on(t.blockedId),
    check("blocks_not_self", sql`${t.blockerId} <> ${t.blockedId}`),
  ],
);

export const REPORT_STATUSES = ["open", "resolved"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export const REPORT_REASONS = [
  "spam",
  "harassment",
  "hate",
  "sexual",
  "violence",
  "copyright",
  "other",
] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/** A report of a post or a comment (exactly one), reviewed in the admin area. */
export const reports = pgTable(
  "reports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    reporterId: text("reporter_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    postId: uuid("post_id").references(() => posts.id, { onDelete: "cascade" }),
    commentId: uuid("comment_id").references(() => comments.commentId, { onDelete: "cascade" }),
    reason: text("reason", { enum: REPORT_REASONS }).notNull(),
    details: text("details").notNull().default(""),
    status: text("status", { enum: REPORT_STATUSES }).notNull().default("open"),
    createdAt: createdAt(),
    resolvedBy: text("resolved_by").references(() => user.id, { onDelete: "set null" }),
    resolvedAt: timestamp("resolved_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index("reports_status_created_idx").on(t.status, t.createdAt.desc()),
    index("reports_post_idx").on(t.postId),
    index("reports_comment_idx").on(t.commentId),
    // One open report per person and target: reporting twice does not pile up.
    uniqueIndex("reports_open_post_uq")
      .on(t.reporterId, t.postId)
      .where(sql`${t.status} = 'open' and ${t.postId} is not null`),
    uniqueIndex("reports_open_comment_uq")
      .on(t.reporterId, t.commentId)
      .where(sql`${t.status} = 'open' and ${t.commentId} is not null`),
    check("reports_one_target", sql`num_nonnulls(${t.postId}, ${t.commentId}) = 1`),
    check("reports_details_length", sql`char_length(${t.details}) <= 1000`),
  ],
);

/**
 * The stored home timeline (fan-out on write): one row per post a user may see in "Following".
 * The primary key serves the keyset range read (user_id = ?, (created_at, post_id) < cursor).
 */
export const homeTimeline = pgTable(
  "home_timeline",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    postId: uuid("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    /** A copy of posts.author_id (no foreign key: deleting the author deletes the posts). */
    authorId: text("author_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.createdAt, t.postId] }),
    index("home_timeline_post_idx").on(t.postId),
    index("home_timeline_user_author_idx").on(t.userId, t.authorId),
  ],
);
