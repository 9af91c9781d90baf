import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { user } from "./auth";

/** Where a play came from: a file import (by format) or a player scrobbling live. */
export const LISTEN_SOURCES = [
  "spotify",
  "spotify_extended",
  "lastfm",
  "listenbrainz",
  "scrobble",
] as const;
export type ListenSource = (typeof LISTEN_SOURCES)[number];

export const JOURNEY_AUDIENCES = ["everyone", "followers", "only_me"] as const;
export type JourneyAudience = (typeof JOURNEY_AUDIENCES)[number];

/**
 * One play of one track: the listening history behind a person's journey. `listenedAt` is when
 * the play started, in UTC, to the second (ListenBrainz's `listened_at`; a Spotify play's end
 * time minus its length). The names are kept as the service wrote them; the `*Key` columns are
 * their normalised forms (app/core/music-keys.ts) used for matching and grouping.
 * The natural key (person, start second, artist key, track key) makes re-imports add nothing.
 */
export const listens = pgTable(
  "listens",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    listenedAt: timestamp("listened_at", { withTimezone: true, precision: 0 }).notNull(),
    /** How long it played, when the source says (Spotify's ms_played, a scrobbler's duration). */
    durationMs: integer("duration_ms"),
    artistName: text("artist_name").notNull(),
    trackName: text("track_name").notNull(),
    releaseName: text("release_name"),
    artistKey: text("artist_key").notNull(),
    trackKey: text("track_key").notNull(),
    releaseKey: text("release_key"),
    source: text("source", { enum: LISTEN_SOURCES }).notNull(),
    /** The import that brought it in (null for live scrobbles); an import can be undone. */
    importId: uuid("import_id"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("listens_natural_key").on(t.userId, t.listenedAt, t.artistKey, t.trackKey),
    index("listens_import_idx").on(t.importId),
    check(
      "listens_names_length",
      sql`char_length(${t.artistName}) between 1 and 512
      and char_length(${t.trackName}) between 1 and 512
      and (${t.releaseName} is null or char_length(${t.releaseName}) <= 512)`,
    ),
  ],
);

/**
 * A ListenBrainz-protocol token (`Authorization: Token <token>`) a player uses to send listens.
 * Only its SHA-256 is stored; the token is shown once when created. Revoked tokens stay listed.
 */
export const listenTokens = pgTable(
  "listen_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** What the person called it ("Navidrome at home"). */
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** The last four characters, so the person can tell tokens apart. */
    hint: text("hint").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, precision: 3 }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    uniqueIndex("listen_tokens_hash_idx").on(t.tokenHash),
    index("listen_tokens_user_idx").on(t.userId, t.createdAt),
    check("listen_tokens_name_length", sql`char_length(${t.name}) between 1 and 60`),
  ],
);

/** What a person's player says is playing right now (`listen_type: playing_now`); one row each. */
export const nowPlaying = pgTable("now_playing", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  artistName: text("artist_name").notNull(),
  trackName: text("track_name").notNull(),
  releaseName: text("release_name"),
  durationMs: integer("duration_ms"),
  startedAt: timestamp("started_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  /** Shown until then: the track's length when known, else a few minutes. */
  expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
});

/**
 * Who may see a person's journey and what of it. No row means the defaults: followers see it,
 * nothing hidden, "now playing" shown, recaps on.
 */
export const journeySettings = pgTable(
  "journey_settings",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    audience: text("audience", { enum: JOURNEY_AUDIENCES }).notNull().default("followers"),
    /** Artist keys (normalised) left out of everything others see. */
    hiddenArtists: text("hidden_artists").array().notNull().default(sql`'{}'::text[]`),
    nowPlayingPaused: boolean("now_playing_paused").notNull().default(false),
    recapsEnabled: boolean("recaps_enabled").notNull().default(true),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    check(
      "journey_settings_audience_check",
      sql`${t.audience} in ('everyone', 'followers', 'only_me')`,
    ),
  ],
);

export const LISTEN_IMPORT_STATUSES = [
  /** Files read into staging; the preview is shown; nothing is in the history yet. */
  "preview",
  /** Confirmed; plays are being copied into the history in the background. */
  "importing",
  "done",
  "failed",
  "cancelled",
] as const;
export type ListenImportStatus = (typeof LISTEN_IMPORT_STATUSES)[number];

/** What a preview found, shown before anything is written. */
export interface ListenImportSummary {
  /** Plays that will be imported. */
  plays: number;
  firstPlayedAt: string | null;
  lastPlayedAt: string | null;
  topArtists: { name: string; plays: number }[];
  /** Rows left out, by reason ("shorter than 30 seconds", "a podcast episode", …). */
  skipped: { reason: string; count: number }[];
  /** A few broken rows with where they are, so the person can tell what was wrong. */
  problems: { file: string; line: number; message: string }[];
  files: { name: string; format: string; rows: number }[];
}

/** One upload of history files: previewed first, then imported in the background. */
export const listenImports = pgTable(
  "listen_imports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    status: text("status", { enum: LISTEN_IMPORT_STATUSES }).notNull().default("preview"),
    summary: jsonb("summary").$type<ListenImportSummary>(),
    /** Plays to copy and how many are done, for the progress bar. */
    total: integer("total").notNull().default(0),
    processed: integer("processed").notNull().default(0),
    /** Plays that were new (the rest were already in the history). */
    added: integer("added").notNull().default(0),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index("listen_imports_user_idx").on(t.userId, t.createdAt)],
);

/** Plays read from an upload, waiting for the person to confirm the preview. */
export const listenImportRows = pgTable(
  "listen_import_rows",
  {
    importId: uuid("import_id")
      .notNull()
      .references(() => listenImports.id, { onDelete: "cascade" }),
    /** Order within the upload, so the copy can go in batches by range. */
    seq: integer("seq").notNull(),
    listenedAt: timestamp("listened_at", { withTimezone: true, precision: 0 }).notNull(),
    durationMs: integer("duration_ms"),
    artistName: text("artist_name").notNull(),
    trackName: text("track_name").notNull(),
    releaseName: text("release_name"),
    artistKey: text("artist_key").notNull(),
    trackKey: text("track_key").notNull(),
    releaseKey: text("release_key"),
    source: text("source", { enum: LISTEN_SOURCES }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.seq] })],
);

/**
 * A chapter of a person's journey: a period where their taste shifted, found automatically
 * (starts and ends on day boundaries, UTC) and given a title and a note by the person.
 */
export const journeyChapters = pgTable(
  "journey_chapters",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    startsOn: date("starts_on", { mode: "string" }).notNull(),
    endsOn: date("ends_on", { mode: "string" }).notNull(),
    title: text("title"),
    note: text("note"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("journey_chapters_user_start_idx").on(t.userId, t.startsOn),
    check(
      "journey_chapters_title_length",
      sql`${t.title} is null or char_length(${t.title}) <= 80`,
    ),
    check("journey_chapters_note_length", sql`${t.note} is null or char_length(${t.note}) <= 1000`),
    check("journey_chapters_range", sql`${t.startsOn} <= ${t.endsOn}`),
  ],
);

/**
 * A counter per person, raised by statement-level triggers on `listens` (migration
 * 0017_journey-stats) whenever their plays change, whoever writes them (imports, scrobbles, undo):
 * cached journey stats are valid for one version.
 */
export const listenVersions = pgTable("listen_versions", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  version: bigint("version", { mode: "number" }).notNull().default(0),
  changedAt: timestamp("changed_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
});

/**
 * Journey stats computed once per person, period, audience (hidden artists left out or not) and
 * listen version (app/features/journey/stats.server.ts): aggregating a million plays takes far
 * longer than reading one row.
 */
export const journeyStatsCache = pgTable(
  "journey_stats_cache",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    stats: jsonb("stats").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] })],
);

/*
 * Per person and day (UTC) with plays: how many, and a revision (migrations 0026, 0027; ADR 025).
 * A statement-level trigger on `listens` adds each statement's changed plays to their days
 * (enabled ALWAYS, so the importer's replica-role batches keep them too) and gives every day it
 * touches a new `rev` from a sequence. The journey's aggregate job (ADR 032,
 * app/features/journey/aggregates.server.ts) does again exactly the months whose days' `rev`
 * changed. No foreign key to "user": the trigger removes a person's rows with their plays.
 */
export const listenDays = pgTable(
  "listen_days",
  {
    userId: text("user_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    plays: integer("plays").notNull(),
    rev: bigint("rev", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

/**
 * A person's love (1) or hate (-1) of a recording (ListenBrainz's recording feedback), named by
 * its MSID (app/features/journey/listenbrainz/msid.server.ts) or its MusicBrainz id. `recording`
 * is the one it is keyed by (the MBID when given). The names are kept when known (a heart on a
 * listen, or an MSID found in the person's recent listens) so the list of loved tracks can show
 * them. Score 0 removes the row, as ListenBrainz does.
 */
export const listenFeedback = pgTable(
  "listen_feedback",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    recording: uuid("recording").notNull(),
    recordingMsid: uuid("recording_msid"),
    recordingMbid: uuid("recording_mbid"),
    score: smallint("score").notNull(),
    artistName: text("artist_name"),
    trackName: text("track_name"),
    releaseName: text("release_name"),
    /** The artist's key (hidden artists are left out of what others see). */
    artistKey: text("artist_key"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.recording] }),
    index("listen_feedback_user_created_idx").on(t.userId, t.createdAt.desc()),
    check("listen_feedback_score_check", sql`${t.score} in (-1, 1)`),
    check(
      "listen_feedback_names_length",
      sql`(${t.artistName} is null or char_length(${t.artistName}) <= 512)
      and (${t.trackName} is null or char_length(${t.trackName}) <= 512)
      and (${t.releaseName} is null or char_length(${t.releaseName}) <= 512)`,
    ),
  ],
);

/**
 * The newest listen an importer says it sent, per person and service (ListenBrainz's
 * `POST /1/latest-import`): importers ask for it to resume where they stopped.
 */
export const listenImportMarks = pgTable(
  "listen_import_marks",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    service: text("service").notNull(),
    latestListenedAt: bigint("latest_listened_at", { mode: "number" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.service] })],
);
