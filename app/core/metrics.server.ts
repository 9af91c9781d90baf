import { sql } from "drizzle-orm";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import {
  embeddedStatementStats,
  getDatabase,
  rowsOf,
  STATEMENT_BUCKETS_MS,
} from "~/db/client.server";
import { databaseOutageCounts } from "~/db/unavailable.server";
import { countJobs, type JobKindCounts } from "./jobs/inspect.server";

/*
 * What `/metrics` reports (Prometheus text format, prom-client), per instance: requests and
 * their latency by route id (never the raw URL: one series per route, whatever the ids in the
 * path), open live streams, the mail outbox by status and the delivery failures, the database
 * connections, the last maintenance run, and Node's own process metrics. The server only
 * answers it when METRICS_TOKEN is set, to `Authorization: Bearer <token>`.
 */

export const registry = new Registry();

/** How many live streams this instance has open; the app wires in its live hub at boot. */
let liveStreamCount: () => number = () => 0;
export function countLiveStreamsWith(count: () => number): void {
  liveStreamCount = count;
}
registry.setDefaultLabels({ service: "soundtrail" });
collectDefaultMetrics({ register: registry, prefix: "soundtrail_" });

const requests = new Counter({
  name: "soundtrail_http_requests_total",
  help: "HTTP requests answered, by route id, method and status code.",
  labelNames: ["route", "method", "status"] as const,
  registers: [registry],
});

const latency = new Histogram({
  name: "soundtrail_http_request_duration_seconds",
  help: "Time to answer an HTTP request, by route id and method (live event streams excluded).",
  labelNames: ["route", "method"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** The live event stream route: its "latency" is how long a browser stayed connected. */
const STREAM_ROUTE = "routes/api/events";

/** Records one answered request (called by the server when the response is over). */
export function observeRequest(info: {
  route: string;
  method: string;
  status: number;
  seconds: number;
}): void {
  requests.inc({ route: info.route, method: info.method, status: String(info.status) });
  if (info.route !== STREAM_ROUTE) {
    latency.observe({ route: info.route, method: info.method }, info.seconds);
  }
}

/** The server's admission queue (server/admission.ts), when it has one. */
let admissionStats: () => { active: number; waiting: number } | null = () => null;
export function watchAdmission(stats: () => { active: number; waiting: number }): void {
  admissionStats = stats;
}

new Gauge({
  name: "soundtrail_request_queue_waiting",
  help: "Requests waiting for a turn in this instance's admission queue (0 without admission).",
  registers: [registry],
  collect() {
    this.set(admissionStats()?.waiting ?? 0);
  },
});

new Gauge({
  name: "soundtrail_request_queue_active",
  help: "Requests the app is working on, out of REQUEST_CONCURRENCY turns (0 without admission).",
  registers: [registry],
  collect() {
    this.set(admissionStats()?.active ?? 0);
  },
});

const shed = new Counter({
  name: "soundtrail_requests_shed_total",
  help: "Requests answered 503 Busy at once because the admission queue was full.",
  registers: [registry],
});

/** Counts one request refused because the admission queue was full. */
export function countShedRequest(): void {
  shed.inc();
}

new Counter({
  name: "soundtrail_database_unavailable_total",
  help: "Database failures (unreachable, shut down, out of connections) this instance met, by kind.",
  labelNames: ["kind"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [kind, n] of databaseOutageCounts()) this.inc({ kind }, n);
  },
});

new Counter({
  name: "soundtrail_embedded_statements_over_total",
  help:
    "Embedded-database (PGlite) statements that held the event loop longer than over_ms " +
    "(each one stops every request of the instance while it runs). None on PostgreSQL.",
  labelNames: ["over_ms"] as const,
  registers: [registry],
  collect() {
    this.reset();
    const stats = embeddedStatementStats();
    STATEMENT_BUCKETS_MS.forEach((le, i) => {
      this.inc({ over_ms: String(le) }, stats.total - (stats.counts[i] ?? 0));
    });
  },
});

new Gauge({
  name: "soundtrail_embedded_statement_longest_seconds",
  help: "The longest embedded-database (PGlite) statement since the start, in seconds.",
  registers: [registry],
  collect() {
    this.set(embeddedStatementStats().longestMs / 1000);
  },
});

new Gauge({
  name: "soundtrail_sse_connections",
  help: "Live event streams (Server-Sent Events) open on this instance.",
  registers: [registry],
  collect() {
    this.set(liveStreamCount());
  },
});

const MAIL_STATUSES = ["pending", "sending", "sent", "failed", "dead", "uncertain"] as const;

new Gauge({
  name: "soundtrail_mail_outbox",
  help: "Mails in the outbox by status (shared by every instance). pending + failed is the queue.",
  labelNames: ["status"] as const,
  registers: [registry],
  async collect() {
    const counts = new Map<string, number>(MAIL_STATUSES.map((s) => [s, 0]));
    try {
      const rows = rowsOf<{ status: string; n: string }>(
        await getDatabase().db.execute(
          sql`select status, count(*)::text as n from mail_outbox group by status`,
        ),
      );
      for (const row of rows) counts.set(row.status, Number(row.n));
    } catch {
      // The database is unreachable: the last values stay; the pool gauges tell the story.
      return;
    }
    for (const [status, n] of counts) this.set({ status }, n);
  },
});

/** The job system's counts, read once per scrape for both job gauges. */
let jobCounts: { at: number; rows: Promise<JobKindCounts[]> } | null = null;
function readJobCounts(): Promise<JobKindCounts[]> {
  if (!jobCounts || Date.now() - jobCounts.at > 1000) {
    jobCounts = { at: Date.now(), rows: countJobs(getDatabase().db) };
  }
  return jobCounts.rows;
}

new Gauge({
  name: "soundtrail_jobs",
  help: "Background jobs by kind and state (shared by every instance): queued, running, done (kept a day), dead (kept a month).",
  labelNames: ["kind", "status"] as const,
  registers: [registry],
  async collect() {
    try {
      for (const row of await readJobCounts()) {
        for (const [status, n] of Object.entries(row.counts))
          this.set({ kind: row.kind, status }, n);
      }
    } catch {
      // The database is unreachable: the last values stay.
    }
  },
});

new Gauge({
  name: "soundtrail_job_oldest_wait_seconds",
  help: "How long the oldest due, queued job of each kind has waited (0: none waits).",
  labelNames: ["kind"] as const,
  registers: [registry],
  async collect() {
    try {
      for (const row of await readJobCounts()) this.set({ kind: row.kind }, row.oldestWaitSeconds);
    } catch {
      // The database is unreachable: the last values stay.
    }
  },
});

const mailFailures = new Counter({
  name: "soundtrail_mail_delivery_failures_total",
  help: "Mail deliveries that failed on this instance, by outcome (failed: retried later; dead: gave up; uncertain: no answer after the end of the message).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

/** Counts a failed delivery (called by the mail sender). */
export function countMailFailure(outcome: "failed" | "dead" | "uncertain"): void {
  mailFailures.inc({ outcome });
}

new Gauge({
  name: "soundtrail_db_connections",
  help: "Database connections of this instance: total, idle and requests waiting for one (PostgreSQL pool; the embedded database has one connection).",
  labelNames: ["state"] as const,
  registers: [registry],
  collect() {
    let handle: ReturnType<typeof getDatabase> | undefined;
    try {
      handle = getDatabase();
    } catch {
      return;
    }
    const pool = handle.pool;
    this.set({ state: "total" }, pool ? pool.totalCount : 1);
    this.set({ state: "idle" }, pool ? pool.idleCount : 0);
    this.set({ state: "waiting" }, pool ? pool.waitingCount : 0);
  },
});

const maintenanceRuns = new Counter({
  name: "soundtrail_db_maintenance_runs_total",
  help: "Database maintenance runs finished on this instance.",
  registers: [registry],
});
const maintenanceLongestStep = new Gauge({
  name: "soundtrail_db_maintenance_longest_step_seconds",
  help: "The longest single step of the last maintenance run (the longest any request waited for it on the embedded database).",
  registers: [registry],
});
const maintenancePurged = new Counter({
  name: "soundtrail_db_maintenance_purged_rows_total",
  help: "Rows purged by maintenance (expired sessions, codes, rate-limit windows …), by table.",
  labelNames: ["table"] as const,
  registers: [registry],
});

/** Records a finished maintenance run. */
export function observeMaintenance(report: {
  purged: Record<string, number>;
  longestStepMs: number;
}): void {
  maintenanceRuns.inc();
  maintenanceLongestStep.set(report.longestStepMs / 1000);
  for (const [table, rows] of Object.entries(report.purged)) {
    if (rows > 0) maintenancePurged.inc({ table }, rows);
  }
}

/** The Prometheus text of every metric. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
