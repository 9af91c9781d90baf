import { AsyncLocalStorage } from "node:async_hooks";
import pino from "pino";

interface LogContext {
  requestId: string;
}

interface SharedLogger {
  logger: pino.Logger;
  context: AsyncLocalStorage<LogContext>;
}

// The node server (server/index.ts, bundled on its own) and the app build each get a copy of
// this module; the instance lives on globalThis so the process has one logger and one request
// context, whichever copy asks first.
const KEY = Symbol.for("soundtrail.logger");

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

function shared(): SharedLogger {
  const holder = globalThis as { [KEY]?: SharedLogger };
  if (!holder[KEY]) {
    const context = new AsyncLocalStorage<LogContext>();
    holder[KEY] = { logger: createLogger(context), context };
  }
  return holder[KEY];
}

/** The request context the process-wide logger reads (for tests of other destinations). */
export function requestLogContext(): AsyncLocalStorage<LogContext> {
  return shared().context;
}

/** One JSON logger for the process. Lines written while serving a request carry its id. */
export const logger: pino.Logger = shared().logger;

/** Runs `fn` (and everything it starts) as part of the request `requestId`, for the logs. */
export function withRequestLogContext<T>(requestId: string, fn: () => T): T {
  return shared().context.run({ requestId }, fn);
}

/** The id of the request being served, when there is one. */
export function currentRequestId(): string | undefined {
  return shared().context.getStore()?.requestId;
}
