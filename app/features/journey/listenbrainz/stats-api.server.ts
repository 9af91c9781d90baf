import { cachedByListens } from "../cache.server";
import {
  dayTotals,
  type KindName,
  LONG_AGO_DAY,
  periodArtistCount,
  periodKeyCount,
  periodTopList,
  planPeriod,
} from "../period-stats.server";
import { getPlayRange } from "../stats.server";

/** ListenBrainz's `StatisticsRange`. */
export const STATS_RANGES = [
  "this_week",
  "this_month",
  "this_year",
  "week",
  "month",
  "quarter",
  "half_yearly",
  "year",
  "all_time",
] as const;
export type StatsRange = (typeof STATS_RANGES)[number];

export function isStatsRange(value: string): value is StatsRange {
  return (STATS_RANGES as readonly string[]).includes(value);
}

const DAY_MS = 86_400_000;
/** ListenBrainz computes at most this many entries of a top list. */
export const MAX_STATS_ENTRIES = 1000;

function utc(year: number, month: number, day = 1): Date {
  return new Date(Date.UTC(year, month, day));
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Monday 00:00 UTC of the week of `date`. */
function weekStart(date: Date): Date {
  const midnight = utc(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  const weekday = (midnight.getUTCDay() + 6) % 7;
  return new Date(midnight.getTime() - weekday * DAY_MS);
}

type Granularity = "day" | "week" | "month" | "year";

interface RangeWindow {
  /** [start, end) of the range, whole days UTC; start null for all time. */
  start: Date | null;
  end: Date;
  /** Listening activity shows this range and the one before it, in these steps. */
  previousStart: Date | null;
  granularity: Granularity;
}

/**
 * A range as ListenBrainz's statistics read it, UTC: `week`, `month`, `quarter`, `half_yearly`
 * and `year` are the last whole one; `this_*` the current one so far (to the end of today);
 * `all_time` everything.
 */
export function rangeWindow(range: StatsRange, now: Date = new Date()): RangeWindow {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const tomorrow = utc(y, m, now.getUTCDate() + 1);
  switch (range) {
    case "this_week": {
      const start = weekStart(now);
      return {
        start,
        end: tomorrow,
        previousStart: new Date(start.getTime() - 7 * DAY_MS),
        granularity: "day",
      };
    }
    case "week": {
      const end = weekStart(now);
      const start = new Date(end.getTime() - 7 * DAY_MS);
      return {
        start,
        end,
        previousStart: new Date(start.getTime() - 7 * DAY_MS),
        granularity: "day",
      };
    }
    case "this_month":
      return { start: utc(y, m), end: tomorrow, previousStart: utc(y, m - 1), granularity: "day" };
    case "month":
      return {
        start: utc(y, m - 1),
        end: utc(y, m),
        previousStart: utc(y, m - 2),
        granularity: "day",
      };
    case "quarter": {
      const q = Math.floor(m / 3) * 3;
      return {
        start: utc(y, q - 3),
        end: utc(y, q),
        previousStart: utc(y, q - 6),
        granularity: "week",
      };
    }
    case "half_yearly": {
      const h = m < 6 ? 0 : 6;
      return {
        start: utc(y, h - 6),
        end: utc(y, h),
        previousStart: utc(y, h - 12),
        granularity: "month",
      };
    }
    case "this_year":
      return {
        start: utc(y, 0),
        end: tomorrow,
        previousStart: utc(y - 1, 0),
        granularity: "month",
      };
    case "year":
      return {
        start: utc(y - 1, 0),
        end: utc(y, 0),
        previousStart: utc(y - 2, 0),
        granularity: "month",
      };
    case "all_time":
      return { start: null, end: tomorrow, previousStart: null, granularity: "year" };
  }
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

interface Owner {
  userId: string;
  username: string;
  hidden: string[];
}

/** The period's plan (which months come from the aggregates) for the reader's hidden artists. */
function planFor(owner: Owner, start: Date | null, end: Date) {
  return planPeriod({
    userId: owner.userId,
    startDay: start ? dayOf(start) : LONG_AGO_DAY,
    endDay: dayOf(end),
    hidden: owner.hidden,
  });
}

/** Midnight (UTC) of the day of the person's first play the reader may see. */
async function firstPlayDay(owner: Owner): Promise<Date | null> {
  const range = await getPlayRange({ userId: owner.userId, hiddenArtists: owner.hidden });
  return range ? new Date(Math.floor(range.first.getTime() / DAY_MS) * DAY_MS) : null;
}

const ENTITY_KIND: Record<"artists" | "releases" | "recordings", KindName> = {
  artists: "artist",
  releases: "release",
  recordings: "track",
};

/**
 * ListenBrainz's `/1/stats/user/{user}/artists|releases|recordings`, from the journey's own
 * numbers (its aggregates, ADR 032); null when the range has no plays (ListenBrainz's 204).
 */
async function computeEntityStats(options: {
  owner: Owner;
  entity: "artists" | "releases" | "recordings";
  range: StatsRange;
  offset: number;
  count: number;
  now?: Date;
}): Promise<Record<string, unknown> | null> {
  const { owner, entity, range } = options;
  const window = rangeWindow(range, options.now);
  const plan = await planFor(owner, window.start, window.end);
  const kind = ENTITY_KIND[entity];
  // ListenBrainz keeps at most its top 1000 of each list.
  const wanted = Math.min(
    Math.min(options.count, MAX_STATS_ENTRIES) + options.offset,
    MAX_STATS_ENTRIES,
  );
  const top = await periodTopList({ plan, kind, limit: Math.max(wanted, 1) });
  if (top.length === 0) return null;
  const total =
    kind === "artist"
      ? await periodArtistCount(plan)
      : top.length < wanted
        ? top.length
        : await periodKeyCount(plan, kind, MAX_STATS_ENTRIES);
  const page = top.slice(options.offset, wanted);
  const items = page.map((item) => {
    if (kind === "artist") {
      return {
        artist_mbid: null,
        artist_mbids: [],
        artist_name: item.name,
        listen_count: item.plays,
      };
    }
    if (kind === "release") {
      return {
        artist_mbids: [],
        artist_name: item.artistName,
        listen_count: item.plays,
        release_mbid: null,
        release_name: item.name,
      };
    }
    return {
      artist_mbids: [],
      artist_name: item.artistName,
      listen_count: item.plays,
      recording_mbid: null,
      release_mbid: null,
      track_name: item.name,
    };
  });
  const countKey = {
    artists: "total_artist_count",
    releases: "total_release_count",
    recordings: "total_recording_count",
  }[entity];
  const from = window.start ?? (await firstPlayDay(owner)) ?? window.end;
  return {
    user_id: owner.username,
    [entity]: items,
    count: items.length,
    [countKey]: total,
    offset: options.offset,
    range,
    from_ts: seconds(from),
    to_ts: seconds(window.end),
    last_updated: seconds(options.now ?? new Date()),
  };
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

function stepAfter(date: Date, granularity: Granularity): Date {
  if (granularity === "day") return new Date(date.getTime() + DAY_MS);
  if (granularity === "week") return new Date(date.getTime() + 7 * DAY_MS);
  if (granularity === "month") return utc(date.getUTCFullYear(), date.getUTCMonth() + 1);
  return utc(date.getUTCFullYear() + 1, 0);
}

function stepLabel(date: Date, granularity: Granularity): string {
  const month = MONTHS[date.getUTCMonth()];
  if (granularity === "day") {
    const weekday = WEEKDAYS[(date.getUTCDay() + 6) % 7];
    return `${weekday} ${date.getUTCDate()} ${month} ${date.getUTCFullYear()}`;
  }
  if (granularity === "week")
    return `Week of ${date.getUTCDate()} ${month} ${date.getUTCFullYear()}`;
  if (granularity === "month") return `${month} ${date.getUTCFullYear()}`;
  return String(date.getUTCFullYear());
}

/**
 * ListenBrainz's `listening-activity`: plays per step over the range and the one before it
 * (days for weeks and months, weeks for a quarter, months for half years and years, years with
 * plays for all time); null without plays.
 */
async function computeListeningActivity(options: {
  owner: Owner;
  range: StatsRange;
  now?: Date;
}): Promise<Record<string, unknown> | null> {
  const window = rangeWindow(options.range, options.now);
  const plan = await planFor(options.owner, window.previousStart, window.end);
  const { days } = await dayTotals({
    plan,
    startDay: window.previousStart ? dayOf(window.previousStart) : LONG_AGO_DAY,
    endDay: dayOf(window.end),
  });
  const firstDay = days[0]?.day;
  if (!firstDay) return null;
  const from = window.previousStart ?? utc(Number(firstDay.slice(0, 4)), 0);
  const steps: { from_ts: number; to_ts: number; time_range: string; listen_count: number }[] = [];
  let stepIndex = 0;
  const sorted = days.filter((d) => d.day >= dayOf(from) && d.day < dayOf(window.end));
  for (let step = from; step < window.end; step = stepAfter(step, window.granularity)) {
    const next = stepAfter(step, window.granularity);
    let plays = 0;
    while (stepIndex < sorted.length && (sorted[stepIndex]?.day ?? "") < dayOf(next)) {
      plays += sorted[stepIndex]?.plays ?? 0;
      stepIndex++;
    }
    if (window.granularity === "year" && plays === 0) continue;
    steps.push({
      from_ts: seconds(step),
      to_ts: seconds(next) - 1,
      time_range: stepLabel(step, window.granularity),
      listen_count: plays,
    });
  }
  if (steps.every((s) => s.listen_count === 0)) return null;
  return {
    user_id: options.owner.username,
    listening_activity: steps,
    from_ts: seconds(from),
    to_ts: seconds(window.end),
    range: options.range,
    last_updated: seconds(options.now ?? new Date()),
  };
}

/**
 * ListenBrainz's `daily-activity`: plays per weekday (Monday first) and hour (UTC) over the
 * range; null without plays.
 */
async function computeDailyActivity(options: {
  owner: Owner;
  range: StatsRange;
  now?: Date;
}): Promise<Record<string, unknown> | null> {
  const window = rangeWindow(options.range, options.now);
  const startDay = window.start ? dayOf(window.start) : LONG_AGO_DAY;
  const plan = await planFor(options.owner, window.start, window.end);
  const { days, clock } = await dayTotals({ plan, startDay, endDay: dayOf(window.end) });
  if (clock.every((hours) => hours.every((n) => n === 0))) return null;
  const daily: Record<string, { hour: number; listen_count: number }[]> = {};
  WEEKDAYS.forEach((name, w) => {
    daily[name] = Array.from({ length: 24 }, (_, hour) => ({
      hour,
      listen_count: clock[w]?.[hour] ?? 0,
    }));
  });
  const from = window.start ?? new Date(`${days[0]?.day ?? dayOf(window.end)}T00:00:00Z`);
  return {
    user_id: options.owner.username,
    daily_activity: daily,
    from_ts: seconds(from),
    to_ts: seconds(window.end),
    range: options.range,
    last_updated: seconds(options.now ?? new Date()),
  };
}

/**
 * A stats answer computed once per listen version (the journey's cache, cache.server.ts), as
 * ListenBrainz serves precomputed statistics: `last_updated` is when it was computed. The key
 * holds everything else it depends on: the endpoint, its parameters, the hidden artists and the
 * day (the ranges end today).
 */
async function cached(
  owner: Owner,
  parts: unknown[],
  compute: () => Promise<Record<string, unknown> | null>,
  now: Date | undefined,
): Promise<Record<string, unknown> | null> {
  const day = dayOf(now ?? new Date());
  const { stats } = await cachedByListens(
    owner.userId,
    ["listenbrainz-stats", ...parts, owner.username, [...owner.hidden].sort(), day],
    async () => ({ stats: await compute() }),
  );
  return stats;
}

/**
 * ListenBrainz's `/1/stats/user/{user}/artists|releases|recordings`, from the journey's own
 * numbers (its aggregates, ADR 032); null when the range has no plays (ListenBrainz's 204).
 */
export function entityStats(options: Parameters<typeof computeEntityStats>[0]) {
  const { owner, entity, range, offset, count, now } = options;
  return cached(owner, [entity, range, offset, count], () => computeEntityStats(options), now);
}

/** ListenBrainz's `listening-activity` (see computeListeningActivity); null without plays. */
export function listeningActivity(options: Parameters<typeof computeListeningActivity>[0]) {
  return cached(
    options.owner,
    ["listening-activity", options.range],
    () => computeListeningActivity(options),
    options.now,
  );
}

/** ListenBrainz's `daily-activity` (see computeDailyActivity); null without plays. */
export function dailyActivity(options: Parameters<typeof computeDailyActivity>[0]) {
  return cached(
    options.owner,
    ["daily-activity", options.range],
    () => computeDailyActivity(options),
    options.now,
  );
}
