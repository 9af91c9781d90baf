import { type SQL, sql } from "drizzle-orm";
import { type DbOrTx, getDb, rowsOf } from "~/db/client.server";
import { dateArray, dayStart, dirtyMonths, nextMonth, textArray } from "./aggregates.server";

/*
 * A period's stats from the journey's aggregates (ADR 032): whole months that are up to date
 * come from `journey_months` and `journey_days`; the days at the edges of the period and any
 * month whose plays changed since it was aggregated come from the plays themselves. The result
 * is always exactly what aggregating the period's plays gives (`computeJourneyStatsFromPlays`,
 * the tests' reference); the aggregates only decide how many rows that costs.
 */

export interface RankedKey {
  key: string;
  name: string;
  plays: number;
}
export interface RankedItemKey extends RankedKey {
  artistName: string;
}

/** A day's plays of the artists shown (hidden ones left out). */
export interface VisibleDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  plays: number;
  knownMs: number;
  /** Plays without a length. */
  estimated: number;
}

export interface PeriodKeyStats {
  artists: RankedKey[];
  albums: RankedItemKey[];
  tracks: RankedItemKey[];
  /** Artists with plays in the period. */
  artistCount: number;
  /** Artists first ever played in the period: how many, and the `limit` latest. */
  discoveries: { count: number; artists: { name: string; firstPlayedOn: string }[] };
}

/** How a period splits: whole months read from aggregates, the rest read from the plays. */
export interface PeriodPlan {
  userId: string;
  hidden: string[];
  /** Whole months inside the period: [from, to), first days of months. */
  months: { from: string; to: string } | null;
  /** Months whose aggregates are behind their plays (read from the plays). */
  dirty: string[];
  /** Day ranges [from, to) read from the plays for the top lists: edges and dirty months. */
  raw: { from: string; to: string }[];
  /** When the visible day totals do not match `hidden` (the setting just changed). */
  daysFromPlays: boolean;
}

function monthOf(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/** Adjacent or overlapping ranges joined, in order. */
function mergeRanges(ranges: { from: string; to: string }[]): { from: string; to: string }[] {
  const sorted = ranges.filter((r) => r.from < r.to).sort((a, b) => (a.from < b.from ? -1 : 1));
  const out: { from: string; to: string }[] = [];
  for (const range of sorted) {
    const last = out.at(-1);
    if (last && range.from <= last.to) {
      if (range.to > last.to) last.to = range.to;
    } else out.push({ ...range });
  }
  return out;
}

/**
 * Splits [startDay, endDay) (days, UTC) for `hidden`: which whole months come from the
 * aggregates, and which days from the plays. One statement (the person's months that are behind).
 */
export async function planPeriod(options: {
  userId: string;
  startDay: string;
  endDay: string;
  hidden: string[];
}): Promise<PeriodPlan> {
  const { userId, startDay, endDay } = options;
  const hidden = [...options.hidden].sort();
  const db = getDb();
  const [state] = rowsOf<{ hidden: string[] }>(
    await db.execute(sql`select hidden from journey_aggregate_state where user_id = ${userId}`),
  );
  const known = [...(state?.hidden ?? [])].sort();
  const daysFromPlays = hidden.length > 0 && known.join("\u0000") !== hidden.join("\u0000");
  const dirty = (await dirtyMonths(db, userId)).map((d) => d.month);
  const firstWhole = startDay.endsWith("-01") ? startDay : nextMonth(monthOf(startDay));
  const lastWhole = monthOf(endDay);
  const months = firstWhole < lastWhole ? { from: firstWhole, to: lastWhole } : null;
  const edges = months
    ? [
        { from: startDay, to: firstWhole },
        { from: lastWhole, to: endDay },
      ]
    : [{ from: startDay, to: endDay }];
  const dirtyInside = months
    ? dirty
        .filter((m) => m >= months.from && m < months.to)
        .map((m) => ({ from: m, to: nextMonth(m) }))
    : [];
  return {
    userId,
    hidden,
    months,
    dirty,
    raw: mergeRanges([...edges, ...dirtyInside]),
    daysFromPlays,
  };
}

/** `listens` rows inside any of the ranges (days, UTC). */
function inRanges(ranges: { from: string; to: string }[]): SQL {
  if (ranges.length === 0) return sql`false`;
  return sql.join(
    ranges.map(
      (r) => sql`(listened_at >= ${dayStart(r.from)} and listened_at < ${dayStart(r.to)})`,
    ),
    sql` or `,
  );
}

const notHidden = (hidden: string[]) =>
  hidden.length === 0 ? sql`true` : sql`not (artist_key = any(${textArray(hidden)}))`;

/** `journey_months` rows of the plan's clean whole months. */
function cleanMonths(plan: PeriodPlan, kind: number): SQL {
  if (!plan.months) return sql`false`;
  return sql`user_id = ${plan.userId} and kind = ${kind}
    and month >= ${plan.months.from}::date and month < ${plan.months.to}::date
    and not (month = any(${dateArray(plan.dirty)})) and ${notHidden(plan.hidden)}`;
}

const KIND = {
  artist: {
    kind: 0,
    key: sql`''`,
    name: sql`artist_name`,
    where: sql`true`,
  },
  release: {
    kind: 1,
    key: sql`release_key`,
    name: sql`release_name`,
    where: sql`release_key is not null`,
  },
  track: { kind: 2, key: sql`track_key`, name: sql`track_name`, where: sql`true` },
} as const;

type KindName = keyof typeof KIND;

/**
 * The `limit` most played keys of a kind in the period (plays, then key in code-point order),
 * each with its most written spelling and, for releases and tracks, its artist's.
 */
async function topKeys(
  db: DbOrTx,
  plan: PeriodPlan,
  kindName: KindName,
  limit: number,
): Promise<{ rows: (RankedItemKey & { artistKey: string })[]; distinct: number }> {
  const k = KIND[kindName];
  const rawWhere = sql`user_id = ${plan.userId} and (${inRanges(plan.raw)})
    and ${notHidden(plan.hidden)} and ${k.where}`;
  const sortKey =
    kindName === "artist"
      ? sql`artist_key collate "C"`
      : sql`(artist_key || '/' || key) collate "C"`;
  const rows = rowsOf<{
    artist_key: string;
    key: string;
    plays: number;
    name: string | null;
    artist_name: string | null;
    distinct_keys: number;
  }>(
    await db.execute(sql`
      with units as (
        select artist_key, key, plays from journey_months where ${cleanMonths(plan, k.kind)}
        union all
        select artist_key, ${k.key} as key, count(*)::int as plays from listens
        where ${rawWhere} group by 1, 2
      ),
      grouped as (
        select artist_key, key, sum(plays)::int as plays from units group by 1, 2
      ),
      ranked as (
        select artist_key, key, plays from grouped
        order by plays desc, ${sortKey} limit ${limit}
      ),
      spellings as (
        select m.artist_key, m.key, e.key as name, e.value::int as n, false as of_artist
        from journey_months m cross join lateral jsonb_each_text(m.names) e
        where ${cleanMonths(plan, k.kind)} and (m.artist_key, m.key) in (select artist_key, key from ranked)
        union all
        select m.artist_key, m.key, e.key, e.value::int, true
        from journey_months m cross join lateral jsonb_each_text(coalesce(m.artist_names, '{}'::jsonb)) e
        where ${kindName === "artist" ? sql`false` : cleanMonths(plan, k.kind)}
          and (m.artist_key, m.key) in (select artist_key, key from ranked)
        union all
        select artist_key, ${k.key}, ${k.name}, count(*)::int, false from listens
        where ${rawWhere} and ${k.name} is not null
          and (artist_key, ${k.key}) in (select artist_key, key from ranked)
        group by 1, 2, 3
        union all
        select artist_key, ${k.key}, artist_name, count(*)::int, true from listens
        where ${kindName === "artist" ? sql`false` : rawWhere}
          and (artist_key, ${k.key}) in (select artist_key, key from ranked)
        group by 1, 2, 3
      ),
      modes as (
        select distinct on (artist_key, key, of_artist) artist_key, key, of_artist, name
        from (select artist_key, key, of_artist, name, sum(n) as n from spellings group by 1, 2, 3, 4) s
        order by artist_key, key, of_artist, n desc, name collate "C"
      )
      select r.artist_key, r.key, r.plays,
        (select name from modes m where m.artist_key = r.artist_key and m.key = r.key and not m.of_artist) as name,
        (select name from modes m where m.artist_key = r.artist_key and m.key = r.key and m.of_artist) as artist_name,
        (select count(*)::int from grouped) as distinct_keys
      from ranked r
      order by r.plays desc, ${kindName === "artist" ? sql`r.artist_key collate "C"` : sql`(r.artist_key || '/' || r.key) collate "C"`}`),
  );
  let distinct = Number(rows[0]?.distinct_keys ?? 0);
  if (rows.length === 0 && kindName === "artist") {
    const [count] = rowsOf<{ n: number }>(
      await db.execute(sql`with units as (
          select artist_key from journey_months where ${cleanMonths(plan, 0)}
          union select artist_key from listens where ${rawWhere})
        select count(distinct artist_key)::int as n from units`),
    );
    distinct = Number(count?.n ?? 0);
  }
  return {
    rows: rows.map((r) => ({
      key: kindName === "artist" ? r.artist_key : `${r.artist_key}/${r.key}`,
      artistKey: r.artist_key,
      name: r.name ?? "",
      artistName: r.artist_name ?? r.name ?? "",
      plays: Number(r.plays),
    })),
    distinct,
  };
}

/**
 * Artists first ever played in [startDay, endDay): how many, and the `limit` latest (ties of
 * the cut included, then ordered by time and name), each with its most written spelling in the
 * period.
 */
async function discoveriesOf(
  db: DbOrTx,
  plan: PeriodPlan,
  startDay: string,
  limit: number,
): Promise<PeriodKeyStats["discoveries"]> {
  const dirtyRanges = plan.dirty.map((m) => ({ from: m, to: nextMonth(m) }));
  const rawWhere = sql`user_id = ${plan.userId} and (${inRanges(plan.raw)}) and ${notHidden(plan.hidden)}`;
  const rows = rowsOf<{ name: string; first_on: string; count: number }>(
    await db.execute(sql`
      with played as (
        select distinct artist_key from journey_months where ${cleanMonths(plan, 0)}
        union
        select distinct artist_key from listens where ${rawWhere}
      ),
      firsts as (
        select artist_key, min(first_at) as first_at from (
          select artist_key, first_at from journey_months
          where user_id = ${plan.userId} and kind = 0
            and not (month = any(${dateArray(plan.dirty)}))
            and artist_key in (select artist_key from played)
          union all
          select artist_key, min(listened_at) from listens
          where user_id = ${plan.userId} and (${inRanges(dirtyRanges)})
            and artist_key in (select artist_key from played)
          group by 1
        ) f group by 1
      ),
      found as (
        select artist_key, first_at from firsts where first_at >= ${dayStart(startDay)}
      ),
      cut as (
        select first_at from found order by first_at desc offset ${limit - 1} limit 1
      ),
      shown as (
        select artist_key, first_at from found
        where first_at >= coalesce((select first_at from cut), '-infinity'::timestamptz)
      ),
      spellings as (
        select m.artist_key, e.key as name, e.value::int as n
        from journey_months m cross join lateral jsonb_each_text(m.names) e
        where ${cleanMonths(plan, 0)} and m.artist_key in (select artist_key from shown)
        union all
        select artist_key, artist_name, count(*)::int from listens
        where ${rawWhere} and artist_key in (select artist_key from shown)
        group by 1, 2
      ),
      modes as (
        select distinct on (artist_key) artist_key, name
        from (select artist_key, name, sum(n) as n from spellings group by 1, 2) s
        order by artist_key, n desc, name collate "C"
      )
      select m.name, to_char(s.first_at at time zone 'UTC', 'YYYY-MM-DD') as first_on,
        (select count(*)::int from found) as count
      from shown s join modes m using (artist_key)
      order by s.first_at desc, m.name collate "C"
      limit ${limit}`),
  );
  let count = Number(rows[0]?.count ?? 0);
  if (rows.length === 0) count = 0;
  return {
    count,
    artists: rows.map((r) => ({ name: String(r.name), firstPlayedOn: String(r.first_on) })),
  };
}

/** The period's top lists, artist count and discoveries (see the top of this file). */
export async function periodKeyStats(options: {
  plan: PeriodPlan;
  startDay: string;
  limit: number;
  artistsOnly?: boolean;
}): Promise<PeriodKeyStats> {
  const { plan, limit } = options;
  const db = getDb();
  const artists = await topKeys(db, plan, "artist", limit);
  if (options.artistsOnly) {
    return {
      artists: artists.rows.map(({ key, name, plays }) => ({ key, name, plays })),
      albums: [],
      tracks: [],
      artistCount: artists.distinct,
      discoveries: { count: 0, artists: [] },
    };
  }
  const albums = await topKeys(db, plan, "release", limit);
  const tracks = await topKeys(db, plan, "track", limit);
  const discoveries = await discoveriesOf(db, plan, options.startDay, limit);
  const item = ({ key, name, artistName, plays }: RankedItemKey) => ({
    key,
    name,
    artistName,
    plays,
  });
  return {
    artists: artists.rows.map(({ key, name, plays }) => ({ key, name, plays })),
    albums: albums.rows.map(item),
    tracks: tracks.rows.map(item),
    artistCount: artists.distinct,
    discoveries,
  };
}

export interface DayTotals {
  /** Every day with plays of an artist shown, oldest first (all time: the streaks need it). */
  days: VisibleDay[];
  /** Plays per weekday (0 = Monday) and hour (UTC) over [startDay, endDay). */
  clock: number[][];
}

/**
 * Every day with plays shown (all time) and the period's clock: up-to-date months from
 * `journey_days` (their visible columns when artists are hidden), the others from the plays.
 */
export async function dayTotals(options: {
  plan: PeriodPlan;
  startDay: string;
  endDay: string;
}): Promise<DayTotals> {
  const { plan, startDay, endDay } = options;
  const fromPlays = plan.daysFromPlays;
  const hidden = plan.hidden.length > 0;
  const dirtyRanges = fromPlays
    ? [{ from: "1000-01-01", to: "9999-01-01" }]
    : plan.dirty.map((m) => ({ from: m, to: nextMonth(m) }));
  const col = (plain: string, visible: string) => sql.raw(hidden ? visible : plain);
  const [row] = rowsOf<{ days: [string, number, number, number][] | null; clock: number[] | null }>(
    await getDb().execute(sql`
      with days as (
        select day, ${col("plays", "visible_plays")} as plays,
          ${col("known_ms", "visible_known_ms")} as known_ms,
          ${col("estimated", "visible_estimated")} as estimated,
          ${col("hours", "visible_hours")} as hours
        from journey_days
        where user_id = ${plan.userId} and ${fromPlays ? sql`false` : sql`true`}
          and not (date_trunc('month', day)::date = any(${dateArray(plan.dirty)}))
        union all
        select d.day, sum(d.n)::int, sum(d.ms)::bigint, sum(d.est)::int,
          array(select coalesce(sum(q.n), 0)::int from generate_series(0, 23) as g(h)
            left join (
              select (listened_at at time zone 'UTC')::date as day,
                extract(hour from listened_at at time zone 'UTC')::int as hour, count(*)::int as n
              from listens where user_id = ${plan.userId} and (${inRanges(dirtyRanges)})
                and ${notHidden(plan.hidden)}
                and (listened_at at time zone 'UTC')::date = d.day
              group by 1, 2
            ) q on q.hour = g.h group by g.h order by g.h)
        from (
          select (listened_at at time zone 'UTC')::date as day, count(*)::int as n,
            coalesce(sum(duration_ms), 0)::bigint as ms,
            (count(*) filter (where duration_ms is null))::int as est
          from listens where user_id = ${plan.userId} and (${inRanges(dirtyRanges)})
            and ${notHidden(plan.hidden)}
          group by 1
        ) d group by d.day
      ),
      shown as (select * from days where plays > 0)
      select
        (select json_agg(json_build_array(to_char(day, 'YYYY-MM-DD'), plays, known_ms, estimated)
           order by day) from shown) as days,
        (select array_agg(coalesce(c.n, 0)::int order by w, h) from generate_series(0, 6) as w(w)
           cross join generate_series(1, 24) as hh(h)
           left join (
             select (extract(isodow from day)::int - 1) as w, u.h, sum(u.x)::int as n
             from shown cross join lateral unnest(hours) with ordinality as u(x, h)
             where day >= ${startDay}::date and day < ${endDay}::date
             group by 1, 2
           ) c using (w, h)) as clock`),
  );
  const flat = row?.clock ?? [];
  return {
    days: (row?.days ?? []).map(([day, plays, knownMs, estimated]) => ({
      day,
      plays: Number(plays),
      knownMs: Number(knownMs),
      estimated: Number(estimated),
    })),
    clock: Array.from({ length: 7 }, (_, w) =>
      Array.from({ length: 24 }, (_, h) => Number(flat[w * 24 + h] ?? 0)),
    ),
  };
}

/** Plays per calendar month (`YYYY-MM`) and artist key, hidden artists left out (chapters). */
export async function monthlyArtistPlays(options: {
  userId: string;
  hidden: string[];
}): Promise<{ month: string; key: string; plays: number }[]> {
  const plan = await planPeriod({
    userId: options.userId,
    startDay: "1000-01-01",
    endDay: "9999-01-01",
    hidden: options.hidden,
  });
  const dirtyRanges = plan.dirty.map((m) => ({ from: m, to: nextMonth(m) }));
  const rows = rowsOf<{ month: string; key: string; plays: number }>(
    await getDb().execute(sql`
      select to_char(month, 'YYYY-MM') as month, artist_key as key, plays from journey_months
      where user_id = ${options.userId} and kind = 0
        and not (month = any(${dateArray(plan.dirty)})) and ${notHidden(plan.hidden)}
      union all
      select to_char(date_trunc('month', listened_at at time zone 'UTC'), 'YYYY-MM'), artist_key,
        count(*)::int
      from listens where user_id = ${options.userId} and (${inRanges(dirtyRanges)})
        and ${notHidden(plan.hidden)}
      group by 1, 2`),
  );
  return rows.map((r) => ({ month: r.month, key: r.key, plays: Number(r.plays) }));
}

/**
 * For each artist key, the name it was written with in its latest play (absent: never played):
 * the latest month with the artist (from the aggregates, or the plays of months behind), then
 * that month's plays.
 */
export async function latestArtistNames(options: {
  userId: string;
  keys: string[];
}): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (options.keys.length === 0) return names;
  const keys = textArray(options.keys);
  const dirty = (await dirtyMonths(getDb(), options.userId)).map((d) => d.month);
  const dirtyRanges = dirty.map((m) => ({ from: m, to: nextMonth(m) }));
  const rows = rowsOf<{ key: string; name: string }>(
    await getDb().execute(sql`
      with months as (
        select artist_key, max(month) as month from (
          select artist_key, month from journey_months
          where user_id = ${options.userId} and kind = 0 and artist_key = any(${keys})
            and not (month = any(${dateArray(dirty)}))
          union all
          select artist_key, date_trunc('month', max(listened_at) at time zone 'UTC')::date
          from listens where user_id = ${options.userId} and (${inRanges(dirtyRanges)})
            and artist_key = any(${keys})
          group by 1
        ) m group by 1
      )
      select distinct on (l.artist_key) l.artist_key as key, l.artist_name as name
      from months m
      join listens l on l.user_id = ${options.userId} and l.artist_key = m.artist_key
        and l.listened_at >= (m.month::timestamp at time zone 'UTC')
        and l.listened_at < ((m.month + interval '1 month')::timestamp at time zone 'UTC')
      order by l.artist_key, l.listened_at desc`),
  );
  for (const row of rows) names.set(row.key, row.name);
  return names;
}
