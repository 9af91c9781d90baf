import { sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { SERVER_NODE_FLAGS } from "../server/node-flags";
import {
  insertAccounts,
  type LiveAccount,
  type LiveServer,
  signIn,
  startLiveServer,
} from "../tests/support/live-server";
import { loadPeople, seedLoad, signInPeople } from "../tests/support/load-workload";
import { type BudgetRow, log, ms, percentile, type StepOutcome } from "./lib/report";
import {
  loop,
  METRICS_TOKEN,
  metrics,
  metricValue,
  type Timings,
  timings,
  waitForJobs,
} from "./lib/traffic";

/**
 * Issue 36: heavy listeners in the mix. HEAVY people (BENCH_HEAVY_PEOPLE, default 20) with PLAYS
 * plays each (BENCH_HEAVY_PLAYS, default 200,000) and 50 page-view clients on the production
 * server on PGlite, started with the heap flags `npm start` uses. After the server's own job has
 * aggregated every history (timed, for information):
 *
 * 1. unloaded: the 50 clients read their feed for BENCH_HEAVY_SECONDS (default 20) — p50/p99;
 * 2. loaded: the same, while 5 heavy people keep opening their journey for a period never asked
 *    for before (always cold: a random span of days), and one of them asks for their data export
 *    (every play streamed into a zip). Budgets: page views' p99 ≤ 3× unloaded, no 503,
 *    `/healthz` never over 200 ms, the event loop's longest delay (from /metrics) ≤ 100 ms, and
 *    server RSS at most +50 MB over the unloaded run. The journey pages' latency as their people
 *    see it (waiting for the heavy lane's turn included) is information; the stats' own budget
 *    (≤ 50 ms for any period) is the journey-stats step's.
 */

const HEAVY = Number(process.env.BENCH_HEAVY_PEOPLE ?? 20);
const PLAYS = Number(process.env.BENCH_HEAVY_PLAYS ?? 200_000);
const SECONDS = Number(process.env.BENCH_HEAVY_SECONDS ?? 20);
const COLD_AT_ONCE = 5;
const YEARS = 5;
const NOW = Date.now();

const heavyPeople: LiveAccount[] = Array.from({ length: HEAVY }, (_, i) => ({
  id: `bench-heavy-${i}`,
  email: `heavy${i}@heavy.bench.test`,
  username: `heavy_${i}`,
  displayName: `Heavy ${i}`,
}));

/** Each heavy person's plays: one every 5 years ÷ PLAYS, 2,000 artists with skewed popularity. */
async function seedHeavy(db: Database): Promise<void> {
  await insertAccounts(db, heavyPeople);
  const span = YEARS * 365 * 86_400;
  const start = new Date(NOW - span * 1000).toISOString();
  const step = span / PLAYS;
  for (const [n, person] of heavyPeople.entries()) {
    for (let from = 0; from < PLAYS; from += 100_000) {
      const to = Math.min(PLAYS, from + 100_000) - 1;
      await db.execute(sql`insert into listens (user_id, listened_at, duration_ms, artist_name,
          track_name, release_name, artist_key, track_key, release_key, source)
        select ${person.id}, ${start}::timestamptz + make_interval(secs => floor(i * ${step}::float8)),
          180000 + (i % 120) * 1000,
          'Artist ' || a, 'Track ' || a || '.' || (i % 10), 'Album ' || a || '.' || (i % 3),
          'artist ' || a, 'track ' || a || ' ' || (i % 10), 'album ' || a || ' ' || (i % 3), 'scrobble'
        from generate_series(${from}::int, ${to}::int) as i,
          lateral (select floor(2000 * power((((i + ${n * 7})::bigint * 7919) % 10007) / 10007.0, 3))::int as a) x`);
    }
    log(`heavy-listeners: ${n + 1} of ${HEAVY} heavy people seeded (${PLAYS} plays each)`);
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function benchHeavyListeners(): Promise<StepOutcome> {
  const started = performance.now();
  const browsers = loadPeople(50);
  log(`heavy-listeners: seeding ${HEAVY} × ${PLAYS} plays and 50 page-view people`);
  const server: LiveServer = await startLiveServer({
    seed: async (db) => {
      await seedLoad(db, browsers);
      await seedHeavy(db);
    },
    env: {
      NODE_OPTIONS: SERVER_NODE_FLAGS.join(" "),
      METRICS_TOKEN,
      // info: the embedded database's slow statements (over 100 ms, a line a second at most).
      LOG_LEVEL: "info",
    },
  });
  try {
    const base = server.base;
    // The server's own job aggregates every history (queued at start for plays it has not seen).
    const aggregateSeconds = await waitForJobs(base, "journey.aggregate");
    log(`heavy-listeners: histories aggregated in ${aggregateSeconds.toFixed(0)} s`);

    const rssAtRest = server.rss() ?? 0;
    const signedIn = await signInPeople(base, browsers);
    const heavyCookies = await Promise.all(
      heavyPeople.slice(0, COLD_AT_ONCE).map((p, i) => signIn(base, p.email, `100.65.0.${i + 1}`)),
    );
    const browse = (until: () => boolean, into: Timings) =>
      Promise.all(
        signedIn.map((person) =>
          loop(
            base,
            () => "/feed",
            { Cookie: person.cookie, "X-Forwarded-For": person.ip },
            until,
            into,
          ),
        ),
      );

    // 1. Unloaded.
    await metrics(base); // resets the event loop histogram
    let end = Date.now() + SECONDS * 1000;
    const unloaded = timings();
    await browse(() => Date.now() > end, unloaded);
    const unloadedMetrics = await metrics(base);
    const rssUnloaded = server.rss() ?? 0;
    log(`heavy-listeners: unloaded ${unloaded.samples.length} page views`);

    // 2. Loaded: cold journeys, an export, page views and health checks at once.
    const exportResponse = await fetch(`${base}/settings/data`, {
      method: "POST",
      redirect: "manual",
      headers: {
        Cookie: heavyCookies[0] ?? "",
        Origin: base,
        "X-Forwarded-For": "100.65.0.1",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "",
    });
    await exportResponse.arrayBuffer();
    end = Date.now() + SECONDS * 1000;
    const loaded = timings();
    const journeys = timings();
    const health = timings();
    let rssPeak = 0;
    const rssTimer = setInterval(() => {
      rssPeak = Math.max(rssPeak, server.rss() ?? 0);
    }, 100);
    const span = YEARS * 365 * 86_400_000;
    let seed = 1;
    const coldPeriod = () => {
      seed = (seed * 48271) % 2147483647;
      const from = NOW - span + (seed % (span / 86_400_000 - 400)) * 86_400_000;
      const days = 7 + (seed % 380);
      return `?from=${day(from)}&to=${day(from + days * 86_400_000)}`;
    };
    await Promise.all([
      browse(() => Date.now() > end, loaded),
      ...heavyCookies.map((cookie, i) =>
        loop(
          base,
          () => `/u/${heavyPeople[i]?.username}/journey${coldPeriod()}`,
          { Cookie: cookie, "X-Forwarded-For": `100.65.0.${i + 1}` },
          () => Date.now() > end,
          journeys,
        ),
      ),
      (async () => {
        while (Date.now() <= end) {
          const started = performance.now();
          await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
          health.samples.push(performance.now() - started);
          await new Promise((r) => setTimeout(r, 100));
        }
      })(),
    ]);
    clearInterval(rssTimer);
    const loadedMetrics = await metrics(base);
    const exportDone = metricValue(loadedMetrics, "soundtrail_jobs", {
      kind: "settings.data-export",
      status: "done",
    });
    log(
      `heavy-listeners: loaded ${loaded.samples.length} page views, ${journeys.samples.length} journeys`,
    );

    const p = (t: Timings, q: number) => percentile(t.samples, q);
    const ratio = p(loaded, 0.99) / p(unloaded, 0.99);
    const busy =
      (loaded.statuses.get(503) ?? 0) +
      (journeys.statuses.get(503) ?? 0) +
      (health.statuses.get(503) ?? 0);
    const lag = (text: string) =>
      metricValue(text, "soundtrail_nodejs_eventloop_lag_max_seconds") * 1000;
    const rssGrowth = rssPeak - rssUnloaded;
    const over = (text: string, overMs: number) =>
      metricValue(text, "soundtrail_embedded_statements_over_total", { over_ms: String(overMs) });
    const slowLines = server
      .output()
      .split("\n")
      .filter((line) => line.includes("slow statement on the embedded database"))
      .map((line) => {
        try {
          const entry = JSON.parse(line) as { ms: number; statement: string };
          return `${entry.ms} ms ${entry.statement.slice(0, 80)}`;
        } catch {
          return line.slice(0, 120);
        }
      });
    const rows: BudgetRow[] = [
      {
        step: "heavy-listeners",
        metric: `page views p99 loaded ÷ unloaded (${HEAVY} × ${PLAYS} plays, 50 clients)`,
        measured: `${ratio.toFixed(2)} (${ms(p(unloaded, 0.99))} → ${ms(p(loaded, 0.99))})`,
        budget: "≤ 3",
        pass: ratio <= 3,
      },
      {
        step: "heavy-listeners",
        metric: "503 answers while loaded",
        measured: String(busy),
        budget: "0",
        pass: busy === 0,
      },
      {
        step: "heavy-listeners",
        metric: `cold journey pages p99 as their people wait (${COLD_AT_ONCE} at once, a new period each, one heavy turn)`,
        measured: `${ms(p(journeys, 0.99))} (p50 ${ms(p(journeys, 0.5))}, ${journeys.samples.length} views)`,
        budget: "(information; the stats' own ≤ 50 ms: journey-stats)",
        pass: null,
      },
      {
        step: "heavy-listeners",
        metric: "/healthz slowest while loaded",
        measured: ms(Math.max(...health.samples)),
        budget: "≤ 200 ms",
        pass: Math.max(...health.samples) <= 200,
      },
      {
        step: "heavy-listeners",
        metric: "event loop's longest delay, unloaded → loaded",
        measured: `${ms(lag(unloadedMetrics))} → ${ms(lag(loadedMetrics))}`,
        budget: "≤ 100 ms",
        pass: lag(loadedMetrics) <= 100,
      },
      {
        step: "heavy-listeners",
        metric:
          "embedded statements over 100 ms / over 500 ms: start to unloaded end (aggregation included) → loaded run",
        measured: `${over(unloadedMetrics, 100)} / ${over(unloadedMetrics, 500)} → ${over(loadedMetrics, 100) - over(unloadedMetrics, 100)} / ${over(loadedMetrics, 500) - over(unloadedMetrics, 500)}`,
        budget: "(information: each holds every request)",
        pass: null,
      },
      {
        step: "heavy-listeners",
        metric: "server RSS at rest → 50 clients → heavy listeners active (peak)",
        measured: `${mb(rssAtRest)} → ${mb(rssUnloaded)} → ${mb(rssPeak)}`,
        budget: "(information)",
        pass: null,
      },
      {
        step: "heavy-listeners",
        metric: "server RSS, peak loaded − unloaded",
        measured: `${mb(rssGrowth)} (${mb(rssUnloaded)} → ${mb(rssPeak)})`,
        budget: "≤ 50 MB",
        pass: rssGrowth <= 50 * 1024 * 1024,
      },
    ];
    return {
      step: "heavy-listeners",
      rows,
      notes: [
        `the server's job aggregated ${HEAVY * PLAYS} plays in ${aggregateSeconds.toFixed(0)} s`,
        `page views unloaded: p50 ${ms(p(unloaded, 0.5))}, ${unloaded.samples.length} in ${SECONDS} s; loaded: p50 ${ms(p(loaded, 0.5))}, ${loaded.samples.length}`,
        `answers loaded: ${JSON.stringify(Object.fromEntries(loaded.statuses))}, journeys ${JSON.stringify(Object.fromEntries(journeys.statuses))}`,
        `slowest statements logged (a line a second at most): ${slowLines.slice(-12).join(" | ") || "none"}`,
        `the export (an archive of ${PLAYS} plays) ${exportDone > 0 ? "was ready" : "was still running"} at the end of the loaded run`,
      ],
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await server.stop();
  }
}
