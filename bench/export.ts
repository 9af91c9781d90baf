import { sql } from "drizzle-orm";
import { SERVER_NODE_FLAGS } from "../server/node-flags";
import {
  insertAccounts,
  type LiveAccount,
  signIn,
  startLiveServer,
} from "../tests/support/live-server";
import { log, ms, type StepOutcome } from "./lib/report";
import { METRICS_TOKEN, metrics, metricValue, waitForJobs } from "./lib/traffic";

/**
 * Issue 36: "Prepare my data" for one person with BENCH_EXPORT_PLAYS plays (default 1,000,000)
 * on the production server on PGlite, started with the heap flags `npm start` uses (a 256 MB old
 * generation: the old in-memory archive aborted the process at 500,000). The archive is asked
 * for as the settings page does and downloaded whole. Budgets: the server's RSS at most +50 MB
 * over its RSS before, sampled every 100 ms through the archive and the download; the event
 * loop's longest delay (from /metrics) ≤ 100 ms; the archive complete (its size as announced).
 */

const PLAYS = Number(process.env.BENCH_EXPORT_PLAYS ?? 1_000_000);
const EXPORTER: LiveAccount = {
  id: "bench-exporter",
  email: "exporter@export.bench.test",
  username: "bench_exporter",
  displayName: "Exporter",
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export async function benchExport(): Promise<StepOutcome> {
  const started = performance.now();
  log(`export: seeding ${PLAYS} plays`);
  const server = await startLiveServer({
    seed: async (db) => {
      await insertAccounts(db, [EXPORTER]);
      for (let from = 1; from <= PLAYS; from += 100_000) {
        const to = Math.min(PLAYS, from + 99_999);
        await db.execute(sql`insert into listens (user_id, listened_at, duration_ms, artist_name,
            track_name, release_name, artist_key, track_key, release_key, source)
          select ${EXPORTER.id}, timestamptz '2015-01-01' + make_interval(mins => i * 3), 180000,
            'Artist ' || (i % 2003), 'Track ' || (i % 50021), 'Album ' || (i % 7001),
            'artist ' || (i % 2003), 'track ' || (i % 50021), 'album ' || (i % 7001), 'scrobble'
          from generate_series(${from}::int, ${to}::int) i`);
      }
    },
    env: { NODE_OPTIONS: SERVER_NODE_FLAGS.join(" "), METRICS_TOKEN, LOG_LEVEL: "warn" },
  });
  try {
    const base = server.base;
    // The journey's aggregation of the new history runs first: this step measures the export.
    const aggregateSeconds = await waitForJobs(base, "journey.aggregate");
    const headers = {
      Cookie: await signIn(base, EXPORTER.email, "100.67.0.1"),
      Origin: base,
      "X-Forwarded-For": "100.67.0.1",
    };
    await metrics(base); // resets the event loop's histogram
    const rssBefore = server.rss() ?? 0;
    let rssPeak = rssBefore;
    const timer = setInterval(() => {
      rssPeak = Math.max(rssPeak, server.rss() ?? 0);
    }, 100);
    const asked = performance.now();
    const response = await fetch(`${base}/settings/data`, {
      method: "POST",
      redirect: "manual",
      headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
      body: "",
    });
    await response.arrayBuffer();
    let lagMs = 0;
    for (;;) {
      const text = await metrics(base);
      lagMs = Math.max(
        lagMs,
        metricValue(text, "soundtrail_nodejs_eventloop_lag_max_seconds") * 1000,
      );
      if (metricValue(text, "soundtrail_jobs", { kind: "settings.data-export", status: "done" })) {
        break;
      }
      if (metricValue(text, "soundtrail_jobs", { kind: "settings.data-export", status: "dead" })) {
        throw new Error("the export failed for good");
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const archiveSeconds = (performance.now() - asked) / 1000;
    // The download link is on the settings page.
    const page = await fetch(`${base}/settings/data`, { headers }).then((r) => r.text());
    const link = /href="(\/settings\/data\/export\/[0-9a-f-]{36})"/.exec(page)?.[1];
    if (!link) throw new Error("no download link on /settings/data");
    const download = await fetch(`${base}${link}`, { headers });
    let bytes = 0;
    const reader = download.body?.getReader();
    for (;;) {
      const part = await reader?.read();
      if (!part || part.done) break;
      bytes += part.value.byteLength;
    }
    clearInterval(timer);
    const finalLag = metricValue(
      await metrics(base),
      "soundtrail_nodejs_eventloop_lag_max_seconds",
    );
    lagMs = Math.max(lagMs, finalLag * 1000);
    const announced = Number(download.headers.get("Content-Length"));
    const growth = rssPeak - rssBefore;
    log(`export: archive of ${mb(bytes)} in ${archiveSeconds.toFixed(1)} s`);
    return {
      step: "export",
      rows: [
        {
          step: "export",
          metric: `server RSS growth, ${PLAYS} plays archived and downloaded`,
          measured: `${mb(growth)} (${mb(rssBefore)} → ${mb(rssPeak)})`,
          budget: "≤ 50 MB",
          pass: growth <= 50 * 1024 * 1024,
        },
        {
          step: "export",
          metric: "event loop's longest delay meanwhile",
          measured: ms(lagMs),
          budget: "≤ 100 ms",
          pass: lagMs <= 100,
        },
        {
          step: "export",
          metric: "archive downloaded whole",
          measured: `${mb(bytes)} of ${mb(announced)}`,
          budget: "all",
          pass: bytes === announced && bytes > 0,
        },
      ],
      notes: [
        `the journey's aggregation of the history took ${aggregateSeconds.toFixed(0)} s before`,
        `the archive took ${archiveSeconds.toFixed(1)} s (${(PLAYS / archiveSeconds).toFixed(0)} plays/s)`,
      ],
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await server.stop();
  }
}
