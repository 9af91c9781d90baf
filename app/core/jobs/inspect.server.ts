import { sql } from "drizzle-orm";
import { type DbOrTx, rowsOf } from "~/db/client.server";
import { JOB_STATUSES, type JobStatus, jobs } from "~/db/schema";

/** How many jobs of each kind are in each state, and how long the oldest due one has waited. */
export interface JobKindCounts {
  kind: string;
  counts: Record<JobStatus, number>;
  /** Seconds the oldest due, queued job has waited (0 when none waits). */
  oldestWaitSeconds: number;
}

export async function countJobs(db: DbOrTx): Promise<JobKindCounts[]> {
  const rows = rowsOf<{ kind: string; status: JobStatus; n: number; oldest: number | null }>(
    await db.execute(sql`
      select kind, status, count(*)::int as n,
        extract(epoch from now() - min(run_at) filter (where status = 'queued' and run_at <= now()))::float8 as oldest
      from ${jobs} group by 1, 2 order by 1, 2`),
  );
  const byKind = new Map<string, JobKindCounts>();
  for (const row of rows) {
    const entry = byKind.get(row.kind) ?? {
      kind: row.kind,
      counts: Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>,
      oldestWaitSeconds: 0,
    };
    entry.counts[row.status] = Number(row.n);
    if (row.oldest !== null) {
      entry.oldestWaitSeconds = Math.max(entry.oldestWaitSeconds, Number(row.oldest));
    }
    byKind.set(row.kind, entry);
  }
  return [...byKind.values()];
}

export interface JobRow {
  id: number;
  kind: string;
  key: string | null;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  createdAt: Date;
  finishedAt: Date | null;
  lastError: string | null;
  lockedBy: string | null;
  progress: Record<string, unknown> | null;
}

/** Jobs (of a kind, in a state), the most recent first, with the total for paging. */
export async function listJobRows(
  db: DbOrTx,
  options: { kind?: string; status?: JobStatus; offset: number; limit: number },
): Promise<{ rows: JobRow[]; total: number }> {
  const where = sql`(${options.kind ?? null}::text is null or kind = ${options.kind ?? null})
    and (${options.status ?? null}::text is null or status = ${options.status ?? null})`;
  const [count] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from ${jobs} where ${where}`),
  );
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      select id, kind, key, status, attempts, max_attempts, run_at, created_at, finished_at,
        last_error, locked_by, progress
      from ${jobs} where ${where}
      order by coalesce(finished_at, run_at) desc, id desc
      limit ${options.limit} offset ${options.offset}`),
  );
  return {
    total: Number(count?.n ?? 0),
    rows: rows.map((r) => ({
      id: Number(r.id),
      kind: String(r.kind),
      key: (r.key as string | null) ?? null,
      status: r.status as JobStatus,
      attempts: Number(r.attempts),
      maxAttempts: Number(r.max_attempts),
      runAt: new Date(r.run_at as string),
      createdAt: new Date(r.created_at as string),
      finishedAt: r.finished_at ? new Date(r.finished_at as string) : null,
      lastError: (r.last_error as string | null) ?? null,
      lockedBy: (r.locked_by as string | null) ?? null,
      progress: (r.progress as Record<string, unknown> | null) ?? null,
    })),
  };
}

/**
 * A dead job queued again, its attempts reset (an admin's retry). When a job with the same key
 * already waits, that one covers it and this one is removed. Returns the job's kind, or null
 * when it is not dead (gone, or already retried).
 */
export async function retryDeadJob(db: DbOrTx, id: number): Promise<string | null> {
  const [row] = rowsOf<{ kind: string; key: string | null }>(
    await db.execute(sql`select kind, key from ${jobs} where id = ${id} and status = 'dead'
      for update`),
  );
  if (!row) return null;
  const twin = row.key
    ? rowsOf(
        await db.execute(sql`select 1 from ${jobs} where kind = ${row.kind} and key = ${row.key}
          and status = 'queued'`),
      )
    : [];
  if (twin.length > 0) {
    await db.execute(sql`delete from ${jobs} where id = ${id}`);
  } else {
    await db.execute(sql`update ${jobs} set status = 'queued', attempts = 0, run_at = now(),
      finished_at = null where id = ${id}`);
    await db.execute(sql`select pg_notify('soundtrail_jobs', ${row.kind})`);
  }
  return row.kind;
}

/**
 * Removes a job that waits or is dead (never one that runs: it is finished or it dies first).
 * Returns its kind and payload, or null when there was no such job.
 */
export async function discardJob(
  db: DbOrTx,
  id: number,
): Promise<{ kind: string; payload: Record<string, unknown>; status: JobStatus } | null> {
  const [row] = rowsOf<{ kind: string; payload: Record<string, unknown>; status: JobStatus }>(
    await db.execute(sql`delete from ${jobs} where id = ${id} and status in ('queued', 'dead')
      returning kind, payload, status`),
  );
  return row ?? null;
}
