import { AsyncLocalStorage } from "node:async_hooks";
import pino from "pino";

interface LogContext {
  requestId: string;
}

/** A JSON logger whose lines carry the id of the request being served (see below). */
export function createLogger(
  context: AsyncLocalStorage<LogContext>,
  destination?: pino.DestinationStream,
): pino.Logger {
  return pino(
    {
      level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
      base: { service: "soundtrail" },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const store = context.getStore();
        return store ? { requestId: store.requestId } : {};
      },
    },
    destination,
  );
}

// One module graph (the node server is built with the app, vite.config.ts): one instance of
// this module, so one logger and one request context for the process.
const context = new AsyncLocalStorage<LogContext>();

/** The request context the process-wide logger reads (for tests of other destinations). */
export function requestLogContext(): AsyncLocalStorage<LogContext> {
  return context;
}

/** One JSON logger for the process. Lines written while serving a request carry its id. */
export const logger: pino.Logger = createLogger(context);

/** Runs `fn` (and everything it starts) as part of the request `requestId`, for the logs. */
export function withRequestLogContext<T>(requestId: string, fn: () => T): T {
  return context.run({ requestId }, fn);
}

/** The id of the request being served, when there is one. */
export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}
