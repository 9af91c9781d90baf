import { getDatabase } from "~/db/client.server";
import type { JobDefinition } from "./jobs.server";
import { JobRunner, type JobRunnerOptions } from "./runner.server";

export {
  countJobs,
  discardJob,
  type JobKindCounts,
  type JobRow,
  listJobRows,
  retryDeadJob,
} from "./inspect.server";
export {
  type ActiveJob,
  defineJob,
  type EnqueueOptions,
  enqueueJob,
  enqueueJobs,
  exponentialBackoff,
  type JobDefinition,
  JobLeaseLost,
  type JobResult,
  PermanentJobError,
  prepareJobForCaller,
  stringFields,
} from "./jobs.server";
export { JobRunner, type JobRunnerOptions } from "./runner.server";

// biome-ignore lint/suspicious/noExplicitAny: a list of definitions of every payload type
type AnyDefinition = JobDefinition<any>;

let current: JobRunner | null = null;

/** Starts this process's runner (the server, at boot). */
export async function startJobRunner(options: JobRunnerOptions): Promise<JobRunner> {
  if (current) return current;
  const runner = new JobRunner(options);
  current = runner;
  try {
    await runner.start();
  } catch (error) {
    current = null;
    throw error;
  }
  return runner;
}

/** Stops this process's runner, waiting for running jobs at most `graceMs` (shutdown). */
export async function stopJobRunner(graceMs?: number): Promise<void> {
  const runner = current;
  current = null;
  await runner?.stop(graceMs);
}

/** This process's runner, when the server started one. */
export function getJobRunner(): JobRunner | null {
  return current;
}

/**
 * For long work outside a job (reading an uploaded history into staging): lets waiting page
 * views go first, as a job's `yield()` does, and always lets the event loop turn.
 */
export async function yieldToRequests(): Promise<void> {
  if (current) await current.yieldToRequests();
  else await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs one queued job of `definition` here and now, and resolves once it settled (a mail sent
 * during the request that queued it). False when another runner holds it or it is not due.
 */
export function runJobNow(definition: AnyDefinition, id: number): Promise<boolean> {
  const runner = current ?? new JobRunner({ handle: getDatabase(), definitions: [definition] });
  return runner.runNow(definition, id);
}

/**
 * Claims one due job of `definition` (among `keys` when given; `anyTime`: whatever its run_at)
 * and runs it here; resolves with its payload and key once it settled, or null when none was.
 */
export async function runOneDueJob<P>(
  definition: JobDefinition<P>,
  options: { keys?: readonly string[]; anyTime?: boolean } = {},
): Promise<{ payload: Record<string, unknown>; key: string | null } | null> {
  const runner = current ?? new JobRunner({ handle: getDatabase(), definitions: [definition] });
  const claim = await runner.runOneDue(definition, options);
  return claim ? { payload: claim.payload, key: claim.key } : null;
}

/**
 * Runs every due job of these definitions here until none is due (tests and scripts; the
 * server's runner does this on its own). Returns how many ran.
 */
export function drainJobs(definitions: readonly AnyDefinition[]): Promise<number> {
  return new JobRunner({ handle: getDatabase(), definitions }).drain();
}
