import { sql } from "drizzle-orm";
import { type DatabaseHandle, openDatabase, setDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import {
  queueJourneyAggregate,
  settleJourneyAggregates,
} from "~/features/journey/aggregates.server";
import { handleListenBrainzApi } from "~/features/journey/listenbrainz/handler.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { datasetDir, timed } from "./lib/dataset";
import { type BudgetRow, log, ms, percentile, type StepOutcome, timeCalls } from "./lib/report";

/**
 * Issue 39: ListenBrainz's read API on one person with 1M plays over 5 years (BENCH_PLAYS), on
 * PGlite, through the whole handler (routing, rate limit, visibility, query, JSON), as a reader
 * whom the journey's audience (`everyone`) lets in, each call from its own client address (so
 * the per-address rate limit never refuses one). Budgets: `GET /1/user/{user}/listens?count=100`
 * p99 ≤ 10 ms (newest page and a page deep in the history), the stats endpoints p99 ≤ 50 ms
 * as served (computed on the first call after the plays changed, then from the journey's cache
 * per listen version, as ListenBrainz serves precomputed statistics; the first call is shown).
 */

const LISTENS_BUDGET_MS = 10;
const STATS_BUDGET_MS = 50;
const OWNER = "bench-lb-owner";
const USERNAME = "bench_lb_owner";
const NOW = new Date("2026-01-01T12:00:00Z");
const YEARS = 5;

async function generatePlays(handle: DatabaseHandle, plays: number): Promise<string[]> {
  const db = handle.db;
  await db.execute(sql`insert into "user" (id, name, email, email_verified, username)
    values (${OWNER}, 'Bench LB', 'bench-lb@bench.test', true, ${USERNAME})`);
  await db.execute(sql`insert into profiles (user_id, email, display_name, username)
    values (${OWNER}, 'bench-lb@bench.test', 'Bench LB', ${USERNAME})`);
  await db.execute(
    sql`insert into journey_settings (user_id, audience) values (${OWNER}, 'everyone')`,
  );
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
    log(`listenbrainz-reads: ${to + 1} plays`);
  }
  return [
    `${plays.toLocaleString("en")} plays over ${YEARS} years for one person, 2,000 artists with skewed popularity; journey audience: everyone`,
  ];
}

let address = 0;

async function get(path: string): Promise<void> {
  address++;
  const response = await handleListenBrainzApi(
    new Request(`http://bench.test${path}`, {
      headers: {
        [CLIENT_IP_HEADER]: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
      },
    }),
  );
  if (response.status !== 200) {
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  }
  await response.arrayBuffer();
}

export async function benchListenBrainzReads(): Promise<StepOutcome> {
  const plays = Number(process.env.BENCH_PLAYS ?? 1_000_000);
  const runs = Number(process.env.BENCH_QUERY_RUNS ?? 300);
  const maxSeconds = Number(process.env.BENCH_QUERY_SECONDS ?? 10);
  if (!Number.isInteger(plays) || plays < 1000) throw new Error("BENCH_PLAYS must be ≥ 1000");
  const data = datasetDir("listenbrainz", plays);
  let opened: DatabaseHandle | null = null;
  try {
    opened = await openDatabase({ dataDir: data.dir });
    const handle = opened;
    await migrateDatabase(handle);
    setDatabase(handle);
    const facts = data.reused
      ? [`data set reused from ${data.dir} (BENCH_DATA_DIR)`]
      : await generatePlays(handle, plays);
    if (!data.reused) data.markGenerated();
    await timed("listenbrainz-reads", "aggregate job", async () => {
      await queueJourneyAggregate(handle.db, OWNER);
      await settleJourneyAggregates();
    });
    await timed("listenbrainz-reads", "VACUUM ANALYZE", () =>
      handle.db.execute(
        sql`vacuum analyze listens, listen_days, journey_keys, journey_months, journey_days, journey_month_revs`,
      ),
    );
    const deep = Math.floor(NOW.getTime() / 1000) - Math.floor((YEARS * 365 * 86_400) / 2);
    const cases: { path: string; label: string; budget: number }[] = [
      {
        path: `/1/user/${USERNAME}/listens?count=100`,
        label: "listens?count=100, newest",
        budget: LISTENS_BUDGET_MS,
      },
      {
        path: `/1/user/${USERNAME}/listens?count=100&max_ts=${deep}`,
        label: "listens?count=100&max_ts= (half way back)",
        budget: LISTENS_BUDGET_MS,
      },
      {
        path: `/1/user/${USERNAME}/listens?count=100&min_ts=${deep}`,
        label: "listens?count=100&min_ts= (half way back)",
        budget: LISTENS_BUDGET_MS,
      },
      {
        path: `/1/user/${USERNAME}/listen-count`,
        label: "listen-count",
        budget: LISTENS_BUDGET_MS,
      },
      {
        path: `/1/stats/user/${USERNAME}/artists?range=all_time`,
        label: "stats artists, all_time",
        budget: STATS_BUDGET_MS,
      },
      {
        path: `/1/stats/user/${USERNAME}/recordings?range=year`,
        label: "stats recordings, year",
        budget: STATS_BUDGET_MS,
      },
      {
        path: `/1/stats/user/${USERNAME}/releases?range=year&offset=25`,
        label: "stats releases, year, second page",
        budget: STATS_BUDGET_MS,
      },
      {
        path: `/1/stats/user/${USERNAME}/listening-activity?range=all_time`,
        label: "stats listening-activity, all_time",
        budget: STATS_BUDGET_MS,
      },
      {
        path: `/1/stats/user/${USERNAME}/daily-activity?range=all_time`,
        label: "stats daily-activity, all_time",
        budget: STATS_BUDGET_MS,
      },
    ];
    const rows: BudgetRow[] = [];
    for (const c of cases) {
      log(`listenbrainz-reads: ${c.label} …`);
      // The first call computes (stats are then served per listen version, as the journey's).
      const first = performance.now();
      await get(c.path);
      const firstMs = performance.now() - first;
      const samples = await timeCalls(() => get(c.path), {
        runs,
        maxSeconds,
        minRuns: 30,
        warmRuns: 3,
      });
      const p99 = percentile(samples, 99);
      rows.push({
        step: "listenbrainz-reads",
        metric: `p99 GET ${c.label}`,
        measured: `${ms(p99)} (p50 ${ms(percentile(samples, 50))}, n=${samples.length}; first call ${ms(firstMs)})`,
        budget: `≤ ${c.budget} ms`,
        pass: p99 <= c.budget,
      });
    }
    return {
      step: "listenbrainz-reads",
      rows,
      notes: [
        "PGlite on disk (a temp DATA_DIR), the whole handler per call (a rate-limit write included), after the aggregate job and VACUUM ANALYZE of the history and the journey's aggregates (what the server's maintenance does on PGlite)",
        ...facts,
      ],
      seconds: 0,
    };
  } finally {
    setDatabase(undefined);
    await opened?.close();
    data.cleanup();
  }
}
