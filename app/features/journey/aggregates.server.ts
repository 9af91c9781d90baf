import { type SQL, sql } from "drizzle-orm";
import { type ActiveJob, defineJob, drainJobs, stringFields } from "~/core/jobs/index.server";
import { type DbOrTx, getDb, rowsOf } from "~/db/client.server";
import { journeySettings } from "~/db/schema";
import { publishListenChange } from "./listenbrainz/live.server";

/*
 * The journey's durable aggregates (docs/decisions/032-journey-aggregates.md; the tables are in
 * app/db/schema/journey-aggregates.ts). The job below brings a person's months up to date: each
 * month whose days changed since it was aggregated (`listen_days.rev`, stamped by 0027's
 * statement trigger whoever writes the plays) is recomputed from its plays in one transaction —
 * its day totals, and its artists, releases and tracks with the spellings they were written
 * with. Reads (stats.server.ts) take clean months from here and read the rest from the plays.
 */

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of the first day of the month after `month` (`YYYY-MM-01`). */
export function nextMonth(month: string): string {
  const d = new Date(`${month}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString().slice(0, 10);
}

/** The instant a day starts (UTC), as a SQL timestamptz. */
export const dayStart = (day: string) => sql`${`${day}T00:00:00Z`}::timestamptz`;

/** The person's hidden artists as the settings have them (sorted), or none. */
async function hiddenArtistsOf(db: DbOrTx, userId: string): Promise<string[]> {
  const [row] = rowsOf<{ hidden: string[] | null }>(
    await db.execute(sql`select hidden_artists as hidden from ${journeySettings}
      where user_id = ${userId}`),
  );
  return [...(row?.hidden ?? [])].sort();
}

/** A text[] parameter (one parameter whatever its length). */
export const textArray = (values: readonly string[]) =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

/** A date[] parameter of `YYYY-MM-DD` days. */
export const dateArray = (values: readonly string[]) =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)::date)`;

/** The person's months whose days changed since they were aggregated, oldest first. */
export async function dirtyMonths(
  db: DbOrTx,
  userId: string,
  range?: { from: string; to: string },
): Promise<{ month: string; rev: number }[]> {
  const within = range ? sql`and day >= ${range.from}::date and day < ${range.to}::date` : sql``;
  const rows = rowsOf<{ month: string; rev: string | number }>(
    await db.execute(sql`
      select to_char(d.month, 'YYYY-MM-DD') as month, d.rev
      from (
        select date_trunc('month', day)::date as month, max(rev) as rev
        from listen_days where user_id = ${userId} ${within} group by 1
      ) d
      left join journey_month_revs j on j.user_id = ${userId} and j.month = d.month
      where j.rev is null or d.rev > j.rev
      order by d.month`),
  );
  return rows.map((r) => ({ month: String(r.month), rev: Number(r.rev) }));
}

/** A day's plays per hour (0–23) from the grouped rows `n` by `hour`, in one pass. */
const hoursArray = (visibleOnly: boolean) =>
  sql.raw(
    `array[${Array.from(
      { length: 24 },
      (_, h) =>
        `coalesce(sum(n) filter (where hour = ${h}${visibleOnly ? " and not hid" : ""}), 0)::int`,
    ).join(", ")}]`,
  );
const HOURS_ALL = hoursArray(false);
const HOURS_VISIBLE = hoursArray(true);

/** The month's plays, as a SQL condition on `listens` (alias-free). */
function inMonth(userId: string, month: string): SQL {
  return sql`user_id = ${userId} and listened_at >= ${dayStart(month)}
    and listened_at < ${dayStart(nextMonth(month))}`;
}

/** `YYYY-MM-DD` plus `days` days. */
function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * How much of a month one transaction recomputes (sliceWeight), counted as plays read plus rows
 * replaced. On
 * the embedded engine every statement holds the event loop and a transaction holds every other
 * query: a heavy listener's month (ten thousand plays, thousands of artists, releases and tracks)
 * done at once held the server for seconds. Done in slices of this size, each is tens of
 * milliseconds, with waiting requests let through between them.
 */
let sliceWeight = 500;

/** Runs `fn` with months cut into slices of `weight` (tests: many slices from a few plays). */
export async function withSliceWeight<T>(weight: number, fn: () => Promise<T>): Promise<T> {
  const before = sliceWeight;
  sliceWeight = weight;
  try {
    return await fn();
  } finally {
    sliceWeight = before;
  }
}
/** The days of a month whose day totals one transaction recomputes. */
const DAYS_PER_SLICE = 7;

/** An `artist_key` range [from, to) (null: unbounded) on `column`. */
function artistRange(column: string, range: { from: string | null; to: string | null }): SQL {
  const c = sql.raw(column);
  return sql`${range.from === null ? sql`true` : sql`${c} >= ${range.from}`}
    and ${range.to === null ? sql`true` : sql`${c} < ${range.to}`}`;
}

/**
 * The lifetime sums (`journey_keys` as `alias`) of an artist range, of every kind, as a condition
 * the primary key answers (one index range per kind), so a slice reads its range and not all of
 * a person's lifetime rows (a quarter of a second per slice at 100,000 tracks).
 */
function keysInRange(alias: string, range: { from: string | null; to: string | null }): SQL {
  return sql`${sql.raw(alias)}.kind = any(array[0, 1, 2]::smallint[])
    and ${artistRange(`${alias}.artist_key`, range)}`;
}

/**
 * Where a month is cut into artist ranges of about sliceWeight each (its plays and the rows it
 * has now, per artist, in key order): the ranges' inner bounds, none for a small month.
 */
async function sliceBounds(
  db: DbOrTx,
  userId: string,
  month: string,
): Promise<{ bounds: string[]; weight: number }> {
  const rows = rowsOf<{ artist_key: string; w: number }>(
    await db.execute(sql`
      select artist_key, sum(w)::int as w from (
        select artist_key, count(*)::int as w from listens where ${inMonth(userId, month)}
        group by 1
        union all
        select artist_key, count(*)::int from journey_months
        where user_id = ${userId} and month = ${month}::date group by 1
      ) x group by 1 order by 1`),
  );
  const bounds: string[] = [];
  let weight = 0;
  let total = 0;
  for (const row of rows) {
    if (weight >= sliceWeight) {
      bounds.push(row.artist_key);
      weight = 0;
    }
    weight += Number(row.w);
    total += Number(row.w);
  }
  return { bounds, weight: total };
}

/** Recomputes the day totals of [from, to) (days of one month) from their plays, in `tx`. */
async function recomputeDays(
  tx: DbOrTx,
  options: { userId: string; from: string; to: string; hidden: string[] },
): Promise<void> {
  const { userId, from, to, hidden } = options;
  await tx.execute(sql`delete from journey_days where user_id = ${userId}
    and day >= ${from}::date and day < ${to}::date`);
  await tx.execute(sql`
    insert into journey_days (user_id, day, plays, known_ms, estimated, hours, visible_plays,
      visible_known_ms, visible_estimated, visible_hours)
    with p as (
      select (listened_at at time zone 'UTC')::date as day,
        extract(hour from listened_at at time zone 'UTC')::int as hour,
        artist_key = any(${textArray(hidden)}) as hid,
        count(*)::int as n, coalesce(sum(duration_ms), 0)::bigint as ms,
        (count(*) filter (where duration_ms is null))::int as est
      from listens where user_id = ${userId} and listened_at >= ${dayStart(from)}
        and listened_at < ${dayStart(to)}
      group by 1, 2, 3
    )
    select ${userId}, day, sum(n)::int, sum(ms)::bigint, sum(est)::int, ${HOURS_ALL},
      coalesce(sum(n) filter (where not hid), 0)::int,
      coalesce(sum(ms) filter (where not hid), 0)::bigint,
      coalesce(sum(est) filter (where not hid), 0)::int, ${HOURS_VISIBLE}
    from p group by day`);
}

/**
 * Recomputes one artist range of one month from its plays, in `tx`: the month's artists,
 * releases and tracks in the range, with the spellings they were written with, and the lifetime
 * sums (`journey_keys`) of the same keys. After every slice the lifetime sums are exactly the
 * sums of the month rows, so a run cut off between slices leaves nothing to repair: the month is
 * still behind (its revision is written last, recomputeMonth) and is done again.
 */
async function recomputeMonthSlice(
  tx: DbOrTx,
  options: { userId: string; month: string; range: { from: string | null; to: string | null } },
): Promise<void> {
  const { userId, month, range } = options;
  const next = nextMonth(month);
  const monthIndex = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
  // The lifetime sums lose what the month had, then get what it has now (below). Both sides are
  // read as index ranges and merged: with statistics that lag (no autovacuum on the embedded
  // engine) the planner took one row for each side and looped over every lifetime row of the
  // person per month row — minutes for a slice of a heavy listener's month.
  await tx.execute(sql`set local enable_nestloop = off`);
  await tx.execute(sql`
    update journey_keys t set plays = t.plays - o.plays,
      months = case when t.kind = 0 then array_remove(t.months, ${monthIndex}) end
    from journey_months o
    where o.user_id = ${userId} and o.month = ${month}::date and ${artistRange("o.artist_key", range)}
      and t.user_id = ${userId} and t.kind = o.kind and t.artist_key = o.artist_key
      and t.key = o.key and ${keysInRange("t", range)}`);
  await tx.execute(sql`set local enable_nestloop = on`);
  // Artists first played this month: their first play is found again once the month is redone.
  await tx.execute(sql`update journey_keys set first_at = null
    where user_id = ${userId} and kind = 0 and ${artistRange("artist_key", range)}
      and first_at >= ${dayStart(month)} and first_at < ${dayStart(next)}`);
  await tx.execute(sql`delete from journey_months where user_id = ${userId}
    and month = ${month}::date and ${artistRange("artist_key", range)}`);
  // The month's groups are joined with each other below; the planner cannot estimate a CTE's
  // rows (it says 1) and picks nested loops, quadratic in the month's distinct tracks (seconds
  // for a heavy listener's month). Hash joins for this statement only.
  await tx.execute(sql`set local enable_nestloop = off`);
  await tx.execute(sql`
    insert into journey_months (user_id, month, kind, artist_key, key, plays, names, artist_names,
      first_at)
    with p as (
      select artist_key, artist_name, release_key, release_name, track_key, track_name,
        count(*)::int as n, min(listened_at) as first_at
      from listens where ${inMonth(userId, month)} and ${artistRange("artist_key", range)}
      group by 1, 2, 3, 4, 5, 6
    ),
    artists as (
      select artist_key, sum(n)::int as plays, jsonb_object_agg(artist_name, n) as names,
        min(first_at) as first_at
      from (select artist_key, artist_name, sum(n)::int as n, min(first_at) as first_at
        from p group by 1, 2) a
      group by artist_key
    ),
    releases as (
      select a.artist_key, a.release_key, a.plays, a.artist_names,
        coalesce(r.names, '{}'::jsonb) as names
      from (
        select artist_key, release_key, sum(n)::int as plays,
          jsonb_object_agg(artist_name, n) as artist_names
        from (select artist_key, release_key, artist_name, sum(n)::int as n
          from p where release_key is not null group by 1, 2, 3) x
        group by 1, 2
      ) a
      left join (
        select artist_key, release_key, jsonb_object_agg(release_name, n) as names
        from (select artist_key, release_key, release_name, sum(n)::int as n
          from p where release_key is not null and release_name is not null group by 1, 2, 3) x
        group by 1, 2
      ) r using (artist_key, release_key)
    ),
    tracks as (
      select a.artist_key, a.track_key, a.plays, a.artist_names, t.names
      from (
        select artist_key, track_key, sum(n)::int as plays,
          jsonb_object_agg(artist_name, n) as artist_names
        from (select artist_key, track_key, artist_name, sum(n)::int as n from p group by 1, 2, 3) x
        group by 1, 2
      ) a
      join (
        select artist_key, track_key, jsonb_object_agg(track_name, n) as names
        from (select artist_key, track_key, track_name, sum(n)::int as n from p group by 1, 2, 3) x
        group by 1, 2
      ) t using (artist_key, track_key)
    )
    select ${userId}, ${month}::date, 0, artist_key, '', plays, names, null::jsonb, first_at
      from artists
    union all
    select ${userId}, ${month}::date, 1, artist_key, release_key, plays, names, artist_names, null
      from releases
    union all
    select ${userId}, ${month}::date, 2, artist_key, track_key, plays, names, artist_names, null
      from tracks`);
  await tx.execute(sql`set local enable_nestloop = on`);
  await tx.execute(sql`
    insert into journey_keys as t (user_id, kind, artist_key, key, plays, first_at, months)
    select user_id, kind, artist_key, key, plays, first_at,
      case when kind = 0 then array[${monthIndex}::int] end
    from journey_months where user_id = ${userId} and month = ${month}::date
      and ${artistRange("artist_key", range)}
    on conflict (user_id, kind, artist_key, key) do update set
      plays = t.plays + excluded.plays,
      first_at = least(t.first_at, excluded.first_at),
      months = case when t.kind = 0 then array(
        select distinct m from unnest(coalesce(t.months, '{}') || excluded.months) m order by m) end`);
  await tx.execute(sql`delete from journey_keys t where t.user_id = ${userId}
    and ${keysInRange("t", range)} and t.plays <= 0`);
  // First plays that were in this month and are not any more: the earliest month left.
  await tx.execute(sql`
    update journey_keys t set first_at = (
      select min(m.first_at) from journey_months m
      where m.user_id = ${userId} and m.kind = 0 and m.artist_key = t.artist_key and m.key = '')
    where t.user_id = ${userId} and t.kind = 0 and ${artistRange("t.artist_key", range)}
      and t.first_at is null`);
}

/**
 * Recomputes one month of one person from their plays: its day totals a week per transaction,
 * its artists, releases and tracks an artist range per transaction (recomputeMonthSlice), each
 * fenced by the job's lease, with waiting requests let through in between; then, in a last
 * transaction, the revision it is now at. Until then readers take the month from the plays.
 * Days of the month left without plays lose their `listen_days` rows there (0031's trigger keeps
 * them, stamped, until then, so that a month emptied by deletes is noticed).
 */
async function recomputeMonth(
  job: ActiveJob<{ userId: string }>,
  options: { userId: string; month: string; rev: number; hidden: string[] },
): Promise<void> {
  const { userId, month, rev, hidden } = options;
  const db = getDb();
  const next = nextMonth(month);
  const step = async (work: (tx: DbOrTx) => Promise<void>) => {
    if (job.signal.aborted) throw new Error("the journey aggregate job was stopped");
    await db.transaction(async (tx) => {
      await job.fence(tx);
      await work(tx);
    });
    await job.yield();
  };
  const stamp = async (tx: DbOrTx) => {
    await tx.execute(sql`
      insert into journey_month_revs (user_id, month, rev) values (${userId}, ${month}::date, ${rev})
      on conflict (user_id, month) do update set rev = excluded.rev`);
    await tx.execute(sql`delete from listen_days where user_id = ${userId}
      and day >= ${month}::date and day < ${next}::date and plays = 0`);
  };
  const { bounds, weight } = await sliceBounds(db, userId, month);
  if (weight <= sliceWeight) {
    // A light month: all of it in one transaction.
    await step(async (tx) => {
      await recomputeDays(tx, { userId, from: month, to: next, hidden });
      await recomputeMonthSlice(tx, { userId, month, range: { from: null, to: null } });
      await stamp(tx);
    });
    return;
  }
  const days = Math.round((Date.parse(next) - Date.parse(month)) / DAY_MS);
  for (let d = 0; d < days; d += DAYS_PER_SLICE) {
    const from = addDays(month, d);
    const to = addDays(month, Math.min(d + DAYS_PER_SLICE, days));
    await step((tx) => recomputeDays(tx, { userId, from, to, hidden }));
  }
  for (let i = 0; i <= bounds.length; i++) {
    const range = { from: bounds[i - 1] ?? null, to: bounds[i] ?? null };
    await step((tx) => recomputeMonthSlice(tx, { userId, month, range }));
  }
  await step(stamp);
}

/**
 * Brings one person's aggregates up to date, month by month in small transactions (fenced by
 * the job's lease) with waiting page views let through in between. When their hidden artists changed,
 * every month is done again (the visible day totals follow the setting).
 */
async function aggregateJourney(job: ActiveJob<{ userId: string }>): Promise<void> {
  const { userId } = job.payload;
  const db = getDb();
  const hidden = await hiddenArtistsOf(db, userId);
  const [state] = rowsOf<{ hidden: string[] }>(
    await db.execute(sql`select hidden from journey_aggregate_state where user_id = ${userId}`),
  );
  const known = [...(state?.hidden ?? [])].sort();
  if (!state || known.join("\u0000") !== hidden.join("\u0000")) {
    const exists = rowsOf(await db.execute(sql`select 1 from "user" where id = ${userId}`));
    if (exists.length === 0) return;
    await db.transaction(async (tx) => {
      await job.fence(tx);
      await tx.execute(sql`
        insert into journey_aggregate_state (user_id, hidden, updated_at)
        values (${userId}, ${textArray(hidden)}, now())
        on conflict (user_id) do update set hidden = excluded.hidden, updated_at = now()`);
      await tx.execute(sql`delete from journey_month_revs where user_id = ${userId}`);
    });
  }
  let isChanged = false;
  for (;;) {
    if (job.signal.aborted) throw new Error("the journey aggregate job was stopped");
    const [dirty] = await dirtyMonths(db, userId);
    if (!dirty) break;
    isChanged = true;
    await recomputeMonth(job, { userId, month: dirty.month, rev: dirty.rev, hidden });
  }
  // Months whose every day is gone (a month emptied by deletes whose zero rows were cleared):
  // done again as empty months, so their rows leave the lifetime sums too.
  const gone = rowsOf<{ month: string }>(
    await db.execute(sql`
      select to_char(j.month, 'YYYY-MM-DD') as month from journey_month_revs j
      where j.user_id = ${userId} and not exists (
        select 1 from listen_days d where d.user_id = ${userId}
          and d.day >= j.month and d.day < (j.month + interval '1 month'))`),
  );
  for (const { month } of gone) {
    isChanged = true;
    await recomputeMonth(job, { userId, month, rev: 0, hidden });
    await db.transaction(async (tx) => {
      await job.fence(tx);
      await tx.execute(sql`delete from journey_month_revs where user_id = ${userId}
        and month = ${month}::date`);
    });
  }
  // The journey's numbers changed: its open pages (the person's, and readers the journey lets
  // in) reload them.
  if (isChanged) await publishListenChange(db, { userId, artistKeys: [] });
}

/** Keeps each person's journey aggregates up to date (see aggregateJourney). */
export const journeyAggregateJob = defineJob<{ userId: string }>({
  kind: "journey.aggregate",
  priority: 3,
  concurrency: 1,
  leaseSeconds: 60,
  parse: stringFields("userId"),
  async run(job) {
    await aggregateJourney(job);
    return undefined;
  },
});

/**
 * Asks for a person's aggregates to be brought up to date (in the transaction that changed their
 * plays or hidden artists): one waiting job per person however many changes come in.
 */
export async function queueJourneyAggregate(db: DbOrTx, userId: string): Promise<void> {
  await journeyAggregateJob.enqueue(db, { userId }, { key: userId });
}

/** Brings every queued person's aggregates up to date here (tests, scripts, the bench). */
export async function settleJourneyAggregates(): Promise<void> {
  await drainJobs([journeyAggregateJob]);
}

/**
 * A safety net (maintenance): people whose days changed since their last aggregation and who
 * have no job waiting get one — a writer that forgot to queue it is caught within an interval.
 */
export async function queueStaleJourneyAggregates(db: DbOrTx = getDb()): Promise<number> {
  const rows = rowsOf(
    await db.execute(sql`
      insert into jobs (kind, payload, key, priority)
      select ${journeyAggregateJob.kind}, jsonb_build_object('userId', d.user_id), d.user_id,
        ${journeyAggregateJob.priority}
      from (
        select l.user_id from listen_days l
        left join journey_month_revs j
          on j.user_id = l.user_id and j.month = date_trunc('month', l.day)::date
        where j.rev is null or l.rev > j.rev
        group by l.user_id
      ) d
      on conflict (kind, key) where status = 'queued' and key is not null do nothing
      returning id`),
  );
  return rows.length;
}

export { DAY_MS };
