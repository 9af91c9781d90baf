import { sql } from "drizzle-orm";
import { type Database, type DatabaseHandle, rowsOf } from "~/db/client.server";
import { yieldToRequests } from "./jobs/index.server";
import { logger } from "./logger.server";
import { observeMaintenance } from "./metrics.server";

/*
 * Maintenance of the database (docs/decisions/019-embedded-maintenance.md). PGlite runs no
 * autovacuum, and every query of the process goes through its one connection, so the work is
 * cut into steps of one short statement each, and whatever requests queued up behind a step run
 * before the next one starts:
 *
 * 1. purge rows nobody can use any more (expired sessions, codes and links, spent rate-limit
 *    windows, accepted TOTP codes past their replay window, expired data exports, finished
 *    jobs), at most PURGE_BATCH rows per statement;
 * 2. `VACUUM (ANALYZE)` of each table whose dead rows pass autovacuum's own threshold
 *    (50 + 20 % of its live rows, but never more than DEAD_ROWS_CAP), one table per
 *    statement, so the space is reused;
 * 3. `ANALYZE` of each table changed by more than 50 + 10 % of its rows since its last analyze
 *    (autovacuum's analyze threshold), so the planner's statistics follow large changes.
 *
 * Between two steps the event loop turns and page views waiting for a turn go first (PGlite
 * answers in microtasks: without that, nothing else — not even /healthz — ran until the whole
 * run ended). PGlite's statistics start from zero at every start, so what they counted is
 * carried across restarts in `maintenance_tables`.
 *
 * On PostgreSQL only the purges run (autovacuum does the rest); they are idempotent, so several
 * instances doing them is harmless.
 */

/** Rows one purge statement deletes at most: one step holds the connection for ~ms, not seconds. */
export const PURGE_BATCH = 1000;

interface Purge {
  table: string;
  /** Which rows are of no use any more. */
  where: string;
}

/** What is purged, table by table. Nothing a person can still see or use. */
export const PURGES: readonly Purge[] = [
  // better-auth sessions past their end: the cookie no longer signs anybody in.
  { table: "session", where: "expires_at < now()" },
  // E-mail links, texted codes, OAuth state past their validity.
  { table: "verification", where: "expires_at < now()" },
  // A window that ended counts from 1 again on the next hit: the row tells nothing.
  { table: "rate_limits", where: "reset_at < now()" },
  // Replay protection needs a code for a few 30 s periods; a day is plenty.
  { table: "totp_used_codes", where: "used_at < now() - interval '1 day'" },
  // "Your data" archives past their 7 days (the link already refuses them).
  { table: "data_exports", where: "expires_at < now()" },
  // Finished jobs stay a day for the admin page; dead ones a month for an admin to look at.
  { table: "jobs", where: "status = 'done' and finished_at < now() - interval '1 day'" },
  { table: "jobs", where: "status = 'dead' and finished_at < now() - interval '30 days'" },
  // Fedify's cache of remote documents and keys, and its inbox idempotence, past their TTL.
  { table: "federation_kv", where: "expires_at < now()" },
];

export type MaintenanceStep =
  | { kind: "purge"; table: string; rows: number; ms: number }
  | { kind: "vacuum" | "analyze"; table: string; ms: number }
  | { kind: "stats"; ms: number };

export interface MaintenanceReport {
  steps: MaintenanceStep[];
  purged: Record<string, number>;
  vacuumed: string[];
  analyzed: string[];
  /** The longest single step: the longest any other query waited for this run. */
  longestStepMs: number;
  /** True when stopped early (shutdown). */
  stopped: boolean;
}

export interface MaintenanceOptions {
  /** Vacuum and analyze too (PGlite: yes; PostgreSQL: autovacuum does it). */
  vacuum: boolean;
  /** Called after each step (tests and the bench watch the steps). */
  onStep?: (step: MaintenanceStep) => void;
  /** Checked between steps: true stops the run (shutdown). */
  shouldStop?: () => boolean;
}

interface TableStats {
  name: string;
  live: number;
  dead: number;
  modified: number;
}

/**
 * Each table's dead and changed rows: what the statistics count since the server started, plus
 * what was counted before a restart and not yet vacuumed or analyzed (`maintenance_tables`).
 * Saves what it read, so a restart before the next run loses nothing counted so far.
 */
async function tableStats(db: Database): Promise<TableStats[]> {
  // PGlite reports its counters only when asked to: flush them, then read.
  await db.execute(sql`select pg_stat_force_next_flush()`);
  const rows = rowsOf<{
    name: string;
    live: string;
    dead: string;
    modified: string;
    carried_dead: string | null;
    carried_modified: string | null;
  }>(
    await db.execute(sql`
      with current as (
        select relname as name, n_live_tup as live, n_dead_tup as dead,
          n_mod_since_analyze as modified, pg_postmaster_start_time() as started
        from pg_stat_user_tables where schemaname = 'public'
      ),
      saved as (
        insert into maintenance_tables as m (table_name, carried_dead, carried_modified,
          seen_dead, seen_modified, server_start)
        select c.name, 0, 0, c.dead, c.modified, c.started from current c
        on conflict (table_name) do update set
          carried_dead = case when m.server_start <> excluded.server_start
            then m.carried_dead + m.seen_dead else m.carried_dead end,
          carried_modified = case when m.server_start <> excluded.server_start
            then m.carried_modified + m.seen_modified else m.carried_modified end,
          seen_dead = excluded.seen_dead, seen_modified = excluded.seen_modified,
          server_start = excluded.server_start
        returning table_name, carried_dead, carried_modified
      )
      select c.name, c.live::text as live, c.dead::text as dead, c.modified::text as modified,
        s.carried_dead::text as carried_dead, s.carried_modified::text as carried_modified
      from current c join saved s on s.table_name = c.name
      order by c.name`),
  );
  return rows.map((r) => ({
    name: r.name,
    live: Number(r.live),
    dead: Number(r.dead) + Number(r.carried_dead ?? 0),
    modified: Number(r.modified) + Number(r.carried_modified ?? 0),
  }));
}

/** After a vacuum (dead and changed rows handled) or an analyze (changed rows), nothing carried. */
async function forgetCarried(db: Database, table: string, vacuumed: boolean): Promise<void> {
  await db.execute(sql`update maintenance_tables set carried_modified = 0, seen_modified = 0
    ${vacuumed ? sql`, carried_dead = 0, seen_dead = 0` : sql``}
    where table_name = ${table}`);
}

/**
 * Dead rows past which a table is vacuumed however large it is: with autovacuum's 20 % alone, a
 * table of 1.5M likes would wait for 300,000 dead rows and then vacuum them in one long step.
 * Vacuuming at 10,000 keeps each step in proportion to an interval's churn (the visibility map
 * lets VACUUM skip the pages untouched since the last run).
 */
export const DEAD_ROWS_CAP = 10_000;

/**
 * Autovacuum's defaults — vacuum past 50 + 20 % dead rows (capped at DEAD_ROWS_CAP), analyze
 * past 50 + 10 % changed.
 */
export const needsVacuum = (t: TableStats) => t.dead > Math.min(50 + 0.2 * t.live, DEAD_ROWS_CAP);
export const needsAnalyze = (t: TableStats) => t.modified > 50 + 0.1 * t.live;

/** One maintenance run; see the top of this file. */
export async function runMaintenance(
  db: Database,
  options: MaintenanceOptions,
): Promise<MaintenanceReport> {
  const report: MaintenanceReport = {
    steps: [],
    purged: {},
    vacuumed: [],
    analyzed: [],
    longestStepMs: 0,
    stopped: false,
  };
  const step = async <T>(
    run: () => Promise<T>,
    summarize: (result: T, ms: number) => MaintenanceStep,
  ) => {
    // The next statement queues behind whatever requests queued during the last one: PGlite
    // serves its queue first in, first out, so no request waits for more than one step.
    const started = performance.now();
    const result = await run();
    const done = summarize(result, performance.now() - started);
    report.steps.push(done);
    report.longestStepMs = Math.max(report.longestStepMs, done.ms);
    options.onStep?.(done);
    // Page views waiting for a turn (and the event loop itself) go before the next step.
    await yieldToRequests();
    return result;
  };
  const stop = () => {
    if (options.shouldStop?.()) report.stopped = true;
    return report.stopped;
  };

  for (const purge of PURGES) {
    report.purged[purge.table] = 0;
    for (;;) {
      if (stop()) return report;
      const deleted = await step(
        async () => {
          const result = await db.execute(
            sql.raw(`delete from "${purge.table}" where ctid = any(array(
              select ctid from "${purge.table}" where ${purge.where} limit ${PURGE_BATCH}))`),
          );
          return Number(
            (result as { rowCount?: number; affectedRows?: number }).rowCount ??
              (result as { affectedRows?: number }).affectedRows ??
              0,
          );
        },
        (rows, ms) => ({ kind: "purge", table: purge.table, rows, ms }),
      );
      report.purged[purge.table] = (report.purged[purge.table] ?? 0) + deleted;
      if (deleted < PURGE_BATCH) break;
    }
  }
  if (!options.vacuum) return report;

  const stats = await step(
    () => tableStats(db),
    (_, ms) => ({ kind: "stats", ms }),
  );
  for (const table of stats) {
    if (stop()) return report;
    if (needsVacuum(table)) {
      await step(
        () => db.execute(sql.raw(`vacuum (analyze) "${table.name}"`)),
        (_, ms) => ({ kind: "vacuum", table: table.name, ms }),
      );
      await forgetCarried(db, table.name, true);
      report.vacuumed.push(table.name);
    } else if (needsAnalyze(table)) {
      await step(
        () => db.execute(sql.raw(`analyze "${table.name}"`)),
        (_, ms) => ({ kind: "analyze", table: table.name, ms }),
      );
      await forgetCarried(db, table.name, false);
      report.analyzed.push(table.name);
    }
  }
  return report;
}

// --- The schedule in the server -------------------------------------------------------------

let timer: NodeJS.Timeout | undefined;
let running: Promise<unknown> | undefined;
let stopping = false;

/**
 * Runs maintenance every `intervalMinutes` (0: never), the first time a minute after start.
 * PGlite gets the full run, PostgreSQL the purges.
 */
export function startMaintenance(handle: DatabaseHandle, intervalMinutes: number): void {
  stopMaintenance();
  stopping = false;
  if (intervalMinutes <= 0) return;
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = runMaintenance(handle.db, {
        vacuum: handle.kind === "pglite",
        shouldStop: () => stopping,
      })
        .then((report) => {
          observeMaintenance(report);
          const purged = Object.values(report.purged).reduce((a, b) => a + b, 0);
          logger.info(
            {
              purged: report.purged,
              vacuumed: report.vacuumed,
              analyzed: report.analyzed,
              steps: report.steps.length,
              longestStepMs: Math.round(report.longestStepMs),
            },
            `database maintenance: ${purged} rows purged, ${report.vacuumed.length} tables vacuumed`,
          );
        })
        .catch((error: unknown) => logger.warn({ err: error }, "database maintenance failed"))
        .finally(() => {
          running = undefined;
          if (!stopping) schedule(intervalMinutes * 60_000);
        });
    }, delayMs);
    timer.unref();
  };
  schedule(60_000);
}

/** Stops the schedule; resolves once a run in progress has stopped at its next step. */
export async function stopMaintenance(): Promise<void> {
  stopping = true;
  if (timer) clearTimeout(timer);
  timer = undefined;
  await running;
}
