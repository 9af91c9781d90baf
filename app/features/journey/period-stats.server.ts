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
  /**
   * The period holds every play and every month is up to date: the lifetime sums stand for it.
   */
  wholeHistory: boolean;
}

/** Before any play: "all time" asks from here. */
export const LONG_AGO_DAY = "1000-01-01";

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
  const [facts] = rowsOf<{ known: string[] | null; dirty: string[] | null; later: boolean }>(
    await getDb().execute(sql`
      select
        (select hidden from journey_aggregate_state where user_id = ${userId}) as known,
        (select array_agg(to_char(d.month, 'YYYY-MM-DD') order by d.month) from (
          select date_trunc('month', day)::date as month, max(rev) as rev
          from listen_days where user_id = ${userId} group by 1
        ) d
        left join journey_month_revs j on j.user_id = ${userId} and j.month = d.month
        where j.rev is null or d.rev > j.rev) as dirty,
        exists (select 1 from listen_days where user_id = ${userId}
          and day >= ${endDay}::date and plays > 0) as later`),
  );
  const known = [...(facts?.known ?? [])].sort();
  const daysFromPlays = hidden.length > 0 && known.join("\u0000") !== hidden.join("\u0000");
  const dirty = facts?.dirty ?? [];
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
    wholeHistory: startDay <= LONG_AGO_DAY && dirty.length === 0 && !facts?.later,
  };
}

/**
 * The same period read from the plays alone (no month from the aggregates): what a period with
 * few plays costs least as, whatever its length.
 */
export function fromPlaysOnly(plan: PeriodPlan, startDay: string, endDay: string): PeriodPlan {
  return {
    ...plan,
    months: null,
    raw: [{ from: startDay, to: endDay }],
    wholeHistory: false,
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

export type KindName = keyof typeof KIND;

type RankedRow = { artistKey: string; key: string; plays: number };
/** A row of a kind as the reference orders ties: by its key in code-point order. */
const sortKeyOf = (kindName: KindName, r: { artistKey: string; key: string }) =>
  kindName === "artist" ? r.artistKey : `${r.artistKey}/${r.key}`;
const byPlaysThenKey = (kindName: KindName) => (a: RankedRow, b: RankedRow) =>
  b.plays - a.plays || compareCodePoints(sortKeyOf(kindName, a), sortKeyOf(kindName, b));

/** Strings in code-point order (the database's "C" collation), not UTF-16 unit order. */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** The plan's up-to-date whole months (their rows stand for their plays). */
function cleanMonthList(plan: PeriodPlan): string[] {
  if (!plan.months) return [];
  const out: string[] = [];
  const dirty = new Set(plan.dirty);
  for (let m = plan.months.from; m < plan.months.to; m = nextMonth(m)) {
    if (!dirty.has(m)) out.push(m);
  }
  return out;
}

/** The rows of `listens` read for the plan (edges, months behind), hidden artists left out. */
function rawWhere(plan: PeriodPlan, kindName: KindName): SQL {
  return sql`user_id = ${plan.userId} and (${inRanges(plan.raw)})
    and ${notHidden(plan.hidden)} and ${KIND[kindName].where}`;
}

/** Keys as a JSON list of [artist_key, key] pairs, joined as rows. */
const keyPairs = (rows: readonly { artistKey: string; key: string }[]) =>
  sql`(select p->>0 as artist_key, p->>1 as key
    from jsonb_array_elements(${JSON.stringify(rows.map((r) => [r.artistKey, r.key]))}::jsonb) p)`;

type Spelled = RankedRow & { name: string; artistName: string };

/**
 * The given keys' plays over the plan's months (`months`, first days) and raw rows, with each
 * one's most written spelling and its artist's — one statement.
 */
async function exactWithNames(
  db: DbOrTx,
  plan: PeriodPlan,
  kindName: KindName,
  keys: readonly { artistKey: string; key: string }[],
  months: SQL,
  raw: SQL = rawWhere(plan, kindName),
): Promise<Spelled[]> {
  if (keys.length === 0) return [];
  const k = KIND[kindName];
  const rows = rowsOf<{
    artist_key: string;
    key: string;
    plays: number;
    name: string | null;
    artist_name: string | null;
  }>(
    await db.execute(sql`
      with wanted as ${keyPairs(keys)},
      monthly as (
        select m.artist_key, m.key, m.plays, m.names, m.artist_names from journey_months m
        where m.user_id = ${plan.userId} and m.kind = ${k.kind} and ${months}
          and (m.artist_key, m.key) in (select artist_key, key from wanted)
      ),
      played as (
        select artist_key, ${k.key} as key, ${k.name} as name, artist_name
        from listens where ${raw} and (artist_key, ${k.key}) in (select artist_key, key from wanted)
      ),
      totals as (
        select artist_key, key, sum(plays)::int as plays from (
          select artist_key, key, plays from monthly
          union all select artist_key, key, 1 from played) x
        group by 1, 2
      ),
      counts as (
        select mo.artist_key, mo.key, e.key as name, e.value::int as n, false as of_artist
        from monthly mo cross join lateral jsonb_each_text(mo.names) e
        union all
        select mo.artist_key, mo.key, e.key, e.value::int, true
        from monthly mo cross join lateral jsonb_each_text(coalesce(mo.artist_names, '{}'::jsonb)) e
        union all
        select artist_key, key, name, 1, false from played where name is not null
        union all
        select artist_key, key, artist_name, 1, true from played
      ),
      modes as (
        select distinct on (artist_key, key, of_artist) artist_key, key, of_artist, name
        from (select artist_key, key, of_artist, name, sum(n) as n from counts group by 1, 2, 3, 4) s
        order by artist_key, key, of_artist, n desc, name collate "C"
      )
      select t.artist_key, t.key, t.plays,
        (select name from modes m where m.artist_key = t.artist_key and m.key = t.key
          and not m.of_artist) as name,
        (select name from modes m where m.artist_key = t.artist_key and m.key = t.key
          and m.of_artist) as artist_name
      from totals t`),
  );
  return rows.map((r) => ({
    artistKey: r.artist_key,
    key: r.key,
    plays: Number(r.plays),
    name: r.name ?? "",
    artistName: kindName === "artist" ? "" : (r.artist_name ?? ""),
  }));
}

/**
 * The `limit` most played keys straight from the plays of the plan's raw rows (its only rows),
 * with their most written spellings, as the reference computes them — one statement.
 */
async function rawTop(
  db: DbOrTx,
  plan: PeriodPlan,
  kindName: KindName,
  limit: number,
): Promise<Spelled[]> {
  const k = KIND[kindName];
  const sortKey =
    kindName === "artist"
      ? sql`artist_key collate "C"`
      : sql`(artist_key || '/' || ${k.key}) collate "C"`;
  const rows = rowsOf<{
    artist_key: string;
    key: string;
    plays: number;
    name: string | null;
    artist_name: string;
  }>(
    await db.execute(sql`
      select artist_key, ${k.key} as key, count(*)::int as plays,
        mode() within group (order by ${k.name} collate "C") as name,
        mode() within group (order by artist_name collate "C") as artist_name
      from listens where ${rawWhere(plan, kindName)}
      group by 1, 2
      order by plays desc, ${sortKey} limit ${limit}`),
  );
  return rows.map((r) => ({
    artistKey: r.artist_key,
    key: r.key,
    plays: Number(r.plays),
    name: r.name ?? "",
    artistName: kindName === "artist" ? "" : r.artist_name,
  }));
}

/**
 * The `limit` most played keys over the plan's clean months and raw rows, by Fagin's threshold
 * algorithm: the `depth` most played rows of each month (an index walk), whose `depth`-th count
 * bounds every key not seen there. Keys whose best case can still reach the top get exact sums;
 * the list is proven once its last entry beats what any unseen key could have, else the search
 * goes deeper. Listening is skewed, so a few dozen rows a month usually prove it. Null when
 * even the deepest search proves nothing (then every row is summed).
 */
async function thresholdTop(
  db: DbOrTx,
  plan: PeriodPlan,
  kindName: KindName,
  limit: number,
): Promise<Spelled[] | null> {
  const k = KIND[kindName];
  const months = cleanMonthList(plan);
  const inMonths = sql`m.month = any(${dateArray(months)})`;
  const order = byPlaysThenKey(kindName);
  for (let depth = 24; depth <= 1536; depth *= 4) {
    // Each month's `depth` most played rows, and every key of the raw rows (marked "").
    const rows = rowsOf<{ month: string; artist_key: string; key: string; plays: number }>(
      await db.execute(sql`
        select to_char(u.month, 'YYYY-MM-DD') as month, r.artist_key, r.key, r.plays
        from unnest(${dateArray(months)}) as u(month)
        cross join lateral (
          select artist_key, key, plays from journey_months m
          where m.user_id = ${plan.userId} and m.kind = ${k.kind} and m.month = u.month
            and ${notHidden(plan.hidden)}
          order by plays desc limit ${depth}
        ) r
        union all
        select '', artist_key, ${k.key}, count(*)::int from listens
        where ${rawWhere(plan, kindName)} group by 2, 3`),
    );
    const perMonth = new Map<string, number>();
    for (const r of rows) perMonth.set(r.month, (perMonth.get(r.month) ?? 0) + 1);
    const kth = new Map<string, number>();
    for (const r of rows) {
      // Rows come in each month's order: the last one seen is its depth-th.
      if (r.month !== "" && (perMonth.get(r.month) ?? 0) >= depth) {
        kth.set(r.month, Number(r.plays));
      }
    }
    const bound = [...kth.values()].reduce((a, b) => a + b, 0);
    const seen = new Map<string, RankedRow & { kthSeen: number }>();
    for (const r of rows) {
      const id = `${r.artist_key}\u0000${r.key}`;
      const entry = seen.get(id) ?? { artistKey: r.artist_key, key: r.key, plays: 0, kthSeen: 0 };
      entry.plays += Number(r.plays);
      entry.kthSeen += kth.get(r.month) ?? 0;
      seen.set(id, entry);
    }
    const lows = [...seen.values()].map((e) => e.plays).sort((a, b) => b - a);
    const cut = lows[limit - 1] ?? 0;
    // The best a seen key can have: what was seen, plus each other month's depth-th count.
    const candidates = [...seen.values()].filter((e) => e.plays + bound - e.kthSeen >= cut);
    if (bound > 0 && candidates.length > 4 * depth && depth < 1536) continue;
    // With no month cut short every count seen is exact: only the names are left to read.
    const chosen = bound === 0 ? [...seen.values()].sort(order).slice(0, limit) : candidates;
    const exact = (await exactWithNames(db, plan, kindName, chosen, inMonths))
      .sort(order)
      .slice(0, limit);
    const last = exact.at(-1);
    // Proven: no month was cut (nothing unseen), or the last entry beats any unseen key.
    if (bound === 0 || (exact.length === limit && last && last.plays > bound)) return exact;
  }
  return null;
}

/** The `limit` most played keys by summing every row of the period (the last resort). */
async function fullSumTop(
  db: DbOrTx,
  plan: PeriodPlan,
  kindName: KindName,
  limit: number,
): Promise<Spelled[]> {
  const k = KIND[kindName];
  const sortKey =
    kindName === "artist"
      ? sql`artist_key collate "C"`
      : sql`(artist_key || '/' || key) collate "C"`;
  const rows = rowsOf<{ artist_key: string; key: string; plays: number }>(
    await db.execute(sql`
      select artist_key, key, sum(plays)::int as plays from (
        select artist_key, key, plays from journey_months where ${cleanMonths(plan, k.kind)}
        union all
        select artist_key, ${k.key} as key, count(*)::int as plays from listens
        where ${rawWhere(plan, kindName)} group by 1, 2
      ) units group by 1, 2
      order by plays desc, ${sortKey} limit ${limit}`),
  );
  const top = rows.map((r) => ({ artistKey: r.artist_key, key: r.key }));
  return (
    await exactWithNames(
      db,
      plan,
      kindName,
      top,
      sql`m.month = any(${dateArray(cleanMonthList(plan))})`,
    )
  ).sort(byPlaysThenKey(kindName));
}

/**
 * The `limit` most played keys of all time from the lifetime sums (plan.wholeHistory), with
 * their spellings over every month — one statement.
 */
async function lifetimeTop(
  db: DbOrTx,
  plan: PeriodPlan,
  kindName: KindName,
  limit: number,
): Promise<Spelled[]> {
  const k = KIND[kindName];
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
  }>(
    await db.execute(sql`
      with top as (
        select artist_key, key, plays from journey_keys
        where user_id = ${plan.userId} and kind = ${k.kind} and ${notHidden(plan.hidden)}
        order by plays desc, ${sortKey} limit ${limit}
      ),
      counts as (
        select m.artist_key, m.key, e.key as name, e.value::int as n, false as of_artist
        from journey_months m cross join lateral jsonb_each_text(m.names) e
        where m.user_id = ${plan.userId} and m.kind = ${k.kind}
          and (m.artist_key, m.key) in (select artist_key, key from top)
        union all
        select m.artist_key, m.key, e.key, e.value::int, true
        from journey_months m cross join lateral jsonb_each_text(coalesce(m.artist_names, '{}'::jsonb)) e
        where m.user_id = ${plan.userId} and m.kind = ${k.kind}
          and (m.artist_key, m.key) in (select artist_key, key from top)
      ),
      modes as (
        select distinct on (artist_key, key, of_artist) artist_key, key, of_artist, name
        from (select artist_key, key, of_artist, name, sum(n) as n from counts group by 1, 2, 3, 4) s
        order by artist_key, key, of_artist, n desc, name collate "C"
      )
      select t.artist_key, t.key, t.plays,
        (select name from modes m where m.artist_key = t.artist_key and m.key = t.key
          and not m.of_artist) as name,
        (select name from modes m where m.artist_key = t.artist_key and m.key = t.key
          and m.of_artist) as artist_name
      from top t`),
  );
  return rows
    .map((r) => ({
      artistKey: r.artist_key,
      key: r.key,
      plays: Number(r.plays),
      name: r.name ?? "",
      artistName: kindName === "artist" ? "" : (r.artist_name ?? ""),
    }))
    .sort(byPlaysThenKey(kindName));
}

/**
 * The `limit` most played keys of a kind in the period (plays, then key in code-point order),
 * each with its most written spelling and, for releases and tracks, its artist's.
 */
async function topKeys(
  db: DbOrTx,
  plan: PeriodPlan,
  kindName: KindName,
  limit: number,
): Promise<RankedItemKey[]> {
  const top = plan.wholeHistory
    ? await lifetimeTop(db, plan, kindName, limit)
    : cleanMonthList(plan).length === 0
      ? await rawTop(db, plan, kindName, limit)
      : ((await thresholdTop(db, plan, kindName, limit)) ??
        (await fullSumTop(db, plan, kindName, limit)));
  return top.map((r) => ({
    key: sortKeyOf(kindName, r),
    name: r.name,
    artistName: r.artistName,
    plays: r.plays,
  }));
}

/**
 * How many artists have plays in the period: those whose lifetime months meet its clean whole
 * months (their rows stand for their plays), and those in the rows read from the plays.
 */
async function artistCount(db: DbOrTx, plan: PeriodPlan): Promise<number> {
  const indexes = cleanMonthList(plan).map(
    (m) => Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1,
  );
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`
      select count(*)::int as n from (
        select artist_key from journey_keys
        where user_id = ${plan.userId} and kind = 0 and ${notHidden(plan.hidden)}
          and months && array(select jsonb_array_elements_text(${JSON.stringify(indexes)}::jsonb)::int)
        union
        select distinct artist_key from listens where ${rawWhere(plan, "artist")}
      ) a`),
  );
  return Number(row?.n ?? 0);
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
  endDay: string,
  limit: number,
): Promise<PeriodKeyStats["discoveries"]> {
  if (plan.dirty.length === 0) {
    // Every month is up to date: each artist's first play is in the lifetime sums, and an
    // artist first played in the period was played in it.
    const firsts = rowsOf<{ artist_key: string; first_at: Date | string; count: number }>(
      await db.execute(sql`
        with found as (
          select artist_key, first_at from journey_keys
          where user_id = ${plan.userId} and kind = 0 and ${notHidden(plan.hidden)}
            and first_at >= ${dayStart(startDay)} and first_at < ${dayStart(endDay)}
        ),
        cut as (select first_at from found order by first_at desc offset ${limit - 1} limit 1)
        select artist_key, first_at, (select count(*)::int from found) as count from found
        where first_at >= coalesce((select first_at from cut), '-infinity'::timestamptz)`),
    );
    const names = new Map(
      (
        await exactWithNames(
          db,
          plan,
          "artist",
          firsts.map((f) => ({ artistKey: f.artist_key, key: "" })),
          plan.wholeHistory ? sql`true` : sql`m.month = any(${dateArray(cleanMonthList(plan))})`,
          plan.wholeHistory ? sql`false` : rawWhere(plan, "artist"),
        )
      ).map((r) => [`${r.artistKey}\u0000`, r]),
    );
    const shown = firsts
      .map((f) => ({
        at: new Date(f.first_at).getTime(),
        name: names.get(`${f.artist_key}\u0000`)?.name ?? "",
      }))
      .sort((a, b) => b.at - a.at || compareCodePoints(a.name, b.name))
      .slice(0, limit);
    return {
      count: Number(firsts[0]?.count ?? 0),
      artists: shown.map((d) => ({
        name: d.name,
        firstPlayedOn: new Date(d.at).toISOString().slice(0, 10),
      })),
    };
  }
  const dirtyRanges = plan.dirty.map((m) => ({ from: m, to: nextMonth(m) }));
  const rawRows = rawWhere(plan, "artist");
  const rows = rowsOf<{ name: string; first_on: string; count: number }>(
    await db.execute(sql`
      with played as (
        select distinct artist_key from journey_months where ${cleanMonths(plan, 0)}
        union
        select distinct artist_key from listens where ${rawRows}
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
        where ${rawRows} and artist_key in (select artist_key from shown)
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
  endDay: string;
  limit: number;
  artistsOnly?: boolean;
}): Promise<PeriodKeyStats> {
  const { plan, limit } = options;
  const db = getDb();
  const artists = await topKeys(db, plan, "artist", limit);
  const plain = ({ key, name, plays }: RankedItemKey) => ({ key, name, plays });
  if (options.artistsOnly) {
    return {
      artists: artists.map(plain),
      albums: [],
      tracks: [],
      artistCount: 0,
      discoveries: { count: 0, artists: [] },
    };
  }
  return {
    artists: artists.map(plain),
    albums: await topKeys(db, plan, "release", limit),
    tracks: await topKeys(db, plan, "track", limit),
    artistCount: await artistCount(db, plan),
    discoveries: await discoveriesOf(db, plan, options.startDay, options.endDay, limit),
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

/** The `limit` most played artists, releases or tracks of a planned period (ListenBrainz's stats). */
export async function periodTopList(options: {
  plan: PeriodPlan;
  kind: KindName;
  limit: number;
}): Promise<RankedItemKey[]> {
  return topKeys(getDb(), options.plan, options.kind, options.limit);
}

/** How many artists a planned period has (the whole history: its lifetime rows, counted). */
export async function periodArtistCount(plan: PeriodPlan): Promise<number> {
  if (!plan.wholeHistory) return artistCount(getDb(), plan);
  const [row] = rowsOf<{ n: number }>(
    await getDb().execute(sql`select count(*)::int as n from journey_keys
      where user_id = ${plan.userId} and kind = 0 and ${notHidden(plan.hidden)}`),
  );
  return Number(row?.n ?? 0);
}

/**
 * How many releases or tracks a planned period has, counted up to `cap`: from the lifetime sums
 * for the whole history, else the distinct keys of its clean months' rows and of the plays read
 * for the rest.
 */
export async function periodKeyCount(
  plan: PeriodPlan,
  kindName: "release" | "track",
  cap: number,
): Promise<number> {
  const k = KIND[kindName];
  const query = plan.wholeHistory
    ? sql`select count(*)::int as n from (select 1 from journey_keys
        where user_id = ${plan.userId} and kind = ${k.kind} and ${notHidden(plan.hidden)}
        limit ${cap}) c`
    : sql`select count(*)::int as n from (
        select artist_key, key from journey_months where ${cleanMonths(plan, k.kind)}
        union
        select distinct artist_key, ${k.key} from listens where ${rawWhere(plan, kindName)}
        limit ${cap}) c`;
  const [row] = rowsOf<{ n: number }>(await getDb().execute(query));
  return Number(row?.n ?? 0);
}
