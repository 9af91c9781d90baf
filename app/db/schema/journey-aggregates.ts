import { sql } from "drizzle-orm";
import {
  bigint,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { user } from "./auth";

/*
 * The journey's durable aggregates (docs/decisions/032-journey-aggregates.md): what a person's
 * plays add up to per day and per month, written by a job (`journey.aggregate`, core/jobs) after
 * imports and scrobbles — never by triggers in the insert path — so a journey for any period
 * reads at most a few thousand small rows on any instance. A month is aggregated as of a revision
 * of its days (`listen_days.rev`, kept by 0027's statement trigger); a month whose days moved on
 * since is read from the plays instead, so the stats are always the plays' stats, and the job
 * only decides how fast they are.
 */

/** One row per person and day with plays: totals, the clock, and the same without hidden artists. */
export const journeyDays = pgTable(
  "journey_days",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    plays: integer("plays").notNull(),
    /** Summed lengths of the plays whose length is known. */
    knownMs: bigint("known_ms", { mode: "number" }).notNull(),
    /** Plays without a length (estimated when shown). */
    estimated: integer("estimated").notNull(),
    /** Plays per hour (UTC), 24 counts. */
    hours: integer("hours").array().notNull(),
    /** The same four, without the artists the person hides (`journey_aggregate_state.hidden`). */
    visiblePlays: integer("visible_plays").notNull(),
    visibleKnownMs: bigint("visible_known_ms", { mode: "number" }).notNull(),
    visibleEstimated: integer("visible_estimated").notNull(),
    visibleHours: integer("visible_hours").array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

/** What a month's plays add up to per artist (kind 0), release (1) and track (2). */
export const JOURNEY_KINDS = { artist: 0, release: 1, track: 2 } as const;

export const journeyMonths = pgTable(
  "journey_months",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** The month's first day. */
    month: date("month", { mode: "string" }).notNull(),
    kind: smallint("kind").notNull(),
    artistKey: text("artist_key").notNull(),
    /** The release or track key; "" for an artist. */
    key: text("key").notNull(),
    plays: integer("plays").notNull(),
    /** How often each spelling was written: the artist's, the release's or the track's. */
    names: jsonb("names").$type<Record<string, number>>().notNull(),
    /** For releases and tracks: how often each spelling of their artist was written. */
    artistNames: jsonb("artist_names").$type<Record<string, number>>(),
    /** For artists: their first play in the month (discoveries). */
    firstAt: timestamp("first_at", { withTimezone: true, precision: 0 }),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.month, t.kind, t.artistKey, t.key] }),
    index("journey_months_key_idx").on(t.userId, t.kind, t.artistKey, t.key, t.month),
    // Each month's most played first: the top lists read a few rows of each month.
    index("journey_months_top_idx").on(t.userId, t.kind, t.month, t.plays.desc()),
  ],
);

/**
 * Each artist, release and track over the person's whole history (the sum of their months):
 * all-time top lists, how many artists a period has, and discoveries (when each artist was
 * first played) without reading every month.
 */
export const journeyKeys = pgTable(
  "journey_keys",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    kind: smallint("kind").notNull(),
    artistKey: text("artist_key").notNull(),
    key: text("key").notNull(),
    plays: integer("plays").notNull(),
    /** Artists: their first play ever. */
    firstAt: timestamp("first_at", { withTimezone: true, precision: 0 }),
    /** Artists: the months they were played in, as year × 12 + month − 1, in order. */
    months: integer("months").array(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.kind, t.artistKey, t.key] }),
    index("journey_keys_top_idx").on(t.userId, t.kind, t.plays.desc()),
    index("journey_keys_first_idx").on(t.userId, t.kind, t.firstAt),
  ],
);

/** The revision of its days a month was aggregated at (the largest `listen_days.rev` in it). */
export const journeyMonthRevs = pgTable(
  "journey_month_revs",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    month: date("month", { mode: "string" }).notNull(),
    rev: bigint("rev", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.month] })],
);

/** Per person: the hidden artists the visible day totals leave out. */
export const journeyAggregateState = pgTable("journey_aggregate_state", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  hidden: text("hidden").array().notNull().default(sql`'{}'::text[]`),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
});
