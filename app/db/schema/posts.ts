import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth";
import { AUDIENCES, POST_KINDS } from "./enums";
import { media } from "./media";

/**
 * A post is about a piece of music. Times have millisecond precision so a JavaScript Date
 * round-trips exactly through keyset cursors.
 */
export const posts = pgTable(
  "posts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    authorId: text("author_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: POST_KINDS }).notNull(),
    title: text("title").notNull(),
    /** For `artist` posts this repeats the title, so "posts about artist X" is one column. */
    artist: text("artist"),
    album: text("album"),
    linkUrl: text("link_url"),
    note: text("note").notNull().default(""),
    mood: text("mood"),
    mediaId: uuid("media_id").references(() => media.id, { onDelete: "set null" }),
    audience: text("audience", { enum: AUDIENCES }).notNull().default("everyone"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    editedAt: timestamp("edited_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index("posts_author_created_idx").on(t.authorId, t.createdAt.desc(), t.id.desc()),
    // The "Everyone" tab and signed-out feed: public posts newest first.
    index("posts_public_created_idx")
      .on(t.createdAt.desc(), t.id.desc())
      .where(sql`${t.audience} = 'everyone'`),
    // Search ranks a common word's newest matches only: it walks all posts newest first.
    index("posts_created_idx").on(t.createdAt.desc(), t.id.desc()),
    // Composer autocomplete: prefix matches on lower(...) need text_pattern_ops under any collation.
    index("posts_title_prefix_idx").using("btree", sql`lower(${t.title}) text_pattern_ops`),
    index("posts_artist_prefix_idx").using("btree", sql`lower(${t.artist}) text_pattern_ops`),
    index("posts_album_prefix_idx").using("btree", sql`lower(${t.album}) text_pattern_ops`),
    index("posts_media_idx").on(t.mediaId),
    // Unfurling tells the posts with a link when its card is ready.
    index("posts_link_url_idx").on(t.linkUrl).where(sql`${t.linkUrl} is not null`),
    check("posts_note_length", sql`char_length(${t.note}) <= 2000`),
    check("posts_title_length", sql`char_length(${t.title}) between 1 and 200`),
  ],
);
