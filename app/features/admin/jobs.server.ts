import { AppError } from "~/core/errors";
import {
  countJobs,
  discardJob,
  getJobRunner,
  type JobKindCounts,
  type JobRow,
  listJobRows,
  retryDeadJob,
} from "~/core/jobs/index.server";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { JOB_STATUSES, type JobStatus } from "~/db/schema";
import { assertAdmin } from "./access.server";
import { recordAudit } from "./audit.server";
import { type Paged, pageInfo, pageOffset } from "./paging";

export const JOB_NOT_FOUND = "This job is not waiting or dead any more; the list was refreshed.";

export interface AdminJobs extends Paged<JobRow> {
  kinds: JobKindCounts[];
}

export function parseJobStatus(value: string | null): JobStatus | undefined {
  return JOB_STATUSES.find((status) => status === value);
}

/** Jobs by kind and state for the admin page: the counts of every kind, and 12 jobs a page. */
export async function listJobsForAdmin(options: {
  actorId: string;
  kind?: string;
  status?: JobStatus;
  page: number;
}): Promise<AdminJobs> {
  await assertAdmin(options.actorId);
  const db = getDb();
  const kinds = await countJobs(db);
  const kind =
    options.kind && /^[a-z][a-z0-9_.-]{0,63}$/.test(options.kind) ? options.kind : undefined;
  const first = await listJobRows(db, { kind, status: options.status, offset: 0, limit: 0 });
  const info = pageInfo(first.total, options.page);
  const { rows } = await listJobRows(db, {
    kind,
    status: options.status,
    offset: pageOffset(info),
    limit: info.pageSize,
  });
  return { ...info, items: rows, kinds };
}

/** An admin queues a dead job again (recorded in the audit log). */
export async function retryJobAsAdmin(options: { actorId: string; jobId: number }): Promise<void> {
  const actor = await assertAdmin(options.actorId);
  await getDb().transaction(async (tx) => {
    const kind = await retryDeadJob(tx, options.jobId);
    if (!kind) throw new AppError("not_found", JOB_NOT_FOUND);
    await recordAudit(tx, actor, {
      action: "job.retry",
      targetType: "job",
      targetId: String(options.jobId),
      details: { kind },
    });
  });
}

/**
 * An admin discards a waiting or dead job (recorded in the audit log). A waiting one that had
 * not failed yet is told to its feature as a failure (an export "failed", a mail "dead"), so
 * nobody waits for it.
 */
export async function discardJobAsAdmin(options: {
  actorId: string;
  jobId: number;
}): Promise<void> {
  const actor = await assertAdmin(options.actorId);
  const discarded = await getDb().transaction(async (tx) => {
    const row = await discardJob(tx, options.jobId);
    if (!row) throw new AppError("not_found", JOB_NOT_FOUND);
    await recordAudit(tx, actor, {
      action: "job.discard",
      targetType: "job",
      targetId: String(options.jobId),
      details: { kind: row.kind, status: row.status },
    });
    return row;
  });
  if (discarded.status !== "queued") return;
  const definition = getJobRunner()?.definitionOf(discarded.kind);
  if (!definition?.onDead) return;
  try {
    await definition.onDead(definition.parse(discarded.payload), "Discarded by an admin.");
  } catch (error) {
    logger.warn({ err: error, jobId: options.jobId }, "could not tell a discarded job's feature");
  }
}
