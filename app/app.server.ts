import path from "node:path";
import type { MiddlewareFunction } from "react-router";
import { startJobRunner, stopJobRunner } from "~/core/jobs/index.server";
import { logger } from "~/core/logger.server";
import { startMaintenance, stopMaintenance } from "~/core/maintenance.server";
import { countLiveStreamsWith } from "~/core/metrics.server";
import {
  type DatabaseHandle,
  getDatabase,
  openDatabase,
  pingDatabase,
  setDatabase,
  withoutSlowStatementLog,
} from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import {
  deliverJob,
  federationEventJob,
  federationQueueJob,
  getFederation,
} from "~/features/federation/index.server";
import { fanOutJob } from "~/features/feed/fanout-jobs.server";
import {
  journeyAggregateJob,
  queueStaleJourneyAggregates,
} from "~/features/journey/aggregates.server";
import { listenImportJob, recoverStalledImports } from "~/features/journey/import.server";
import { mailJob, recoverInterruptedMail } from "~/features/mail/mail.server";
import { getLiveHub, startLiveHub, stopLiveHub } from "~/features/realtime/hub.server";
import { dataExportJob } from "~/features/settings/export-archive.server";
import { queuePendingUnfurls, unfurlJob } from "~/features/unfurl/unfurl.server";
import { settleAfterResponse } from "~/lib/after-response.server";
import { getEnv, resolveAuthSecret } from "~/lib/env.server";

let booting: Promise<DatabaseHandle> | undefined;

/** Every kind of background job, run by this process's job runner (core/jobs). */
export const JOB_DEFINITIONS = [
  mailJob,
  dataExportJob,
  fanOutJob,
  unfurlJob,
  listenImportJob,
  journeyAggregateJob,
  federationQueueJob,
  federationEventJob,
  deliverJob,
];

/** Stops Fedify's queue listener at shutdown. */
let federationQueue: AbortController | null = null;

/**
 * How many requests wait for an admission turn right now; the server wires in its queue, so
 * background jobs let page views go first (core/jobs: `yield`).
 */
let waitingRequests: () => number = () => 0;
export function countWaitingRequestsWith(count: () => number): void {
  waitingRequests = count;
}

/** Root middleware, first of all: the database is open and migrated before anything runs. */
export const bootMiddleware: MiddlewareFunction<Response> = async (_args, next) => {
  await bootstrap();
  return next();
};

/**
 * Opens and migrates the database once per process. The server calls it before listening;
 * under `react-router dev` the first request does.
 */
export function bootstrap(): Promise<DatabaseHandle> {
  booting ??= (async () => {
    const env = getEnv();
    resolveAuthSecret(env);
    const handle = await openDatabase({
      databaseUrl: env.DATABASE_URL,
      dataDir: path.join(env.DATA_DIR, "pglite"),
      sharedBuffersMb: env.PGLITE_SHARED_BUFFERS_MB,
    });
    await migrateDatabase(handle);
    setDatabase(handle);
    await startLiveHub(handle);
    countLiveStreamsWith(() => getLiveHub()?.size ?? 0);
    // One process owns the embedded database: what it was sending when it stopped is settled
    // now (on PostgreSQL another instance may still be sending: the jobs' leases decide).
    // Catching up after a stop: slow by nature on the embedded engine, and no request waits
    // (the server listens once this is done), so no "slow statement" lines on start.
    await withoutSlowStatementLog(async () => {
      if (handle.kind === "pglite") await recoverInterruptedMail();
      await recoverStalledImports();
      await queueStaleJourneyAggregates();
      await queuePendingUnfurls();
    });
    if (env.FEDERATION) {
      // Fedify's inbox queue is our job system: this registers the handler its jobs run.
      federationQueue = new AbortController();
      void getFederation().startQueue(undefined, { signal: federationQueue.signal });
    }
    await startJobRunner({
      handle,
      definitions: JOB_DEFINITIONS,
      waitingRequests: () => waitingRequests(),
    });
    startMaintenance(handle, env.MAINTENANCE_INTERVAL_MINUTES);
    logger.info({ database: handle.kind }, "database ready");
    return handle;
  })();
  booting.catch(() => {
    booting = undefined;
  });
  return booting;
}

/** Closes the database; PGlite flushes to disk here, so this must run before exit. */
export async function shutdown(): Promise<void> {
  if (!booting) return;
  const handle = await booting.catch(() => undefined);
  booting = undefined;
  await stopMaintenance();
  // Running jobs stop at their next safe point and are queued again for the next start.
  await stopJobRunner(10_000);
  federationQueue?.abort();
  federationQueue = null;
  await stopLiveHub();
  // Mails promised after an answer (reset links, codes) go out before the database closes.
  await settleAfterResponse();
  setDatabase(undefined);
  await handle?.close();
}

/** For `/readyz`: does the database answer? */
export async function isReady(): Promise<boolean> {
  try {
    return await pingDatabase(getDatabase().db);
  } catch {
    return false;
  }
}

/**
 * Ends every live event stream. The server calls it first when shutting down: open streams
 * would otherwise keep it waiting, and browsers reconnect (to another instance, or this one
 * once it is back).
 */
export function endLiveStreams(): void {
  getLiveHub()?.drain();
}
