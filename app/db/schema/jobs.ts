import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/**
 * `queued`: waiting for `run_at`; `running`: a runner holds its lease (`locked_until`);
 * `done`: finished (kept a day for the admin page, then purged); `dead`: gave up after its last
 * attempt or a permanent failure, kept for an admin to retry or discard.
 */
export const JOB_STATUSES = ["queued", "running", "done", "dead"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * The one durable job system (docs/decisions/030-job-system.md): background work of every
 * feature — mail, fan-out, imports, exports, link previews, journey aggregates — is a row here,
 * claimed with `FOR UPDATE SKIP LOCKED` by any instance, under a lease it renews while it works.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    kind: text("kind").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
    /**
     * At most one queued job per (kind, key): enqueueing it again while one waits does nothing
     * (coalescing). Jobs with the same key never run at the same time.
     */
    key: text("key"),
    /** Lower runs first. */
    priority: smallint("priority").notNull().default(5),
    status: text("status", { enum: JOB_STATUSES }).notNull().default("queued"),
    runAt: timestamp("run_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** Attempts started; reset when a long job reports progress (it is not failing). */
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(8),
    /** Set at each claim: every write of the runner is fenced by it. */
    leaseToken: uuid("lease_token"),
    lockedBy: text("locked_by"),
    lockedUntil: timestamp("locked_until", { withTimezone: true, precision: 3 }),
    lastError: text("last_error"),
    /** What a long job saved of its progress (its own shape). */
    progress: jsonb("progress").$type<Record<string, unknown>>(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true, precision: 3 }),
    finishedAt: timestamp("finished_at", { withTimezone: true, precision: 3 }),
    /** Runs in total (every claim), for the admin page. */
    runs: integer("runs").notNull().default(0),
    /** Time spent running, in milliseconds, summed over runs. */
    runMs: bigint("run_ms", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    index("jobs_due_idx").on(t.priority, t.runAt, t.id).where(sql`status = 'queued'`),
    index("jobs_running_idx").on(t.lockedUntil).where(sql`status = 'running'`),
    index("jobs_kind_status_idx").on(t.kind, t.status, t.runAt),
    uniqueIndex("jobs_queued_key_idx")
      .on(t.kind, t.key)
      .where(sql`status = 'queued' and key is not null`),
  ],
);
