import { and, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import {
  type ActiveJob,
  defineJob,
  drainJobs,
  stringFields,
  yieldToRequests,
} from "~/core/jobs/index.server";
import { logger } from "~/core/logger.server";
import { getDb, rowsOf, type Tx } from "~/db/client.server";
import {
  type ListenImportStatus,
  type ListenImportSummary,
  listenImportRows,
  listenImports,
  listens,
  listenVersions,
} from "~/db/schema";
import { notifyListenImportDone } from "~/features/notifications/index.server";
import { queueJourneyAggregate } from "./aggregates.server";
import { IMPORT_MAX_ROWS } from "./import-constants";
import type { ListenImportView } from "./import-types";
import { FORMAT_LABELS_BY_FORMAT } from "./importers/format-labels";
import type { HistoryFile } from "./importers/read-files.server";
import { SKIP_REASONS, type SkipReason } from "./importers/types";
import { readImportBatches } from "./importers/worker.server";

/**
 * Plays written to staging per statement while reading the files: on PGlite a statement holds
 * the event loop (and the one connection) while it runs, so each one stays near 20 ms, and the
 * request lets waiting ones through between them.
 */
const STAGE_BATCH = 1000;
/** Plays staged between two signs of life of a read (its `updated_at`). */
const HEARTBEAT_PLAYS = STAGE_BATCH * 50;
/**
 * Plays copied into the history per transaction (one progress step). A copied play costs
 * ~20 µs on PGlite, whose statements hold the event loop while they run: 2,000 keep a step
 * near 40 ms, and page views waiting meanwhile go first before the next (job.yield).
 */
const COPY_BATCH = 2_000;
/** A read of files that has not moved for this long was cut off with its request. */
const READ_STALLED_MS = 10 * 60 * 1000;
/** Broken rows listed in the preview (all are counted). */
const PROBLEMS_SHOWN = 10;
const TOP_ARTISTS = 5;

export const IMPORT_NOT_FOUND = "This import does not exist or is not yours.";
const NEWER_UPLOAD = "Newer files were uploaded meanwhile; their preview is the one shown.";

export type { ListenImportView };

const viewColumns = {
  id: listenImports.id,
  status: listenImports.status,
  summary: listenImports.summary,
  total: listenImports.total,
  processed: listenImports.processed,
  added: listenImports.added,
  error: listenImports.error,
  createdAt: listenImports.createdAt,
};

function toView(row: {
  id: string;
  status: ListenImportStatus;
  summary: ListenImportSummary | null;
  total: number;
  processed: number;
  added: number;
  error: string | null;
  createdAt: Date;
}): ListenImportView {
  return { ...row, createdAt: row.createdAt.toISOString() };
}

// ---------------------------------------------------------------------------------------------
// Bulk writes without per-row triggers.

let canSkipRowTriggers: Promise<boolean> | null = null;

/**
 * Whether this connection may switch row triggers off for a statement
 * (`session_replication_role`, superuser only): PGlite always, a PostgreSQL server when the app
 * connects as a superuser. Asked once per process.
 */
function mayDeferTriggers(): Promise<boolean> {
  canSkipRowTriggers ??= getDb()
    .execute(sql`select current_setting('is_superuser') = 'on' as ok`)
    .then((result) => Boolean(rowsOf<{ ok: boolean }>(result)[0]?.ok))
    .catch(() => false);
  return canSkipRowTriggers;
}

/**
 * Row triggers off for the rest of `tx` when `allowed` (mayDeferTriggers, asked before the
 * transaction: PGlite has one connection, which the transaction holds); says whether.
 * A bulk write pays per row for them (a foreign key checks each row; the stats-cache trigger
 * collects every row to raise one counter), so the caller does their work once instead.
 */
async function deferRowTriggers(tx: Tx, allowed: boolean): Promise<boolean> {
  if (!allowed) return false;
  await tx.execute(sql`set local session_replication_role = replica`);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Reading the files into staging: the preview.

/**
 * Writes a batch of staged plays (ReadBatch's `rowsJson`, numbered by `seq` already) in one
 * statement: the rows travel as one JSON parameter.
 */
async function stagePlays(importId: string, rowsJson: string) {
  const allowed = await mayDeferTriggers();
  await getDb().transaction(async (tx) => {
    if (await deferRowTriggers(tx, allowed)) {
      // The foreign key's check of every row, once: the import is locked as the check would
      // lock it, so it cannot go away under the batch.
      const [found] = rowsOf<{ id: string }>(
        await tx.execute(sql`select id from ${listenImports} where id = ${importId} for key share`),
      );
      if (!found) throw new AppError("conflict", NEWER_UPLOAD);
    }
    await tx.execute(sql`
      insert into ${listenImportRows} (import_id, seq, listened_at, duration_ms, artist_name,
        track_name, release_name, artist_key, track_key, release_key, source)
      select ${importId}::uuid, x.s, to_timestamp(x.t), x.d, x.a, x.n, x.r, x.ak, x.tk, x.rk, x.o
      from json_to_recordset(${rowsJson}::json)
        as x(s int, t bigint, d int, a text, n text, r text, ak text, tk text, rk text, o text)`);
  });
}

/** Counts and names for the preview, from the staged plays (exact duplicates included). */
async function summarise(options: {
  userId: string;
  importId: string;
  skipped: Map<SkipReason, number>;
  problems: ListenImportSummary["problems"];
  files: ListenImportSummary["files"];
}): Promise<ListenImportSummary & { staged: number }> {
  const db = getDb();
  const { importId, userId } = options;
  const [counts] = rowsOf<{
    staged: number;
    distinct_plays: number;
    first: Date | string | null;
    last: Date | string | null;
    has_history: boolean;
  }>(
    await db.execute(sql`
      select count(*)::int as staged,
        count(distinct (listened_at, artist_key, track_key))::int as distinct_plays,
        min(listened_at) as first, max(listened_at) as last,
        exists (select 1 from ${listens} where ${listens.userId} = ${userId}) as has_history
      from ${listenImportRows} where import_id = ${importId}`),
  );
  const staged = Number(counts?.staged ?? 0);
  const distinct = Number(counts?.distinct_plays ?? 0);
  let known = 0;
  if (counts?.has_history && staged > 0) {
    const [row] = rowsOf<{ known: number }>(
      await db.execute(sql`
        select count(*)::int as known from (
          select distinct listened_at, artist_key, track_key
          from ${listenImportRows} where import_id = ${importId}) s
        where exists (select 1 from ${listens} l where l.user_id = ${userId}
          and l.listened_at = s.listened_at and l.artist_key = s.artist_key
          and l.track_key = s.track_key)`),
    );
    known = Number(row?.known ?? 0);
  }
  const top = rowsOf<{ name: string; plays: number }>(
    await db.execute(sql`
      select min(artist_name) as name, count(*)::int as plays
      from ${listenImportRows} where import_id = ${importId}
      group by artist_key order by plays desc, name limit ${TOP_ARTISTS}`),
  );
  const skipped = new Map(options.skipped);
  const duplicates = staged - distinct + known;
  if (duplicates > 0) skipped.set("duplicate", (skipped.get("duplicate") ?? 0) + duplicates);
  const iso = (value: Date | string | null | undefined) =>
    value ? new Date(value).toISOString() : null;
  return {
    staged,
    plays: distinct - known,
    firstPlayedAt: iso(counts?.first),
    lastPlayedAt: iso(counts?.last),
    topArtists: top.map((t) => ({ name: t.name, plays: Number(t.plays) })),
    skipped: (Object.keys(SKIP_REASONS) as SkipReason[])
      .filter((reason) => (skipped.get(reason) ?? 0) > 0)
      .map((reason) => ({ reason: SKIP_REASONS[reason], count: skipped.get(reason) ?? 0 })),
    problems: options.problems,
    files: options.files,
  };
}

/**
 * Reads the uploaded history files (streamed from disk, zips entry by entry) into the staging
 * table and saves what a preview shows. Nothing reaches the person's history until they
 * confirm. A newer upload replaces a preview still waiting; while an import is running, a new
 * one is refused.
 */
export async function createListenImport(options: {
  userId: string;
  files: HistoryFile[];
}): Promise<ListenImportView> {
  const { userId } = options;
  if (options.files.length === 0) {
    throw new AppError("invalid", "Choose at least one file to import.");
  }
  const db = getDb();
  await recoverStalledImports({ userId });
  const [running] = await db
    .select({ id: listenImports.id })
    .from(listenImports)
    .where(and(eq(listenImports.userId, userId), eq(listenImports.status, "importing")));
  if (running) {
    throw new AppError(
      "conflict",
      "An import is still running. Wait for it to finish before you add more files.",
    );
  }
  await db
    .update(listenImports)
    .set({ status: "cancelled", updatedAt: sql`now()` })
    .where(and(eq(listenImports.userId, userId), eq(listenImports.status, "preview")));
  await deleteStagingOfCancelled(userId);
  const [created] = await db.insert(listenImports).values({ userId }).returning(viewColumns);
  if (!created) throw new Error("listen import insert returned nothing");
  const importId = created.id;
  try {
    const skipped = new Map<SkipReason, number>();
    const problems: ListenImportSummary["problems"] = [];
    const files: ListenImportSummary["files"] = [];
    let seq = 0;
    let rows = 0;
    // Read in a worker thread where one can start (importers/worker.server.ts): parsing there
    // while this thread writes the previous batch into staging.
    for await (const batch of readImportBatches(options.files, {
      batchSize: STAGE_BATCH,
      maxProblems: PROBLEMS_SHOWN,
    })) {
      rows += batch.rows;
      if (rows > IMPORT_MAX_ROWS) {
        throw new AppError(
          "too_large",
          `These files hold more than ${IMPORT_MAX_ROWS.toLocaleString("en-US")} plays. Import them in parts.`,
        );
      }
      for (const [reason, count] of batch.skipped) {
        skipped.set(reason, (skipped.get(reason) ?? 0) + count);
      }
      problems.push(...batch.problems);
      for (const report of batch.files) {
        files.push({
          name: report.name,
          format: FORMAT_LABELS_BY_FORMAT[report.format],
          rows: report.rows,
        });
      }
      if (batch.plays === 0) continue;
      await stagePlays(importId, batch.rowsJson);
      await yieldToRequests();
      const before = seq;
      seq += batch.plays;
      // A sign of life, so a read cut off by a restart can be told from a long one.
      if (Math.floor(seq / HEARTBEAT_PLAYS) > Math.floor(before / HEARTBEAT_PLAYS)) {
        await db
          .update(listenImports)
          .set({ updatedAt: sql`now()` })
          .where(eq(listenImports.id, importId));
      }
    }
    if (files.every((f) => f.rows === 0) && seq === 0 && skipped.size === 0) {
      throw new AppError(
        "invalid",
        "None of these files is a listening history we can read. Choose the files named in the steps above.",
      );
    }
    const { staged, ...summary } = await summarise({
      userId,
      importId,
      skipped,
      problems,
      files,
    });
    const [row] = await db
      .update(listenImports)
      .set({ summary, total: staged, updatedAt: sql`now()` })
      .where(and(eq(listenImports.id, importId), eq(listenImports.status, "preview")))
      .returning(viewColumns);
    if (!row) {
      throw new AppError("conflict", NEWER_UPLOAD);
    }
    return toView(row);
  } catch (error) {
    await db
      .delete(listenImports)
      .where(eq(listenImports.id, importId))
      .catch(() => {});
    throw error;
  }
}

async function deleteStagingOfCancelled(userId: string): Promise<void> {
  await getDb().execute(sql`
    delete from ${listenImportRows} r using ${listenImports} i
    where r.import_id = i.id and i.user_id = ${userId} and i.status in ('cancelled', 'done', 'failed')`);
}

// ---------------------------------------------------------------------------------------------
// Reading imports.

/** The person's imports, newest first (at most `limit`); stalled ones are taken up again. */
export async function listListenImports(options: {
  userId: string;
  limit?: number;
}): Promise<ListenImportView[]> {
  await recoverStalledImports({ userId: options.userId });
  const rows = await getDb()
    .select(viewColumns)
    .from(listenImports)
    .where(eq(listenImports.userId, options.userId))
    .orderBy(desc(listenImports.createdAt))
    .limit(Math.min(Math.max(options.limit ?? 10, 1), 50));
  return rows.map(toView);
}

async function getOwnImport(userId: string, importId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(importId)) throw new AppError("not_found", IMPORT_NOT_FOUND);
  const [row] = await getDb()
    .select(viewColumns)
    .from(listenImports)
    .where(and(eq(listenImports.id, importId), eq(listenImports.userId, userId)));
  if (!row) throw new AppError("not_found", IMPORT_NOT_FOUND);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Confirm, cancel.

/** The person confirms a preview: it is imported in the background from now on. */
export async function confirmListenImport(options: {
  userId: string;
  importId: string;
}): Promise<ListenImportView> {
  const current = await getOwnImport(options.userId, options.importId);
  if (current.status !== "preview") {
    if (current.status === "importing" || current.status === "done") return toView(current);
    throw new AppError("conflict", "This preview was cancelled. Upload the files again.");
  }
  if (current.summary === null) {
    throw new AppError("conflict", "The files are still being read. Try again in a moment.");
  }
  const row = await getDb().transaction(async (tx) => {
    const [updated] = await tx
      .update(listenImports)
      .set({ status: "importing", processed: 0, added: 0, updatedAt: sql`now()` })
      .where(
        and(
          eq(listenImports.id, options.importId),
          eq(listenImports.userId, options.userId),
          eq(listenImports.status, "preview"),
        ),
      )
      .returning(viewColumns);
    if (updated) await listenImportJob.enqueue(tx, { importId: updated.id }, { key: updated.id });
    return updated;
  });
  if (!row) return toView(await getOwnImport(options.userId, options.importId));
  return toView(row);
}

/** The person drops a preview: its staged plays are deleted and nothing is imported. */
export async function cancelListenImport(options: {
  userId: string;
  importId: string;
}): Promise<void> {
  const current = await getOwnImport(options.userId, options.importId);
  if (current.status === "cancelled") return;
  if (current.status !== "preview") {
    throw new AppError("conflict", "Only a preview can be cancelled; this import already started.");
  }
  await getDb().transaction(async (tx) => {
    const updated = await tx
      .update(listenImports)
      .set({ status: "cancelled", updatedAt: sql`now()` })
      .where(and(eq(listenImports.id, options.importId), eq(listenImports.status, "preview")))
      .returning({ id: listenImports.id });
    if (updated.length > 0) {
      await tx.delete(listenImportRows).where(eq(listenImportRows.importId, options.importId));
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The background copy: a job (core/jobs) per confirmed import.

/**
 * Thrown when the staged plays the copy needs next are not there (only a database that lost
 * its files could do that now that staging is logged: drizzle/0029).
 */
class StagingLost extends Error {}
const STAGING_LOST =
  "The plays read from your files were lost when the server restarted. Nothing was added twice; upload the files again to finish the import.";
const IMPORT_FAILED =
  "The import stopped because of an error on our side. Nothing was added twice; upload the files again to finish it.";

async function failImport(importId: string, message: string): Promise<void> {
  await getDb().transaction(async (tx) => {
    const [failed] = await tx
      .update(listenImports)
      .set({ status: "failed", error: message, updatedAt: sql`now()` })
      .where(and(eq(listenImports.id, importId), eq(listenImports.status, "importing")))
      .returning({ userId: listenImports.userId });
    // What was copied before the failure stays: the journey's aggregates take it in.
    if (failed) await queueJourneyAggregate(tx, failed.userId);
  });
  await getDb().delete(listenImportRows).where(eq(listenImportRows.importId, importId));
}

/**
 * Copies a confirmed import's staged plays into the history, COPY_BATCH plays per transaction,
 * letting page views go first between batches; retried with back-off if a batch fails, and
 * "failed" (nothing added twice) after the last attempt.
 */
export const listenImportJob = defineJob<{ importId: string }>({
  kind: "journey.import",
  priority: 8,
  concurrency: 1,
  maxAttempts: 5,
  parse: stringFields("importId"),
  async run(job) {
    try {
      await copyImport(job);
    } catch (error) {
      if (!(error instanceof StagingLost)) throw error;
      await failImport(job.payload.importId, STAGING_LOST);
    }
    return undefined;
  },
  async onDead({ importId }) {
    await failImport(importId, IMPORT_FAILED);
  },
});

/** Runs the queued import copies here until none is left (tests and the bench). */
export async function settleListenImports(): Promise<void> {
  await drainJobs([listenImportJob]);
}

/**
 * Copies the staged plays into the history in batches of COPY_BATCH by `seq`. Each batch and
 * its progress commit together, fenced by the job's lease, and a batch only commits if
 * `processed` is still where this run left it, so a restart (or a second instance) resumes
 * exactly where it stopped and never counts a play twice. Plays already there (the natural
 * key) are left alone.
 */
async function copyImport(job: ActiveJob<{ importId: string }>): Promise<void> {
  const { importId } = job.payload;
  const db = getDb();
  /** Whether plays may already be in the history: duplicates seen by the preview, or since. */
  let expectConflicts: boolean | null = null;
  for (;;) {
    if (job.signal.aborted) throw new Error("the import copy was stopped");
    const [current] = await db
      .select({
        userId: listenImports.userId,
        status: listenImports.status,
        total: listenImports.total,
        processed: listenImports.processed,
        summary: listenImports.summary,
      })
      .from(listenImports)
      .where(eq(listenImports.id, importId));
    if (current?.status !== "importing") return;
    const from = current.processed;
    if (from >= current.total) {
      await finishImport(importId, current.userId);
      return;
    }
    const to = Math.min(from + COPY_BATCH, current.total);
    expectConflicts ??=
      current.summary?.skipped.some((s) => s.reason === SKIP_REASONS.duplicate) ?? true;
    // Staged plays are numbered 1…total without gaps: the next one is there unless the
    // database lost the staging table.
    const [next] = rowsOf<{ ok: boolean }>(
      await db.execute(sql`
        select exists (select 1 from ${listenImportRows}
          where import_id = ${importId} and seq = ${from + 1}) as ok`),
    );
    if (!next?.ok) throw new StagingLost();
    const allowed = await mayDeferTriggers();
    const moved = await db.transaction(async (tx) => {
      await job.fence(tx);
      const deferTriggers = await deferRowTriggers(tx, allowed);
      if (deferTriggers) {
        // What the triggers on listens do, once for the batch: the person's row is locked as
        // the foreign key check would (they cannot be deleted under it), and their listen
        // version (the stats cache's) is raised below.
        const [person] = rowsOf<{ id: string }>(
          await tx.execute(sql`select id from "user" where id = ${current.userId} for key share`),
        );
        if (!person) return null;
      }
      const moveBatch = (ifNew: boolean) => sql`
          with moved as (
            insert into ${listens} (user_id, listened_at, duration_ms, artist_name, track_name,
              release_name, artist_key, track_key, release_key, source, import_id)
            select ${current.userId}, listened_at, duration_ms, artist_name, track_name,
              release_name, artist_key, track_key, release_key, source, import_id
            from ${listenImportRows}
            where import_id = ${importId} and seq > ${from} and seq <= ${to}
            order by seq
            ${ifNew ? sql`on conflict (user_id, listened_at, artist_key, track_key) do nothing` : sql``}
            returning 1
          )
          update ${listenImports}
          set processed = ${to}, added = added + (select count(*)::int from moved),
            updated_at = now()
          where id = ${importId} and status = 'importing' and processed = ${from}
          returning processed`;
      let batch: { processed: number } | undefined;
      if (!expectConflicts) {
        // The preview found every play new: a plain insert, which costs about a fifth less
        // than ON CONFLICT's speculative one. The natural key still holds (a unique index);
        // a play that arrived since (a scrobble, another import) rolls the attempt back and
        // the batch goes the careful way, as does the rest of the import.
        try {
          batch = await tx.transaction(async (attempt) =>
            rowsOf<{ processed: number }>(await attempt.execute(moveBatch(false))).at(0),
          );
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          expectConflicts = true;
        }
      }
      if (expectConflicts) {
        batch = rowsOf<{ processed: number }>(await tx.execute(moveBatch(true))).at(0);
      }
      if (!batch) return null;
      if (deferTriggers) {
        await tx.execute(sql`set local session_replication_role = origin`);
        await tx.execute(sql`
          insert into ${listenVersions} (user_id, version, changed_at)
          values (${current.userId}, 1, now())
          on conflict (user_id) do update
            set version = ${listenVersions.version} + 1, changed_at = now()`);
      }
      return batch;
    });
    // The person is gone, or the import moved on elsewhere: nothing more to do here.
    if (!moved) return;
    logger.debug(
      { importId, processed: moved.processed, total: current.total },
      "import copy step",
    );
    await job.yield();
  }
}

async function finishImport(importId: string, userId: string): Promise<void> {
  const added = await getDb().transaction(async (tx) => {
    const [done] = await tx
      .update(listenImports)
      .set({ status: "done", updatedAt: sql`now()` })
      .where(
        and(
          eq(listenImports.id, importId),
          eq(listenImports.status, "importing"),
          sql`${listenImports.processed} >= ${listenImports.total}`,
        ),
      )
      .returning({ added: listenImports.added });
    if (!done) return null;
    // The journey's aggregates are done again once, for the whole import (until then its
    // months are read from the plays): redoing a month after every batch that touched it would
    // redo a heavy listener's months again and again while the copy runs.
    await queueJourneyAggregate(tx, userId);
    await clearStaging(tx, importId);
    await notifyListenImportDone(tx, { userId, importId, added: done.added });
    return done.added;
  });
  if (added !== null) logger.info({ importId, added }, "listening history import done");
}

/** Rolls back clearStaging's savepoint (and its lock) when other imports have staged plays. */
class OthersStaged extends Error {}

/**
 * Deletes an import's staged plays. When no other import has any (the usual case) the table is
 * truncated instead, which takes no time, where deleting a million rows writes to every page
 * they are on. The lock that makes the check hold is taken without waiting: when another
 * transaction uses the table (another import being read or copied), the rows are deleted.
 */
async function clearStaging(tx: Tx, importId: string): Promise<void> {
  try {
    await tx.transaction(async (savepoint) => {
      await savepoint.execute(sql`lock table ${listenImportRows} in access exclusive mode nowait`);
      const [others] = rowsOf<{ staged: boolean }>(
        await savepoint.execute(sql`
          select exists (select 1 from ${listenImportRows} where import_id < ${importId})
            or exists (select 1 from ${listenImportRows} where import_id > ${importId}) as staged`),
      );
      if (others?.staged) throw new OthersStaged();
      await savepoint.execute(sql`truncate ${listenImportRows}`);
    });
    return;
  } catch (error) {
    // Other imports' rows, or the lock was not free (PostgreSQL's 55P03): delete ours.
    if (!(error instanceof OthersStaged) && !isLockNotAvailable(error)) throw error;
  }
  await tx.delete(listenImportRows).where(eq(listenImportRows.importId, importId));
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

function isLockNotAvailable(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "55P03") return true;
  }
  return false;
}

/**
 * A read of files whose request ended with its process (a restart) never gets its preview: it
 * is shown as failed after READ_STALLED_MS. With `userId`, only that person's. Returns how many.
 */
export async function recoverStalledImports(options: { userId?: string } = {}): Promise<number> {
  const abandoned = await getDb()
    .update(listenImports)
    .set({
      status: "failed",
      error: "Reading the files stopped before the preview was ready. Upload them again.",
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(listenImports.status, "preview"),
        isNull(listenImports.summary),
        lt(listenImports.updatedAt, new Date(Date.now() - READ_STALLED_MS)),
        options.userId ? eq(listenImports.userId, options.userId) : undefined,
      ),
    )
    .returning({ id: listenImports.id });
  if (abandoned.length > 0) {
    await getDb()
      .delete(listenImportRows)
      .where(
        inArray(
          listenImportRows.importId,
          abandoned.map((a) => a.id),
        ),
      );
  }
  return abandoned.length;
}
