import { type SQL, sql } from "drizzle-orm";
import { getDb, rowsOf } from "~/db/client.server";
import { listens, type RollupKind } from "~/db/schema";

/*
 * Reads of the listening rollups (migration 0026_journey-rollups, ADR 024): per person, plays per
 * day and per calendar month by artist, release and track, with the names as written, kept by
 * triggers on `listens`. A period [start, end) on day boundaries (UTC) is read as its whole
 * months plus the days before the first and after the last of them, so a year costs about 12
 * month rows and up to 60 day rows per key instead of every play.
 */

const DAY_MS = 86_400_000;

/** True when `date` is midnight UTC: the rollups answer only periods on day boundaries. */
export function isDayStart(date: Date): boolean {
  return date.getTime() % DAY_MS === 0;
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

function nextMonth(month: string): string {
  const d = new Date(`${month}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return dayOf(d);
}

function nextDay(day: string): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS));
}

/**
 * A period as rollup units: days [start, monthsFrom), months [monthsFrom, monthsTo), days
 * [monthsTo, end). Without a whole month inside, every day is in the first range.
 */
export interface RollupPeriod {
  start: string;
  end: string;
  monthsFrom: string;
  monthsTo: string;
}

export function rollupPeriod(start: Date, end: Date): RollupPeriod {
  const s = dayOf(start);
  const e = dayOf(end);
  const from = s === monthStart(s) ? s : nextMonth(monthStart(s));
  const to = monthStart(e);
  if (from >= to) return { start: s, end: e, monthsFrom: e, monthsTo: e };
  return { start: s, end: e, monthsFrom: from, monthsTo: to };
}

/** How many units (days and months) a period is read as. */
function countUnits(p: RollupPeriod): number {
  let n = 0;
  for (let d = p.start; d < p.monthsFrom; d = nextDay(d)) n++;
  for (let m = p.monthsFrom; m < p.monthsTo; m = nextMonth(m)) n++;
  for (let d = p.monthsTo; d < p.end; d = nextDay(d)) n++;
  return n;
}

/** The hidden-artist filter on a table's `artist_key` (one JSON parameter whatever its size). */
function visible(column: SQL, hidden: string[]): SQL {
  if (hidden.length === 0) return sql`true`;
  return sql`${column} not in (select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb))`;
}

export interface RankedKey {
  artistKey: string;
  itemKey: string;
  plays: number;
  name: string;
  artistName: string;
}

/**
 * Sorted reads per unit in the threshold search's first round; raised 4× until the answer is
 * proven. Measured on 1M plays, the three top lists together (p50): a week 33 → 18 ms against
 * the earlier 1,200 reads spread over the units, a year 51 → 39 ms, a 30-day window 49 → 53 ms,
 * all time unchanged (bench/README.md, "journey stats from rollups, adopted").
 */
const FIRST_DEPTH = 16;
const MAX_DEPTH = 2560;

/** A period's bounds as the functions of migration 0026 take them. */
function bounds(p: RollupPeriod): SQL {
  return sql`${p.start}::date, ${p.monthsFrom}::date, ${p.monthsTo}::date, ${p.end}::date`;
}

function hiddenArray(hidden: string[]): SQL {
  return sql`array(select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb))`;
}

async function call<T>(statement: SQL): Promise<T> {
  const [row] = rowsOf<{ result: T }>(await getDb().execute(statement));
  return row?.result as T;
}

/**
 * The `limit` keys of `kind` with the most plays in the period (ties by key), with their most
 * common names, ties to the first in sort order as mode() picks them; hidden artists left out.
 * `journey_top_keys` (migration 0026) does a threshold search (Fagin's TA): the `depth` most
 * played keys of every unit are read from the rollups' (unit, plays desc) index. A key not among
 * them has at most `bound`, the sum over units of each unit's depth-th count. A key seen in some
 * units has at least the plays seen and at most those plus the depth-th counts of the other
 * units; only keys whose most reaches the limit-th least can be in the list, and their exact
 * plays and names come from the name rollups by key. When the limit-th of those has more than
 * `bound`, no unseen key can enter; if not, the search goes 4× deeper, and past MAX_DEPTH the
 * period's rows are simply summed.
 */

export async function topKeys(options: {
  userId: string;
  kind: RollupKind;
  period: RollupPeriod;
  hidden: string[];
  limit: number;
  /** The search's first and last depth (tests reach the deeper steps and the sum with them). */
  depths?: { first: number; max: number };
}): Promise<RankedKey[]> {
  const { userId, kind, period: p, hidden, limit } = options;
  if (countUnits(p) === 0) return [];
  const depths = options.depths ?? { first: FIRST_DEPTH, max: MAX_DEPTH };
  return call<RankedKey[]>(sql`select journey_top_keys(${userId}, ${kind}, ${bounds(p)},
    ${hiddenArray(hidden)}, ${limit}::int, ${depths.first}::int, ${depths.max}::int) as result`);
}

/** The plays, time, clock, buckets and streaks of a period (`journey_day_stats`, migration 0026). */
export interface DayStats {
  plays: number;
  knownMs: number;
  estimated: number;
  /** Days with plays in the period. */
  days: number;
  /** Plays per bucket start (`YYYY-MM-DD`). */
  buckets: Record<string, number>;
  /** Per weekday (0 = Monday) with plays, 24 counts by hour (UTC). */
  clock: Record<string, number[]>;
  longest: { from: string; to: string; days: number } | null;
  current: { from: string; to: string; days: number } | null;
}

/** The first day with plays of the person's (hidden artists' plays left out), or null. */
export async function firstPlayDay(options: {
  userId: string;
  hidden: string[];
}): Promise<string | null> {
  const { userId, hidden } = options;
  const [row] = rowsOf<{ day: string }>(
    await getDb().execute(
      hidden.length === 0
        ? sql`select to_char(day, 'YYYY-MM-DD') as day from listen_days
            where user_id = ${userId} order by day limit 1`
        : sql`select to_char(d.day, 'YYYY-MM-DD') as day from listen_days d
            where d.user_id = ${userId} and d.plays > (select count(*) from ${listens} l
              where l.user_id = ${userId} and l.artist_key = any(${hiddenArray(hidden)})
                and l.listened_at >= d.day::timestamp at time zone 'UTC'
                and l.listened_at < (d.day + 1)::timestamp at time zone 'UTC')
            order by d.day limit 1`,
    ),
  );
  return row?.day ?? null;
}

/**
 * Everything the journey shows for a period, in one statement (every statement has a cost of its
 * own on PGlite), each part a function of migration 0026:
 * - `journey_day_stats`, from the per-day totals: plays, time, plays per bucket, the clock and
 *   the longest streak of [start, end), and the current streak of the days before `tomorrow`
 *   (the grace rule of stats.server.ts). Hidden artists' plays are read from the plays and taken
 *   out of each day's: that costs what their plays cost, not the history.
 * - `journey_top_keys` for artists, albums and tracks (see topKeys).
 * - `journey_artist_count`: the artists with plays in the period; when nothing was played from
 *   its end on, those last played since its start (one index range), else from the rollups.
 * - `journey_discoveries`: the artists whose first play ever is in the period, how many, and the
 *   `limit` latest with the name they were most played under in the period and the day of that
 *   first play (UTC), latest first, ties by name.
 * Hidden artists are left out of all of it.
 */
export async function periodStats(options: {
  userId: string;
  period: RollupPeriod;
  bucket: "day" | "week" | "month";
  tomorrow: string;
  hidden: string[];
  limit: number;
}): Promise<{
  days: DayStats;
  artists: RankedKey[];
  albums: RankedKey[];
  tracks: RankedKey[];
  artistCount: number;
  discoveries: { count: number; artists: { name: string; firstPlayedOn: string }[] };
}> {
  const { userId, period: p, hidden, limit } = options;
  const top = (kind: RollupKind) =>
    countUnits(p) === 0
      ? sql`'[]'::jsonb`
      : sql`journey_top_keys(${userId}, ${kind}, ${bounds(p)}, ${hiddenArray(hidden)}, ${limit}::int,
          ${FIRST_DEPTH}::int, ${MAX_DEPTH}::int)`;
  const [row] = rowsOf<{
    days: DayStats;
    artists: RankedKey[];
    albums: RankedKey[];
    tracks: RankedKey[];
    artist_count: number;
    discoveries: { count: number; artists: { name: string; firstPlayedOn: string }[] };
  }>(
    await getDb().execute(sql`select
      journey_day_stats(${userId}, ${p.start}::date, ${p.end}::date, ${options.bucket}::text,
        ${options.tomorrow}::date, ${hiddenArray(hidden)}) as days,
      ${top("a")} as artists, ${top("r")} as albums, ${top("t")} as tracks,
      journey_artist_count(${userId}, ${bounds(p)}, ${hiddenArray(hidden)}) as artist_count,
      journey_discoveries(${userId}, ${bounds(p)}, ${hiddenArray(hidden)}, ${limit}::int) as discoveries`),
  );
  if (!row) throw new Error("journey stats returned nothing");
  return { ...row, artistCount: Number(row.artist_count) };
}

/** Plays per calendar month (`YYYY-MM`) and artist key, hidden artists left out. */
export async function monthlyArtistPlays(options: {
  userId: string;
  hidden: string[];
}): Promise<{ month: string; key: string; plays: number }[]> {
  return rowsOf<{ month: string; key: string; plays: number }>(
    await getDb().execute(sql`
      select to_char(r.unit, 'YYYY-MM') as month, r.artist_key as key, r.plays
      from listen_rollups r
      where r.user_id = ${options.userId} and r.kind = 'a' and r.span = 'm' and r.plays > 0
        and ${visible(sql`r.artist_key`, options.hidden)}`),
  ).map((r) => ({ month: r.month, key: r.key, plays: Number(r.plays) }));
}
