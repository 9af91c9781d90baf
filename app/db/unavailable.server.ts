import { logger } from "~/core/logger.server";

/**
 * SQLSTATE codes and socket errors that mean "the database cannot be reached right now", as
 * opposed to a query that is wrong: class 08 (connection exception), 57P01–57P03 (admin or
 * crash shutdown, cannot connect now), 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const UNAVAILABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);
/** What node-postgres, its pool and PGlite say when there is no connection to use. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Client was closed and is not queryable/i,
  /Cannot use a pool after calling end/i,
  /PGlite is clos(ed|ing)/i,
  /The database has not been opened/i,
];

export type DatabaseFailureKind = string;

/**
 * The kind of database outage behind `error` (its SQLSTATE, socket code or "closed"), or null
 * when `error` is something else. Looks through `cause` chains (Drizzle wraps driver errors in
 * DrizzleQueryError) and AggregateErrors. The one place that decides what an outage is.
 */
export function databaseFailureKind(error: unknown): DatabaseFailureKind | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 20) {
    const current = queue.shift();
    if (!current || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    const { code, name, message, cause, errors } = current as {
      code?: unknown;
      name?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (name === "DatabaseUnavailableError") return "unavailable";
    if (typeof code === "string") {
      if (code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code)) return code;
      if (UNAVAILABLE_SOCKET_CODES.has(code)) return code;
    }
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((re) => re.test(message))) {
      return /PGlite|not been opened/i.test(message) ? "closed" : "connection-lost";
    }
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return null;
}

/** True when `error` means the database cannot be reached (see {@link databaseFailureKind}). */
export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseFailureKind(error) !== null;
}

/** How often one kind of outage is logged: once per window, with how many were left out. */
export const OUTAGE_LOG_WINDOW_MS = 30_000;

const lastLogged = new Map<string, { at: number; suppressed: number }>();
/** Database failures seen since start, by kind (logged or not): /metrics counts them. */
const outageCounts = new Map<string, number>();

/** Database failures seen by this process since it started, by kind. */
export function databaseOutageCounts(): ReadonlyMap<string, number> {
  return outageCounts;
}

/**
 * Logs a database outage as one structured line — no stack trace — at most once per
 * {@link OUTAGE_LOG_WINDOW_MS} per kind and place; the next line says how many were left out.
 * During an outage every request fails the same way: one line says it, hundreds do not.
 */
export function logDatabaseUnavailable(
  where: string,
  error: unknown,
  now: number = Date.now(),
): void {
  const kind = databaseFailureKind(error) ?? "unknown";
  outageCounts.set(kind, (outageCounts.get(kind) ?? 0) + 1);
  const key = `${where}:${kind}`;
  const entry = lastLogged.get(key);
  if (entry && now - entry.at < OUTAGE_LOG_WINDOW_MS) {
    entry.suppressed++;
    return;
  }
  const suppressed = entry?.suppressed ?? 0;
  lastLogged.set(key, { at: now, suppressed: 0 });
  const message = error instanceof Error ? firstLine(deepestMessage(error)) : String(error);
  logger.error(
    { event: "database_unavailable", where, kind, error: message, suppressed },
    "database unavailable",
  );
}

/** Forgets what was logged (tests). */
export function resetOutageLog(): void {
  lastLogged.clear();
  outageCounts.clear();
}

function deepestMessage(error: Error): string {
  let current: unknown = error;
  let message = error.message;
  for (let i = 0; i < 10 && current instanceof Error; i++) {
    message = current.message || message;
    current = current.cause;
  }
  return message;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 300);
}

/**
 * For background work (live listener, mail worker, pool): a database outage is logged as the
 * one rate-limited line; anything else the way `otherwise` logs it.
 */
export function logOutageOr(where: string, error: unknown, otherwise: () => void): void {
  if (isDatabaseUnavailable(error)) logDatabaseUnavailable(where, error);
  else otherwise();
}
