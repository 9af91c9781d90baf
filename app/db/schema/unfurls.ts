import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { bytea } from "./media";

export const UNFURL_STATUSES = ["pending", "done", "failed"] as const;
export type UnfurlStatus = (typeof UNFURL_STATUSES)[number];

/**
 * Public metadata of streaming links (title, artist, artwork), fetched once per URL from the
 * service and shared by every post with that link, by a job (core/jobs) keyed by the URL, so
 * a restart resumes it and a second instance never fetches the same URL at the same time. The artwork is stored re-encoded
 * (WebP) and served from `/art/<sha256>.webp`, so pages never load it from the service.
 */
export const linkUnfurls = pgTable(
  "link_unfurls",
  {
    /** The link exactly as posts store it (posts.link_url). */
    url: text("url").primaryKey(),
    service: text("service").notNull(),
    status: text("status", { enum: UNFURL_STATUSES }).notNull().default("pending"),
    /** Attempts so far (the job's), for operators. */
    attempts: integer("attempts").notNull().default(0),
    title: text("title"),
    artist: text("artist"),
    /** The service's player, when its oEmbed answer names one on an allowed origin. */
    embedUrl: text("embed_url"),
    artwork: bytea("artwork"),
    artworkWidth: integer("artwork_width"),
    artworkHeight: integer("artwork_height"),
    /** Hex SHA-256 of `artwork`: its file name and ETag. */
    artworkSha256: text("artwork_sha256"),
    /** Why the last attempt failed (for operators; never shown to people). */
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    index("link_unfurls_pending_idx").on(t.createdAt).where(sql`${t.status} = 'pending'`),
    index("link_unfurls_artwork_idx").on(t.artworkSha256),
    check("link_unfurls_title_length", sql`char_length(${t.title}) <= 300`),
    check("link_unfurls_artist_length", sql`char_length(${t.artist}) <= 300`),
  ],
);
