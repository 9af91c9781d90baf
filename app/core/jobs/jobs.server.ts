import { sql } from "drizzle-orm";
import { type DbOrTx, rowsOf } from "~/db/client.server";
import { jobs } from "~/db/schema";

/*
 * The one durable job system (docs/decisions/030-job-system.md). A job is a row of `jobs`; any
 * instance claims due rows with `FOR UPDATE SKIP LOCKED`, holds them under a lease it renews
 * while it works, and settles them: done, again later (a long job's next slice), retried with
 * exponential back-off, or dead (kept for an admin). Every write a runner makes to a job it
 * holds is fenced by the claim's `lease_token`, so a runner that lost its lease (it stalled, or
 * the process was cut off and another instance took over) changes nothing.
 *
 * This file is the SQL: enqueueing and settling. The loop that claims and runs is runner.server.ts.
 */

/** The NOTIFY channel a committed enqueue wakes runners on; the payload is the job's kind. */
export const JOBS_CHANNEL = "soundtrail_jobs";

/** A job as a handler sees it. */
export interface ActiveJob<P> {
  id: number;
  kind: string;
  payload: P;
  key: string | null;
  /** 1 for the first attempt (since the last progress), 2 for the first retry … */
  attempt: number;
  /** What the job saved last time (`saveProgress`, or an `again` result), or null. */
  progress: Record<string, unknown> | null;
  /**
   * Aborted when this runner stops (shutdown) or lost the job's lease: stop at the next safe
   * point. A job stopped for a shutdown is taken up again without counting an attempt.
   */
  signal: AbortSignal;
  /**
   * Inside a transaction: locks the job's row and checks that this run still holds it; throws
   * {@link JobLeaseLost} otherwise. Writes that must not happen twice go in the same
   * transaction after it: they commit only if the lease was still this run's.
   */
  fence(tx: DbOrTx): Promise<void>;
  /** Saves `progress` (fenced like `fence`), in `tx` when given. Renews the lease. */
  saveProgress(progress: Record<string, unknown>, tx?: DbOrTx): Promise<void>;
  /**
   * Lets waiting page views go first: resolves once the server has no request waiting for a
   * turn (or after a bounded wait, so background work is never starved either), always after
   * a turn of the event loop. Long jobs call it between their steps.
   */
  yield(): Promise<void>;
}

/**
 * What a handler returns: nothing (done), or `again` — run the job once more after `delayMs`
 * (a long job's next slice; the attempts start over, since it made progress).
 */
export type JobResult =
  | undefined
  | { again: { delayMs?: number; progress?: Record<string, unknown> } };

export interface JobDefinition<P> {
  kind: string;
  /** Jobs of this kind one instance runs at once (default 1). */
  concurrency: number;
  /** Default priority of its jobs: lower runs first (default 5). */
  priority: number;
  /** Attempts before the job is dead (default 8). */
  maxAttempts: number;
  /** How long a claim holds before another runner may take the job over (renewed meanwhile). */
  leaseSeconds: number;
  /** Seconds to wait before attempt `attempt + 1` after attempt `attempt` failed. */
  backoffSeconds(attempt: number): number;
  /** Turns the stored payload into the handler's (throw PermanentJobError when it cannot). */
  parse(payload: unknown): P;
  run(job: ActiveJob<P>): Promise<JobResult>;
  /**
   * Called once the job is dead (its last attempt failed, a permanent failure, or an admin
   * discarded it), so the feature can tell the person (an export "failed", say).
   */
  onDead?(payload: P, error: string): Promise<void>;
  /** Queues a job of this kind (in `db`'s transaction when it is one). */
  enqueue(db: DbOrTx, payload: P, options?: EnqueueOptions): Promise<number | null>;
}

export interface EnqueueOptions {
  /** One queued job per key: a second enqueue while one waits does nothing (returns null). */
  key?: string;
  /** Not before this time (default now). */
  runAt?: Date;
  /** Not before this many milliseconds from now. */
  delayMs?: number;
  priority?: number;
  maxAttempts?: number;
  /**
   * With a key: when a job with it already waits, start that one over with this payload (its
   * saved progress dropped) instead of leaving it as it is.
   */
  replace?: boolean;
}

/** A failure retrying cannot fix (bad payload, a refusal): the job is dead at once. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}

/** Thrown by `fence` and `saveProgress` when this run no longer holds the job. */
export class JobLeaseLost extends Error {
  override name = "JobLeaseLost";
  constructor(readonly jobId: number) {
    super(`job ${jobId}: the lease was lost (another runner holds it, or it was settled)`);
  }
}

/**
 * A payload parser for the usual shape, an object of string fields: `parse: stringFields("userId")`.
 * Anything else is a PermanentJobError (the job is dead at once).
 */
export function stringFields<K extends string>(...keys: K[]) {
  return (payload: unknown): Record<K, string> => {
    const out = {} as Record<K, string>;
    for (const key of keys) {
      const value = (payload as Record<string, unknown> | null)?.[key];
      if (typeof value !== "string") throw new PermanentJobError(`the payload has no ${key}`);
      out[key] = value;
    }
    return out;
  };
}

/**
 * Exponential back-off: `base` × 2^(attempt − 1), at most `max`, ±20 % so that many jobs that
 * failed together (an outage) do not come back together.
 */
export function exponentialBackoff(baseSeconds: number, maxSeconds: number) {
  return (attempt: number) => {
    const plain = Math.min(maxSeconds, baseSeconds * 2 ** Math.max(0, attempt - 1));
    return Math.round(plain * (0.8 + Math.random() * 0.4));
  };
}

export interface DefineJobOptions<P> {
  kind: string;
  concurrency?: number;
  priority?: number;
  maxAttempts?: number;
  leaseSeconds?: number;
  backoffSeconds?: (attempt: number) => number;
  parse(payload: unknown): P;
  run(job: ActiveJob<P>): Promise<JobResult>;
  onDead?(payload: P, error: string): Promise<void>;
}

/** A kind of job: how to parse and run it, and its limits. */
export function defineJob<P extends Record<string, unknown>>(
  options: DefineJobOptions<P>,
): JobDefinition<P> {
  if (!/^[a-z][a-z0-9_.-]*$/.test(options.kind)) throw new Error(`bad job kind ${options.kind}`);
  const definition: JobDefinition<P> = {
    kind: options.kind,
    concurrency: options.concurrency ?? 1,
    priority: options.priority ?? 5,
    maxAttempts: options.maxAttempts ?? 8,
    leaseSeconds: options.leaseSeconds ?? 60,
    backoffSeconds: options.backoffSeconds ?? exponentialBackoff(30, 6 * 3600),
    parse: options.parse,
    run: options.run,
    onDead: options.onDead,
    enqueue: (db, payload, enqueueOptions = {}) =>
      enqueueJob(db, {
        kind: options.kind,
        payload,
        priority: enqueueOptions.priority ?? definition.priority,
        maxAttempts: enqueueOptions.maxAttempts ?? definition.maxAttempts,
        key: enqueueOptions.key,
        runAt: enqueueOptions.runAt,
        delayMs: enqueueOptions.delayMs,
        replace: enqueueOptions.replace,
      }),
  };
  return definition;
}

/**
 * Queues a job and wakes the runners (on commit, when `db` is a transaction: a job queued in a
 * transaction that rolls back never existed). Returns its id, or null when a job with the same
 * kind and key is already waiting (with `replace`: that job's id, started over).
 */
export async function enqueueJob(
  db: DbOrTx,
  job: {
    kind: string;
    payload: Record<string, unknown>;
    key?: string;
    runAt?: Date;
    delayMs?: number;
    priority?: number;
    maxAttempts?: number;
    replace?: boolean;
  },
): Promise<number | null> {
  const runAt = job.runAt
    ? sql`${job.runAt.toISOString()}::timestamptz`
    : job.delayMs
      ? sql`now() + make_interval(secs => ${job.delayMs / 1000})`
      : sql`now()`;
  const [row] = rowsOf<{ id: string | number }>(
    await db.execute(sql`
      with queued as (
        insert into ${jobs} (kind, payload, key, priority, max_attempts, run_at)
        values (${job.kind}, ${JSON.stringify(job.payload)}::jsonb, ${job.key ?? null},
          ${job.priority ?? 5}, ${job.maxAttempts ?? 8}, ${runAt})
        on conflict (kind, key) where status = 'queued' and key is not null
        ${
          job.replace
            ? sql`do update set payload = excluded.payload, progress = null, attempts = 0,
                run_at = least(${jobs.runAt}, excluded.run_at)`
            : sql`do nothing`
        }
        returning id
      )
      select id, pg_notify(${JOBS_CHANNEL}, ${job.kind}) from queued`),
  );
  return row ? Number(row.id) : null;
}

/**
 * Queues many jobs of one kind in one statement (a bulk e-mail); returns the ids of those
 * queued (a key already waiting queues nothing).
 */
export async function enqueueJobs(
  db: DbOrTx,
  job: {
    kind: string;
    items: readonly { payload: Record<string, unknown>; key?: string }[];
    delayMs?: number;
    priority?: number;
    maxAttempts?: number;
  },
): Promise<number[]> {
  if (job.items.length === 0) return [];
  const rows = rowsOf<{ id: string | number }>(
    await db.execute(sql`
      with queued as (
        insert into ${jobs} (kind, payload, key, priority, max_attempts, run_at)
        select ${job.kind}, i.payload, i.key, ${job.priority ?? 5}, ${job.maxAttempts ?? 8},
          now() + make_interval(secs => ${(job.delayMs ?? 0) / 1000})
        from jsonb_to_recordset(${JSON.stringify(
          job.items.map((item) => ({ payload: item.payload, key: item.key ?? null })),
        )}::jsonb) as i(payload jsonb, key text)
        on conflict (kind, key) where status = 'queued' and key is not null do nothing
        returning id
      )
      select id, pg_notify(${JOBS_CHANNEL}, ${job.kind}) from queued`),
  );
  return rows.map((row) => Number(row.id));
}

/**
 * Gets the job with this key ready for a caller that runs it itself right away (an explicit
 * retry, claimed with `anyTime`): a waiting one stays as it is, a dead one comes back with its
 * attempts reset, and without either a new one is queued — both due only after `holdSeconds`,
 * so the runners leave it to the caller, and take it up if the caller dies first. Returns false
 * while one runs.
 */
export async function prepareJobForCaller(
  db: DbOrTx,
  job: {
    kind: string;
    key: string;
    payload: Record<string, unknown>;
    priority?: number;
    maxAttempts?: number;
    holdSeconds?: number;
  },
): Promise<boolean> {
  const hold = job.holdSeconds ?? 120;
  const rows = rowsOf<{ status: string }>(
    await db.execute(sql`
      select status from ${jobs} where kind = ${job.kind} and key = ${job.key}
        and status in ('queued', 'running') limit 1`),
  );
  if (rows[0]?.status === "running") return false;
  if (rows[0]) return true;
  const revived = rowsOf(
    await db.execute(sql`
      update ${jobs} set status = 'queued', attempts = 0, finished_at = null,
        run_at = now() + make_interval(secs => ${hold})
      where id = (select id from ${jobs} where kind = ${job.kind} and key = ${job.key}
        and status = 'dead' order by id desc limit 1)
      returning id`),
  );
  if (revived.length > 0) return true;
  await enqueueJob(db, {
    kind: job.kind,
    key: job.key,
    payload: job.payload,
    priority: job.priority,
    maxAttempts: job.maxAttempts,
    delayMs: hold * 1000,
  });
  return true;
}

/** The columns a claim returns. */
export interface ClaimedRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  key: string | null;
  attempts: number;
  maxAttempts: number;
  progress: Record<string, unknown> | null;
  leaseToken: string;
}

function toClaimed(row: Record<string, unknown>): ClaimedRow {
  return {
    id: Number(row.id),
    kind: String(row.kind),
    payload: (row.payload ?? {}) as Record<string, unknown>,
    key: (row.key as string | null) ?? null,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    progress: (row.progress as Record<string, unknown> | null) ?? null,
    leaseToken: String(row.lease_token),
  };
}

/**
 * Claims up to `limit` due jobs of `kind`: queued and due, or running under a lease that ran out
 * (its runner died). A job whose key another running job of its kind holds is left waiting.
 */
export async function claimJobs(
  db: DbOrTx,
  options: {
    kind: string;
    limit: number;
    leaseSeconds: number;
    workerId: string;
    ids?: readonly number[];
    keys?: readonly string[];
    /** Waiting jobs whatever their `run_at` (a caller running one itself now). */
    anyTime?: boolean;
  },
): Promise<ClaimedRow[]> {
  const byId = options.ids
    ? sql`and j.id = any(${`{${options.ids.join(",")}}`}::bigint[])`
    : options.keys
      ? sql`and j.key in (select jsonb_array_elements_text(${JSON.stringify(options.keys)}::jsonb))`
      : sql``;
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      with candidates as (
        select j.id from ${jobs} j
        where j.kind = ${options.kind} ${byId}
          and ((j.status = 'queued' and (${options.anyTime ? sql`true` : sql`j.run_at <= now()`}))
            or (j.status = 'running' and j.locked_until < now()))
          and (j.key is null or not exists (
            select 1 from ${jobs} r
            where r.kind = j.kind and r.key = j.key and r.status = 'running'
              and r.locked_until >= now() and r.id <> j.id))
        order by j.priority, j.run_at, j.id
        limit ${options.limit}
        for update skip locked
      )
      update ${jobs} set status = 'running', attempts = ${jobs.attempts} + 1,
        runs = ${jobs.runs} + 1, lease_token = gen_random_uuid(), locked_by = ${options.workerId},
        locked_until = now() + make_interval(secs => ${options.leaseSeconds}),
        started_at = now()
      from candidates where ${jobs.id} = candidates.id
      returning ${jobs.id} as id, ${jobs.kind} as kind, ${jobs.payload} as payload,
        ${jobs.key} as key, ${jobs.attempts} as attempts, ${jobs.maxAttempts} as max_attempts,
        ${jobs.progress} as progress, ${jobs.leaseToken} as lease_token`),
  );
  return rows.map(toClaimed);
}

/**
 * When the next job of `kind` is due (the earliest queued `run_at` or the earliest running
 * lease's end), or null when there is none.
 */
export async function nextDueAt(db: DbOrTx, kind: string): Promise<Date | null> {
  const [row] = rowsOf<{ next: Date | string | null }>(
    await db.execute(sql`
      select least(
        (select min(run_at) from ${jobs} where kind = ${kind} and status = 'queued'),
        (select min(locked_until) from ${jobs} where kind = ${kind} and status = 'running')
      ) as next`),
  );
  return row?.next ? new Date(row.next) : null;
}

const fenceOf = (job: { id: number; leaseToken: string }) =>
  sql`${jobs.id} = ${job.id} and ${jobs.leaseToken} = ${job.leaseToken}::uuid and ${jobs.status} = 'running'`;

/** Locks the job's row if this claim still holds it; false otherwise. */
export async function holdsLease(
  db: DbOrTx,
  job: { id: number; leaseToken: string },
): Promise<boolean> {
  const rows = rowsOf<{ id: unknown }>(
    await db.execute(sql`select ${jobs.id} as id from ${jobs} where ${fenceOf(job)} for update`),
  );
  return rows.length > 0;
}

/** Extends the leases of the given claims; returns the ids still held. */
export async function renewLeases(
  db: DbOrTx,
  claims: readonly { id: number; leaseToken: string; leaseSeconds: number }[],
): Promise<Set<number>> {
  if (claims.length === 0) return new Set();
  const rows = rowsOf<{ id: string | number }>(
    await db.execute(sql`
      update ${jobs} j set locked_until = now() + make_interval(secs => c.lease)
      from json_to_recordset(${JSON.stringify(
        claims.map((c) => ({ id: c.id, token: c.leaseToken, lease: c.leaseSeconds })),
      )}::json) as c(id bigint, token uuid, lease int)
      where j.id = c.id and j.lease_token = c.token and j.status = 'running'
      returning j.id`),
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/** Saves progress for a held job (and renews its lease); false when the lease was lost. */
export async function saveJobProgress(
  db: DbOrTx,
  job: { id: number; leaseToken: string; leaseSeconds: number },
  progress: Record<string, unknown>,
): Promise<boolean> {
  const rows = rowsOf<{ id: unknown }>(
    await db.execute(sql`
      update ${jobs} set progress = ${JSON.stringify(progress)}::jsonb,
        locked_until = now() + make_interval(secs => ${job.leaseSeconds})
      where ${fenceOf(job)} returning ${jobs.id} as id`),
  );
  return rows.length > 0;
}

export type Settlement =
  | { kind: "done" }
  | { kind: "again"; delayMs: number; progress?: Record<string, unknown> }
  | { kind: "retry"; delaySeconds: number; error: string }
  | { kind: "dead"; error: string }
  /** Stopped for a shutdown: queued again at once, the attempt not counted. */
  | { kind: "released" };

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

/**
 * Settles a held job (fenced: a lost lease changes nothing and returns false). Putting it back
 * in the queue while a job with the same key already waits there merges it into that one (the
 * same key is the same work): it is marked done instead.
 */
export async function settleJob(
  db: DbOrTx,
  job: { id: number; leaseToken: string },
  settlement: Settlement,
  runMs: number,
): Promise<boolean> {
  const common = sql`lease_token = null, locked_by = null, locked_until = null,
    run_ms = ${jobs.runMs} + ${Math.round(runMs)}`;
  const finish = (status: "done" | "dead", error: string | null) =>
    db.execute(sql`
      update ${jobs} set status = ${status}, finished_at = now(), last_error = ${error}, ${common}
      where ${fenceOf(job)} returning ${jobs.id} as id`);
  let result: unknown;
  switch (settlement.kind) {
    case "done":
      result = await finish("done", null);
      break;
    case "dead":
      result = await finish("dead", settlement.error.slice(0, 2000));
      break;
    default: {
      const set =
        settlement.kind === "again"
          ? sql`run_at = now() + make_interval(secs => ${settlement.delayMs / 1000}), attempts = 0,
              ${settlement.progress ? sql`progress = ${JSON.stringify(settlement.progress)}::jsonb,` : sql``}
              last_error = null`
          : settlement.kind === "retry"
            ? sql`run_at = now() + make_interval(secs => ${settlement.delaySeconds}),
                last_error = ${settlement.error.slice(0, 2000)}`
            : sql`run_at = now(), attempts = greatest(${jobs.attempts} - 1, 0)`;
      try {
        result = await db.execute(sql`
          update ${jobs} set status = 'queued', ${set}, ${common}
          where ${fenceOf(job)} returning ${jobs.id} as id`);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        result = await db.execute(sql`
          update ${jobs} set status = 'done', finished_at = now(),
            last_error = 'merged into the queued job with the same key', ${common}
          where ${fenceOf(job)} returning ${jobs.id} as id`);
      }
    }
  }
  return rowsOf(result).length > 0;
}

/**
 * PGlite allows one process per data directory, so at its start every `running` job belongs to
 * a process that is gone: their leases end now instead of after their time.
 */
export async function expireAllLeases(db: DbOrTx): Promise<number> {
  const rows = rowsOf(
    await db.execute(sql`
      update ${jobs} set locked_until = now() - interval '1 millisecond'
      where status = 'running' returning id`),
  );
  return rows.length;
}
