import { sql } from "drizzle-orm";
import { type DatabaseHandle, openDatabase, setDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import {
  queueJourneyAggregate,
  settleJourneyAggregates,
} from "~/features/journey/aggregates.server";
import { resolvePeriod } from "~/features/journey/period";
import { computeJourneyStats, getJourneyStats } from "~/features/journey/stats.server";
import { datasetDir, timed } from "./lib/dataset";
import { type BudgetRow, log, ms, percentile, type StepOutcome, timeCalls } from "./lib/report";

/**
 * Issue 15: the journey's stats for one person with 1M plays over 5 years (BENCH_PLAYS), per
 * period, on PGlite. Budget: p99 ≤ 50 ms. Two rows per period, both against the budget:
 * computeJourneyStats (no cache: what the first view after a change of plays costs, from the
 * journey's aggregates of ADR 032, whose months are checked against `listen_days` on every call),
 * and getJourneyStats as the pages call it (cached per listen version). For information: how long
 * the aggregate job takes for the whole history, the first computation before it ran (every
 * month from the plays), and right after one new play (that month from the plays).
 *
 * The plays: one every 5 years / N seconds (about 550 a day at 1M, so every day has plays and
 * the streak walks are as long as they get), 2,000 artists with a skewed popularity (the index
 * is 2,000 · u³ for u spread evenly, so the top artists hold most plays), 10 tracks and 3
 * releases per artist, one play in ten without a length. A second person has 10,000 plays, so
 * the index holds someone else too.
 */

const BUDGET_MS = 50;
const OWNER = "bench-journey-owner";
const NOW = new Date("2026-01-01T12:00:00Z");
const YEARS = 5;

async function generatePlays(handle: DatabaseHandle, plays: number): Promise<string[]> {
  const db = handle.db;
  await db.execute(sql`insert into "user" (id, name, email, email_verified, username)
    values (${OWNER}, 'Bench Journey', 'bench-journey@bench.test', true, 'bench_journey'),
           ('bench-journey-other', 'Bench Other', 'bench-journey-other@bench.test', true, 'bench_journey_other')`);
  const span = YEARS * 365 * 86_400;
  const start = new Date(NOW.getTime() - span * 1000);
  const step = span / plays;
  const chunk = 100_000;
  for (let from = 0; from < plays; from += chunk) {
    const to = Math.min(plays, from + chunk) - 1;
    await db.execute(sql`insert into listens (user_id, listened_at, duration_ms, artist_name,
        track_name, release_name, artist_key, track_key, release_key, source)
      select ${OWNER}, ${start.toISOString()}::timestamptz + make_interval(secs => floor(i * ${step}::float8)),
        case when i % 10 = 0 then null else 180000 + (i % 120) * 1000 end,
        'Artist ' || a, 'Track ' || a || '.' || (i % 10), 'Album ' || a || '.' || (i % 3),
        'artist ' || a, 'track ' || a || ' ' || (i % 10), 'album ' || a || ' ' || (i % 3), 'scrobble'
      from generate_series(${from}::int, ${to}::int) as i,
        lateral (select floor(2000 * power(((i::bigint * 7919) % 10007) / 10007.0, 3))::int as a) x`);
    log(`journey-stats: ${to + 1} plays`);
  }
  await db.execute(sql`insert into listens (user_id, listened_at, duration_ms, artist_name,
      track_name, artist_key, track_key, source)
    select 'bench-journey-other', ${start.toISOString()}::timestamptz + make_interval(secs => i * 15000),
      200000, 'Artist ' || (i % 50), 'Track ' || i, 'artist ' || (i % 50), 'track ' || i, 'scrobble'
    from generate_series(1, 10000) as i`);
  return [
    `${plays.toLocaleString("en")} plays over ${YEARS} years for one person (one every ${step.toFixed(0)} s), 2,000 artists with skewed popularity, 10,000 plays of someone else`,
  ];
}

export async function benchJourneyStats(): Promise<StepOutcome> {
  const plays = Number(process.env.BENCH_PLAYS ?? 1_000_000);
  const runs = Number(process.env.BENCH_QUERY_RUNS ?? 200);
  const maxSeconds = Number(process.env.BENCH_QUERY_SECONDS ?? 15);
  if (!Number.isInteger(plays) || plays < 1000) throw new Error("BENCH_PLAYS must be ≥ 1000");
  const data = datasetDir("journey", plays);
  let opened: DatabaseHandle | null = null;
  try {
    opened = await openDatabase({ dataDir: data.dir });
    const handle = opened;
    await migrateDatabase(handle);
    setDatabase(handle);
    const started = performance.now();
    const facts = data.reused
      ? [`data set reused from ${data.dir} (BENCH_DATA_DIR)`]
      : await generatePlays(handle, plays);
    const generation = (performance.now() - started) / 1000;
    if (!data.reused) data.markGenerated();
    await timed("journey-stats", "VACUUM ANALYZE", () =>
      handle.db.execute(sql`vacuum analyze listens, listen_days`),
    );
    const rows: BudgetRow[] = [];
    const notes = [
      `PGlite on disk (a temp DATA_DIR); generation took ${generation.toFixed(1)} s, then VACUUM ANALYZE`,
      ...facts,
      `"now" is ${NOW.toISOString()}; computed: up to ${runs} sequential calls per period (at most ${maxSeconds} s, at least 3) after 1 warm-up; as served: up to ${runs} calls (at most ${maxSeconds} s, at least 30) after 3 warm-up calls, the first of which fills the cache`,
    ];
    {
      // Before the job ran (an upgrade, or an import's first seconds): every month from the plays.
      const { start, end } = resolvePeriod(new URLSearchParams({ period: "year" }), NOW);
      await handle.db.execute(sql`delete from journey_month_revs where user_id = ${OWNER}`);
      const t0 = performance.now();
      await computeJourneyStats({ userId: OWNER, start, end, now: NOW });
      const before = performance.now() - t0;
      rows.push({
        step: "journey-stats",
        metric: "computed before the aggregate job ran, last year (information)",
        measured: `${ms(before)} (every month read from the plays)`,
        budget: "—",
        pass: null,
      });
      const t1 = performance.now();
      await queueJourneyAggregate(handle.db, OWNER);
      await settleJourneyAggregates();
      rows.push({
        step: "journey-stats",
        metric: "the aggregate job over the whole history (information)",
        measured: `${((performance.now() - t1) / 1000).toFixed(1)} s for ${plays.toLocaleString("en")} plays (a month per transaction, page views let through between)`,
        budget: "—",
        pass: null,
      });
    }
    for (const period of ["week", "month", "year", "all"] as const) {
      const { start, end } = resolvePeriod(new URLSearchParams({ period }), NOW);
      const label = period === "all" ? "all time" : `last ${period}`;
      // Cold: every statement, as on the first view after the plays changed.
      const compute = () => computeJourneyStats({ userId: OWNER, start, end, now: NOW });
      log(`journey-stats: ${period}, computed …`);
      const first = await compute();
      const cold = await timeCalls(compute, {
        runs,
        maxSeconds,
        minRuns: 3,
        warmRuns: 1,
      });
      rows.push({
        step: "journey-stats",
        metric: `p99 stats computed (no cache), ${label}`,
        measured: `${ms(percentile(cold, 99))} (p50 ${ms(percentile(cold, 50))}, n=${cold.length}, ${first.totals.plays.toLocaleString("en")} plays in the period)`,
        budget: `≤ ${BUDGET_MS} ms`,
        pass: percentile(cold, 99) <= BUDGET_MS,
      });
      // As the page asks: from the cache while the plays are unchanged.
      const call = () => getJourneyStats({ userId: OWNER, start, end, now: NOW });
      log(`journey-stats: ${period}, cached …`);
      const samples = await timeCalls(call, { runs, maxSeconds, minRuns: 30, warmRuns: 3 });
      const p50 = percentile(samples, 50);
      const p99 = percentile(samples, 99);
      rows.push({
        step: "journey-stats",
        metric: `p99 stats as served (cached per listen version), ${label}`,
        measured: `${ms(p99)} (p50 ${ms(p50)}, n=${samples.length})`,
        budget: `≤ ${BUDGET_MS} ms`,
        pass: p99 <= BUDGET_MS,
      });
    }
    {
      // A scrobble arrives: its month is read from the plays until the job redid it.
      const { start, end } = resolvePeriod(new URLSearchParams({ period: "all" }), NOW);
      const at = new Date(NOW.getTime() - 3_600_000).toISOString();
      const samples: number[] = [];
      for (let i = 0; i < 20; i++) {
        await handle.db.execute(sql`insert into listens (user_id, listened_at, duration_ms,
            artist_name, track_name, artist_key, track_key, source)
          values (${OWNER}, ${at}::timestamptz + make_interval(secs => ${i}), 200000, 'Artist 1',
            'A new play', 'artist 1', 'bench new play', 'scrobble')`);
        const t0 = performance.now();
        await computeJourneyStats({ userId: OWNER, start, end, now: NOW });
        samples.push(performance.now() - t0);
      }
      // Taken out again, so a kept data set (BENCH_DATA_DIR) is the same next time.
      await handle.db.execute(
        sql`delete from listens where user_id = ${OWNER} and track_key = 'bench new play'`,
      );
      await queueJourneyAggregate(handle.db, OWNER);
      await settleJourneyAggregates();
      rows.push({
        step: "journey-stats",
        metric: "computed right after a new play, all time (information)",
        measured: `p50 ${ms(percentile(samples, 50))}, max ${ms(Math.max(...samples))} (n=20; the new play's month read from the plays)`,
        budget: "—",
        pass: null,
      });
    }
    return { step: "journey-stats", rows, notes, seconds: 0 };
  } finally {
    setDatabase(undefined);
    await opened?.close();
    data.cleanup();
  }
}
