import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth";
import { posts } from "./posts";
import { comments } from "./social";

/**
 * Fedify's key–value store (its cache of remote documents and keys, inbox idempotence), on our
 * own database behind its `KvStore` interface (docs/decisions/038-federation.md). The key is
 * Fedify's key parts as a JSON array; an expired row reads as absent and maintenance purges it.
 */
export const federationKv = pgTable(
  "federation_kv",
  {
    key: text("key").primaryKey(),
    value: jsonb("value").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index("federation_kv_expires_idx").on(t.expiresAt).where(sql`${t.expiresAt} is not null`),
  ],
);

/** A local person's signing keys (JWK), made the first time their actor is asked for. */
export const federationKeys = pgTable("federation_keys", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  rsaPublic: jsonb("rsa_public").notNull(),
  rsaPrivate: jsonb("rsa_private").notNull(),
  ed25519Public: jsonb("ed25519_public").notNull(),
  ed25519Private: jsonb("ed25519_private").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
});

/**
 * The origin of a remote person: a `user` and `profiles` row like a local person's (so follows,
 * likes, comments, feed and notifications keep one code path), plus where they live.
 */
export const remoteActors = pgTable(
  "remote_actors",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    actorUri: text("actor_uri").notNull(),
    /** Host (with port when not the default) of the actor URI, lower case. */
    host: text("host").notNull(),
    inbox: text("inbox").notNull(),
    sharedInbox: text("shared_inbox"),
    /** Their profile page for people (`url`), else the actor URI. */
    profileUrl: text("profile_url"),
    followersUri: text("followers_uri"),
    fetchedAt: timestamp("fetched_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("remote_actors_actor_uri_idx").on(t.actorUri),
    index("remote_actors_host_idx").on(t.host),
  ],
);

/** The origin of a post that arrived from elsewhere: its ActivityPub object id. */
export const remotePosts = pgTable(
  "remote_posts",
  {
    postId: uuid("post_id")
      .primaryKey()
      .references(() => posts.id, { onDelete: "cascade" }),
    objectUri: text("object_uri").notNull(),
    /** The note's HTML as it arrived, sanitised (allow-list) before it was stored. */
    contentHtml: text("content_html").notNull().default(""),
    url: text("url"),
  },
  (t) => [uniqueIndex("remote_posts_object_uri_idx").on(t.objectUri)],
);

/** The origin of a comment that arrived as a reply from elsewhere. */
export const remoteComments = pgTable(
  "remote_comments",
  {
    commentId: uuid("comment_id")
      .primaryKey()
      .references(() => comments.commentId, { onDelete: "cascade" }),
    objectUri: text("object_uri").notNull(),
  },
  (t) => [uniqueIndex("remote_comments_object_uri_idx").on(t.objectUri)],
);
