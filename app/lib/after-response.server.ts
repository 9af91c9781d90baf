import { AsyncLocalStorage } from "node:async_hooks";
import { logger } from "~/core/logger.server";

/**
 * Work that must happen after the answer has been sent: the per-account part of requests
 * whose answer must not reveal whether an account exists (password reset, sign-in codes).
 * Doing it before the answer made a known address answer several times slower than an
 * unknown one (the SMTP conversation); after it, the request does the same work either way.
 */
interface Task {
  label: string;
  run: () => Promise<unknown>;
}

type Collected = Task[] & { isFlushed?: boolean };

const scope = new AsyncLocalStorage<Collected>();
const running = new Set<Promise<void>>();

function start(task: Task): void {
  const done: Promise<void> = task
    .run()
    .then(
      () => undefined,
      // Never lost silently: the person waits for a mail that will not come.
      (error: unknown) =>
        logger.error({ err: error, task: task.label }, "after-response task failed"),
    )
    .finally(() => running.delete(done));
  running.add(done);
}

/**
 * Runs `run` after the current request's answer has been written (the server calls the
 * collected tasks then). Outside a request — a test, a script, the dev server — it starts at
 * once in the background. Either way it is tracked: {@link settleAfterResponse} waits for it
 * and a failure is logged with `label`.
 */
export function afterResponse(label: string, run: () => Promise<unknown>): void {
  const tasks = scope.getStore();
  // Late (the answer is already out, e.g. while a streamed page finishes): start it now.
  if (tasks && !tasks.isFlushed) tasks.push({ label, run });
  else start({ label, run });
}

/**
 * Runs `handle` (one request) collecting what it defers; `flush` starts those tasks. The
 * server calls `flush` once the response has been written — or has failed: a task is never
 * dropped because the answer did not make it.
 */
export async function collectAfterResponse<T>(
  handle: () => Promise<T>,
): Promise<{ result: T; flush: () => void }> {
  const tasks: Collected = [];
  const flush = () => {
    if (tasks.isFlushed) return;
    tasks.isFlushed = true;
    for (const task of tasks.splice(0)) start(task);
  };
  try {
    const result = await scope.run(tasks, handle);
    return { result, flush };
  } catch (error) {
    flush();
    throw error;
  }
}

/** Waits until every started after-response task has finished (shutdown, tests). */
export async function settleAfterResponse(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}
