import { type SQL, sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { listens } from "~/db/schema";
import { cachedByListens } from "./cache.server";
import {
  dayTotals,
  fromPlaysOnly,
  periodKeyStats,
  planPeriod,
  type VisibleDay,
} from "./period-stats.server";

/**
 * A period with fewer plays than this has its top lists counted from the plays themselves: one
 * statement per list costs less than reading months, whatever the period's length.
 */
const FEW_PLAYS = 20_000;

/** True for an instant at midnight UTC (every period the app asks for starts and ends so). */
export function isDayStart(date: Date): boolean {
  return date.getTime() % DAY_MS === 0;
}

/** A play whose length the source did not say counts as this long (and the total says so). */
export const ESTIMATED_PLAY_MS = 210_000;
const DAY_MS = 86_400_000;
/** Before any play: where "all time" starts when asked of the aggregates. */
const LONG_AGO = new Date(Date.UTC(1000, 0, 1));
/** The top lists' length. */
export const TOP_LIMIT = 10;

export type Bucket = "day" | "week" | "month";

export interface RankedArtist {
  key: string;
  name: string;
  plays: number;
}
export interface RankedItem extends RankedArtist {
  artistName: string;
}

export interface Streak {
  /** Days from the run's first play to its last, both included. */
  days: number;
  from: string;
  to: string;
}

export interface JourneyStats {
  /** First day (UTC, included) and the day after the last; `start` of all time is the first play. */
  start: string | null;
  end: string;
  totals: {
    plays: number;
    /** Listening time: the plays' lengths, with ESTIMATED_PLAY_MS for those without one. */
    listeningMs: number;
    /** Plays whose length was estimated; when > 0 the time is shown as an estimate. */
    estimatedPlays: number;
    artists: number;
  };
  topArtists: RankedArtist[];
  topAlbums: RankedItem[];
  topTracks: RankedItem[];
  overTime: { bucket: Bucket; points: { start: string; plays: number }[] };
  /** clock[weekday][hour], weekday 0 = Monday … 6 = Sunday, hours UTC. */
  clock: number[][];
  discoveries: { count: number; artists: { name: string; firstPlayedOn: string }[] };
  streaks: { longest: Streak | null; current: Streak | null };
}

type Row = Record<string, unknown>;
function rowsOf(result: unknown): Row[] {
  return (result as { rows: Row[] }).rows;
}

function iso(date: Date): string {
  return date.toISOString();
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function addDays(value: string, days: number): string {
  return day(new Date(Date.parse(`${value}T00:00:00Z`) + days * DAY_MS));
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** The hidden-artist filter (keys are compared as a JSON list: one parameter whatever its size). */
function notHidden(hidden: string[]): SQL {
  if (hidden.length === 0) return sql`true`;
  return sql`${listens.artistKey} not in (select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb))`;
}

/** Chooses the plays-over-time bucket from the period's length. */
export function bucketFor(days: number): Bucket {
  if (days <= 62) return "day";
  if (days <= 731) return "week";
  return "month";
}

function bucketStart(date: string, bucket: Bucket): string {
  if (bucket === "day") return date;
  if (bucket === "month") return `${date.slice(0, 7)}-01`;
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}

function nextBucket(start: string, bucket: Bucket): string {
  if (bucket === "day") return addDays(start, 1);
  if (bucket === "week") return addDays(start, 7);
  const d = new Date(`${start}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return day(d);
}

/** Every bucket from `start` to before `end`, in order (so quiet stretches show as zero). */
export function bucketStarts(start: string, end: string, bucket: Bucket): string[] {
  const out: string[] = [];
  for (let b = bucketStart(start, bucket); b < end; b = nextBucket(b, bucket)) out.push(b);
  return out;
}

/** The maximal gap between two play days that keeps a streak going: one missed day. */
export const STREAK_GRACE_DAYS = 1;

/**
 * Streaks over sorted, distinct play days. The rule: a streak is a run of days with plays where
 * one day without plays between two days with plays does not break it (the grace day), two in a
 * row do. Its length counts every day from its first play to its last, grace days included.
 */
export function longestStreak(days: string[]): Streak | null {
  let best: Streak | null = null;
  let runStart = days[0];
  for (let i = 0; i < days.length; i++) {
    const current = days[i] as string;
    const next = days[i + 1];
    if (next !== undefined && daysBetween(current, next) <= STREAK_GRACE_DAYS + 1) continue;
    const run = {
      from: runStart as string,
      to: current,
      days: daysBetween(runStart as string, current) + 1,
    };
    if (!best || run.days > best.days) best = run;
    runStart = next;
  }
  return best;
}

/**
 * A period's longest streak, consistent with the current one: a streak still going that reaches
 * into the period counts whole (its days before the period too), so "Longest streak" is never
 * shorter than "Current streak" beside it (issue 38: 6 days next to a current 22 on "Last 7
 * days"). Other runs count their days inside the period, as `longestStreak` finds them.
 */
export function periodLongestStreak(
  longestInPeriod: Streak | null,
  current: Streak | null,
  periodStart: string,
  /** The day after the period (exclusive). */
  periodEnd: string,
): Streak | null {
  if (!current || current.to < periodStart || current.from >= periodEnd) return longestInPeriod;
  return !longestInPeriod || current.days >= longestInPeriod.days ? current : longestInPeriod;
}

/**
 * The current streak: the run that ends on today, yesterday or (grace day) the day before, from
 * play days given newest first, as they come from the backward walk.
 */
export function currentStreak(daysNewestFirst: string[], today: string): Streak | null {
  const last = daysNewestFirst[0];
  if (!last || daysBetween(last, today) > STREAK_GRACE_DAYS + 1) return null;
  let first = last;
  for (const d of daysNewestFirst.slice(1)) {
    if (daysBetween(d, first) > STREAK_GRACE_DAYS + 1) break;
    first = d;
  }
  return { from: first, to: last, days: daysBetween(first, last) + 1 };
}

/**
 * The distinct days with plays in [start, end), oldest first, by a skip scan over the
 * (user_id, listened_at) index: one index probe per day with plays instead of reading every play.
 */
async function playDays(userId: string, start: Date, end: Date, hidden: string[]) {
  const rows = rowsOf(
    await getDb().execute(sql`
      with recursive d(day) as (
        (select (${listens.listenedAt} at time zone 'UTC')::date from ${listens}
          where ${listens.userId} = ${userId} and ${listens.listenedAt} >= ${iso(start)}::timestamptz
            and ${listens.listenedAt} < ${iso(end)}::timestamptz and ${notHidden(hidden)}
          order by ${listens.listenedAt} limit 1)
        union all
        select (select (${listens.listenedAt} at time zone 'UTC')::date from ${listens}
          where ${listens.userId} = ${userId}
            and ${listens.listenedAt} >= ((d.day + 1)::timestamp at time zone 'UTC')
            and ${listens.listenedAt} < ${iso(end)}::timestamptz and ${notHidden(hidden)}
          order by ${listens.listenedAt} limit 1)
        from d where d.day is not null
      )
      select to_char(day, 'YYYY-MM-DD') as day from d where day is not null`),
  );
  return rows.map((r) => String(r.day));
}

/** Walks back from `end` over play days while the streak holds (the grace rule), newest first. */
async function recentPlayDays(userId: string, end: Date, hidden: string[]) {
  const rows = rowsOf(
    await getDb().execute(sql`
      with recursive d(day) as (
        (select (${listens.listenedAt} at time zone 'UTC')::date from ${listens}
          where ${listens.userId} = ${userId} and ${listens.listenedAt} < ${iso(end)}::timestamptz
            and ${notHidden(hidden)}
          order by ${listens.listenedAt} desc limit 1)
        union all
        select n.day from d cross join lateral (
          select (${listens.listenedAt} at time zone 'UTC')::date as day from ${listens}
          where ${listens.userId} = ${userId}
            and ${listens.listenedAt} < (d.day::timestamp at time zone 'UTC')
            and ${notHidden(hidden)}
          order by ${listens.listenedAt} desc limit 1) n
        where n.day >= d.day - ${STREAK_GRACE_DAYS + 1}::int
      )
      select to_char(day, 'YYYY-MM-DD') as day from d`),
  );
  return rows.map((r) => String(r.day));
}

/** The plays, time, buckets and streaks of a period. */
interface DayStats {
  plays: number;
  knownMs: number;
  estimated: number;
  /** Days with plays in the period. */
  days: number;
  /** Plays per bucket start (`YYYY-MM-DD`). */
  buckets: Record<string, number>;
  longest: Streak | null;
  current: Streak | null;
}

/**
 * From the days with plays, in order: the period's totals, buckets and longest streak, and the
 * current streak of every day before `tomorrow`.
 */
function dayStatsOf(
  all: VisibleDay[],
  p: { start: string; end: string; bucket: Bucket; tomorrow: string },
): DayStats {
  const period = all.filter((d) => d.day >= p.start && d.day < p.end);
  const buckets: Record<string, number> = {};
  let plays = 0;
  let knownMs = 0;
  let estimated = 0;
  for (const d of period) {
    plays += d.plays;
    knownMs += d.knownMs;
    estimated += d.estimated;
    const b = bucketStart(d.day, p.bucket);
    buckets[b] = (buckets[b] ?? 0) + d.plays;
  }
  const recent = all
    .filter((d) => d.day < p.tomorrow)
    .map((d) => d.day)
    .reverse();
  return {
    plays,
    knownMs,
    estimated,
    days: period.length,
    buckets,
    ...(() => {
      const current = currentStreak(recent, addDays(p.tomorrow, -1));
      const longest = longestStreak(period.map((d) => d.day));
      return { current, longest: periodLongestStreak(longest, current, p.start, p.end) };
    })(),
  };
}

/** When someone's first and last plays were (null when they have none), all artists shown. */
export async function getPlayRange(options: {
  userId: string;
  hiddenArtists?: string[];
}): Promise<{ first: Date; last: Date } | null> {
  const hidden = options.hiddenArtists ?? [];
  const [row] = rowsOf(
    await getDb().execute(sql`select
      (select ${listens.listenedAt} from ${listens} where ${listens.userId} = ${options.userId} and ${notHidden(hidden)} order by ${listens.listenedAt} limit 1) as first,
      (select ${listens.listenedAt} from ${listens} where ${listens.userId} = ${options.userId} and ${notHidden(hidden)} order by ${listens.listenedAt} desc limit 1) as last`),
  );
  if (!row?.first || !row.last) return null;
  return { first: new Date(row.first as string), last: new Date(row.last as string) };
}

/**
 * A person's listening over [start, end) (start null = all time), UTC: top artists, albums and
 * tracks (grouped by their normalised keys, shown with the most common original name), totals,
 * plays over time, the listening clock, discoveries (artists first ever played in the period)
 * and streaks. `hiddenArtists` are left out of everything (pass the owner's hidden artists for
 * any viewer but the owner). Cached per listen version; computed from the journey's aggregates
 * (ADR 032): up-to-date months from their rows, the rest from the plays.
 */
export async function getJourneyStats(options: {
  userId: string;
  start: Date | null;
  end: Date;
  hiddenArtists?: string[];
  now?: Date;
}): Promise<JourneyStats> {
  const today = day(options.now ?? new Date());
  return cachedByListens(
    options.userId,
    [
      "stats",
      options.start?.toISOString() ?? null,
      options.end.toISOString(),
      [...(options.hiddenArtists ?? [])].sort(),
      today,
    ],
    () => computeJourneyStats(options),
  );
}

interface StatsOptions {
  userId: string;
  start: Date | null;
  end: Date;
  hiddenArtists?: string[];
  now?: Date;
}

/**
 * getJourneyStats without the cache (the bench's "computed" numbers): from the journey's
 * aggregates (period-stats.server.ts, ADR 032) for periods on day boundaries, which is every
 * period the app asks for; from the plays themselves otherwise. Both give the same stats.
 */
export async function computeJourneyStats(options: StatsOptions): Promise<JourneyStats> {
  if ((options.start && !isDayStart(options.start)) || !isDayStart(options.end)) {
    return computeJourneyStatsFromPlays(options);
  }
  const { userId, end } = options;
  const hidden = options.hiddenArtists ?? [];
  const today = day(options.now ?? new Date());
  const endDay = day(end);
  const askedStart = options.start ? day(options.start) : day(LONG_AGO);
  const plan = await planPeriod({ userId, startDay: askedStart, endDay, hidden });
  const { days: allDays, clock } = await dayTotals({ plan, startDay: askedStart, endDay });
  // All time starts at the first play shown.
  let startDay = askedStart;
  if (!options.start) {
    startDay = allDays[0]?.day ?? day(new Date(end.getTime() - DAY_MS));
  }
  const bucket = bucketFor(daysBetween(startDay, endDay));
  const days = dayStatsOf(allDays, {
    start: startDay,
    end: endDay,
    bucket,
    tomorrow: addDays(today, 1),
  });
  const keys = await periodKeyStats({
    plan:
      days.plays <= FEW_PLAYS && !plan.wholeHistory ? fromPlaysOnly(plan, startDay, endDay) : plan,
    startDay,
    endDay,
    limit: TOP_LIMIT,
  });
  return {
    start: options.start ? startDay : days.days > 0 ? startDay : null,
    end: endDay,
    totals: {
      plays: Number(days.plays),
      listeningMs: Number(days.knownMs) + Number(days.estimated) * ESTIMATED_PLAY_MS,
      estimatedPlays: Number(days.estimated),
      artists: keys.artistCount,
    },
    topArtists: keys.artists,
    topAlbums: keys.albums,
    topTracks: keys.tracks,
    overTime: {
      bucket,
      points: bucketStarts(startDay, endDay, bucket).map((b) => ({
        start: b,
        plays: Number(days.buckets[b] ?? 0),
      })),
    },
    clock,
    discoveries: keys.discoveries,
    streaks: { longest: days.longest, current: days.current },
  };
}

/**
 * The same stats aggregated from every play of the period (seven statements and two walks over
 * the (user_id, listened_at) index): for periods that do not start and end at midnight UTC, and
 * the tests' reference for the aggregates (ADR 032).
 */
export async function computeJourneyStatsFromPlays(options: {
  userId: string;
  start: Date | null;
  end: Date;
  hiddenArtists?: string[];
  now?: Date;
}): Promise<JourneyStats> {
  const { userId, end } = options;
  const hidden = options.hiddenArtists ?? [];
  const now = options.now ?? new Date();
  const db = getDb();
  let start = options.start;
  if (!start) {
    const range = await getPlayRange({ userId, hiddenArtists: hidden });
    start = range
      ? new Date(Math.floor(range.first.getTime() / DAY_MS) * DAY_MS)
      : new Date(end.getTime() - DAY_MS);
  }
  const startDay = day(start);
  const endDay = day(end);
  const bucket = bucketFor(daysBetween(startDay, endDay));
  const inPeriod = sql`${listens.userId} = ${userId}
    and ${listens.listenedAt} >= ${iso(start)}::timestamptz
    and ${listens.listenedAt} < ${iso(end)}::timestamptz
    and ${notHidden(hidden)}`;
  const truncUnit = sql.raw(`'${bucket}'`);

  const [totalsRows, artistRows, albumRows, trackRows, timeRows, clockRows, discoveryRows] =
    await Promise.all([
      db.execute(sql`select count(*)::int as plays,
          coalesce(sum(coalesce(${listens.durationMs}, ${ESTIMATED_PLAY_MS})), 0)::bigint as ms,
          count(*) filter (where ${listens.durationMs} is null)::int as estimated,
          count(distinct ${listens.artistKey})::int as artists
        from ${listens} where ${inPeriod}`),
      db.execute(sql`select ${listens.artistKey} as key,
          mode() within group (order by ${listens.artistName}) as name, count(*)::int as plays
        from ${listens} where ${inPeriod}
        group by ${listens.artistKey} order by plays desc, key limit ${TOP_LIMIT}`),
      db.execute(sql`select ${listens.artistKey} || '/' || ${listens.releaseKey} as key,
          mode() within group (order by ${listens.releaseName}) as name,
          mode() within group (order by ${listens.artistName}) as artist_name, count(*)::int as plays
        from ${listens} where ${inPeriod} and ${listens.releaseKey} is not null
        group by ${listens.artistKey}, ${listens.releaseKey} order by plays desc, key limit ${TOP_LIMIT}`),
      db.execute(sql`select ${listens.artistKey} || '/' || ${listens.trackKey} as key,
          mode() within group (order by ${listens.trackName}) as name,
          mode() within group (order by ${listens.artistName}) as artist_name, count(*)::int as plays
        from ${listens} where ${inPeriod}
        group by ${listens.artistKey}, ${listens.trackKey} order by plays desc, key limit ${TOP_LIMIT}`),
      db.execute(sql`select to_char(date_trunc(${truncUnit}, ${listens.listenedAt} at time zone 'UTC'), 'YYYY-MM-DD') as start,
          count(*)::int as plays
        from ${listens} where ${inPeriod} group by 1`),
      db.execute(sql`select (extract(isodow from ${listens.listenedAt} at time zone 'UTC')::int - 1) as weekday,
          extract(hour from ${listens.listenedAt} at time zone 'UTC')::int as hour, count(*)::int as plays
        from ${listens} where ${inPeriod} group by 1, 2`),
      // An artist is a discovery when no play of theirs comes before the period: one probe of
      // the (user_id, artist_key, listened_at) index per artist played in it.
      db.execute(sql`with played as (
          select ${listens.artistKey} as key, min(${listens.listenedAt}) as first_at,
            mode() within group (order by ${listens.artistName}) as name
          from ${listens} where ${inPeriod} group by ${listens.artistKey}
        )
        select name, to_char(first_at at time zone 'UTC', 'YYYY-MM-DD') as first_on
        from played p
        where not exists (select 1 from ${listens} l where l.user_id = ${userId}
          and l.artist_key = p.key and l.listened_at < ${iso(start)}::timestamptz)
        order by first_at desc, name`),
    ]);

  const days = await playDays(userId, start, end, hidden);
  const today = day(now);
  const recent = await recentPlayDays(
    userId,
    new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS),
    hidden,
  );

  const totals = rowsOf(totalsRows)[0] ?? {};
  const byBucket = new Map(rowsOf(timeRows).map((r) => [String(r.start), Number(r.plays)]));
  const clock = Array.from({ length: 7 }, () => Array.from({ length: 24 }, () => 0));
  for (const r of rowsOf(clockRows)) {
    const row = clock[Number(r.weekday)];
    if (row) row[Number(r.hour)] = Number(r.plays);
  }
  const discoveries = rowsOf(discoveryRows);
  const ranked = (r: Row) => ({ key: String(r.key), name: String(r.name), plays: Number(r.plays) });
  return {
    start: options.start ? startDay : days.length > 0 ? startDay : null,
    end: endDay,
    totals: {
      plays: Number(totals.plays ?? 0),
      listeningMs: Number(totals.ms ?? 0),
      estimatedPlays: Number(totals.estimated ?? 0),
      artists: Number(totals.artists ?? 0),
    },
    topArtists: rowsOf(artistRows).map(ranked),
    topAlbums: rowsOf(albumRows).map((r) => ({ ...ranked(r), artistName: String(r.artist_name) })),
    topTracks: rowsOf(trackRows).map((r) => ({ ...ranked(r), artistName: String(r.artist_name) })),
    overTime: {
      bucket,
      points: bucketStarts(startDay, endDay, bucket).map((b) => ({
        start: b,
        plays: byBucket.get(b) ?? 0,
      })),
    },
    clock,
    discoveries: {
      count: discoveries.length,
      artists: discoveries
        .slice(0, TOP_LIMIT)
        .map((r) => ({ name: String(r.name), firstPlayedOn: String(r.first_on) })),
    },
    streaks: (() => {
      const current = currentStreak(recent, today);
      return {
        current,
        longest: periodLongestStreak(longestStreak(days), current, startDay, endDay),
      };
    })(),
  };
}
