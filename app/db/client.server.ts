import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { type Logger, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import type pg from "pg";
import { logger } from "~/core/logger.server";
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from "~/lib/env.server";
import { loadPg } from "~/lib/lazy-module.server";
import * as schema from "./schema";
import { logOutageOr } from "./unavailable.server";

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
/** An open transaction of the database. */
export type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** A database or an open transaction: feature functions accept either. */
export type DbOrTx = Database | Tx;

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  /** Closes every connection (PGlite: flushes its files). */
  close(): Promise<void>;
  /** Present on PostgreSQL: a pool for code that needs its own connection. */
  pool?: pg.Pool;
  /** Present on PostgreSQL: where it is, for a dedicated connection outside the pool (LISTEN). */
  databaseUrl?: string;
  /** Present on PGlite: the embedded engine. */
  pglite?: PGlite;
}

export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite engine is used. */
  databaseUrl?: string;
  /** Where PGlite keeps its files; `memory://` (or undefined) keeps them in memory. */
  dataDir?: string;
  /**
   * In-memory PGlite only: start from this data directory (a `dumpDataDir` tarball) instead of
   * an empty one. Tests clone one migrated database this way (app/db/test-db.server.ts).
   */
  loadDataDir?: Blob;
  /**
   * PGlite's shared buffers in MB (PGLITE_SHARED_BUFFERS_MB); default
   * `DEFAULT_PGLITE_SHARED_BUFFERS_MB`. They are most of the server's resident memory: pages
   * once touched stay resident, and the WebAssembly memory never shrinks.
   */
  sharedBuffersMb?: number;
}

/**
 * PGlite's start parameters: its own defaults plus the shared buffers. (Its `postgresqlconf`
 * option would replace postgresql.conf as a whole; a `-c` parameter only sets this one.)
 */
export function pgliteStartParams(sharedBuffersMb = DEFAULT_PGLITE_SHARED_BUFFERS_MB): string[] {
  return [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffersMb}MB`];
}

interface StatementLog {
  count: number;
  /** Present when the caller asked for the statements themselves. */
  statements?: { sql: string; params: unknown[] }[];
}

const statementCounter = new AsyncLocalStorage<StatementLog>();

/** Counts every statement Drizzle sends while a `countStatements` callback runs. */
const countingLogger: Logger = {
  logQuery(query, params) {
    const store = statementCounter.getStore();
    if (!store) return;
    store.count++;
    store.statements?.push({ sql: query, params });
  },
};

/**
 * Runs `fn` and reports how many SQL statements it sent through Drizzle (on this async path
 * only, so concurrent requests do not disturb the count). For tests of "no N+1" promises.
 */
export async function countStatements<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; statements: number }> {
  const store = { count: 0 };
  const result = await statementCounter.run(store, fn);
  return { result, statements: store.count };
}

/** Runs `fn` and returns the SQL statements it sent through Drizzle, with their parameters. */
export async function captureStatements<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; statements: { sql: string; params: unknown[] }[] }> {
  const store: StatementLog = { count: 0, statements: [] };
  const result = await statementCounter.run(store, fn);
  return { result, statements: store.statements ?? [] };
}

/**
 * How long the embedded engine's statements held the process (PGlite runs each statement
 * synchronously on the event loop: while one runs, nothing else does — not even `/healthz`).
 * Counted by bucket for `/metrics`; each statement over SLOW_STATEMENT_MS is logged (at most one
 * line a second), so an operator sees what held the server.
 */
export const STATEMENT_BUCKETS_MS = [10, 50, 100, 200, 500, 1000, 5000] as const;
export const SLOW_STATEMENT_MS = 100;
const statementStats = {
  counts: STATEMENT_BUCKETS_MS.map(() => 0),
  total: 0,
  sumMs: 0,
  longestMs: 0,
};
let lastSlowLog = 0;
/** Above zero while statements are expected to be slow (the migrations on start). */
let slowLogPaused = 0;

/**
 * Runs `fn` without "slow statement" log lines: creating the schema on a first start is slow by
 * nature and holds no request (the server is not listening yet). Still counted for `/metrics`.
 */
export async function withoutSlowStatementLog<T>(fn: () => Promise<T>): Promise<T> {
  slowLogPaused++;
  try {
    return await fn();
  } finally {
    slowLogPaused--;
  }
}

/** The embedded engine's statement durations so far (cumulative; none on PostgreSQL). */
export function embeddedStatementStats(): Readonly<typeof statementStats> {
  return statementStats;
}

function recordStatement(ms: number, text: string): void {
  statementStats.total++;
  statementStats.sumMs += ms;
  if (ms > statementStats.longestMs) statementStats.longestMs = ms;
  STATEMENT_BUCKETS_MS.forEach((le, i) => {
    if (ms <= le) statementStats.counts[i] = (statementStats.counts[i] ?? 0) + 1;
  });
  if (ms < SLOW_STATEMENT_MS || slowLogPaused > 0) return;
  const now = Date.now();
  if (now - lastSlowLog < 1000) return;
  lastSlowLog = now;
  logger.info(
    { ms: Math.round(ms), statement: text.replace(/\s+/g, " ").trim().slice(0, 120) },
    "slow statement on the embedded database",
  );
}

type Timed = Pick<PGlite, "query" | "exec">;
function timeStatements<T extends Timed>(target: T): T {
  const query = target.query.bind(target);
  const exec = target.exec.bind(target);
  const timed =
    <A extends unknown[], R>(run: (text: string, ...rest: A) => Promise<R>) =>
    async (text: string, ...rest: A): Promise<R> => {
      const started = performance.now();
      try {
        return await run(text, ...rest);
      } finally {
        recordStatement(performance.now() - started, text);
      }
    };
  target.query = timed(query) as T["query"];
  target.exec = timed(exec) as T["exec"];
  return target;
}

/** Times every statement of `pglite`, in and out of transactions (see recordStatement). */
function timeEmbeddedStatements(pglite: PGlite): void {
  timeStatements(pglite);
  const transaction = pglite.transaction.bind(pglite);
  pglite.transaction = ((callback: Parameters<PGlite["transaction"]>[0]) =>
    transaction((tx) => callback(timeStatements(tx)))) as PGlite["transaction"];
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PGlite allows one process per data directory; a second one would corrupt it.
 * A pid lock file turns that into a clear start-up error.
 */
export function acquirePgliteLock(dir: string): () => void {
  const lockFile = path.join(dir, "soundtrail.lock");
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, "utf8").trim());
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) {
      throw new DatabaseUnavailableError(
        `The data directory ${dir} is in use by another Soundtrail process (pid ${pid}). ` +
          "Stop that process first, or set DATA_DIR to another directory.",
      );
    }
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}

function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return "DATABASE_URL";
  }
}

/**
 * The threshold of pg_trgm's `<%` operator ("a word of the name is like the query") in every
 * session, so people search can use the names' trigram index: the function form
 * `word_similarity(q, name) >= 0.3` cannot, and scans every profile. 0.3 finds "jonh" for
 * "John" and "ingird johanson" for "Ingrid Johansson" (pg_trgm's default is a strict 0.6).
 */
export const WORD_SIMILARITY_THRESHOLD = 0.3;

/** Search (drizzle/0008_search.sql) needs these; the migration runs CREATE EXTENSION. */
export const PGLITE_EXTENSIONS = { pg_trgm, unaccent };

/** Opens the database: PostgreSQL when a URL is given, PGlite otherwise. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    // node-postgres is imported only when there is a PostgreSQL server to talk to.
    const [{ Pool }, { drizzle: drizzleNodePg }] = await Promise.all([
      loadPg(),
      import("drizzle-orm/node-postgres"),
    ]);
    const pool = new Pool({
      connectionString: options.databaseUrl,
      max: 10,
      // Every pooled connection starts with the session settings the queries rely on.
      options: `-c pg_trgm.word_similarity_threshold=${WORD_SIMILARITY_THRESHOLD}`,
    });
    // An idle pooled connection that the server closes (restart, failover, a dropped test
    // database) is reported here; without a listener Node would crash the whole process.
    // The pool discards that connection and opens a new one on the next query.
    pool.on("error", (error) => {
      logOutageOr("pool", error, () =>
        logger.warn({ err: error }, "PostgreSQL dropped an idle pooled connection"),
      );
    });
    try {
      const client = await pool.connect();
      client.release();
    } catch (error) {
      await pool.end().catch(() => {});
      throw new DatabaseUnavailableError(
        `Cannot reach PostgreSQL at ${describeTarget(options.databaseUrl)} (DATABASE_URL): ${(error as Error).message}`,
      );
    }
    const db = drizzleNodePg({
      client: pool,
      schema,
      logger: countingLogger,
    }) as unknown as Database;
    return {
      db,
      kind: "postgres",
      pool,
      databaseUrl: options.databaseUrl,
      close: () => pool.end(),
    };
  }

  const extensions = PGLITE_EXTENSIONS;
  const inMemory = !options.dataDir || options.dataDir.startsWith("memory://");
  let release = () => {};
  let pglite: PGlite;
  const startParams = pgliteStartParams(options.sharedBuffersMb);
  if (inMemory) {
    pglite = new PGlite({ extensions, loadDataDir: options.loadDataDir, startParams });
  } else {
    const dir = options.dataDir as string;
    mkdirSync(dir, { recursive: true });
    release = acquirePgliteLock(dir);
    try {
      pglite = new PGlite(dir, { extensions, startParams });
      await pglite.waitReady;
    } catch (error) {
      release();
      throw new DatabaseUnavailableError(
        `Cannot open the embedded database in ${dir}: ${(error as Error).message}`,
      );
    }
  }
  // The embedded database's pages are local (memory or this disk's cache): a random read costs
  // about what a sequential one does. With PostgreSQL's default of 4 the planner hashes whole
  // tables (every profile, every image) to join the 21 rows of a feed page instead of probing
  // their indexes. One session, so this holds for the process.
  timeEmbeddedStatements(pglite);
  await pglite.exec("set random_page_cost = 1.1");
  await pglite.exec(`set pg_trgm.word_similarity_threshold = ${WORD_SIMILARITY_THRESHOLD}`);
  const db = drizzlePglite({
    client: pglite,
    schema,
    logger: countingLogger,
  }) as unknown as Database;
  return {
    db,
    kind: "pglite",
    pglite,
    close: async () => {
      await pglite.close();
      release();
    },
  };
}

/** True when the database answers a trivial query. */
export async function pingDatabase(db: Database): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}

const GLOBAL_KEY = Symbol.for("soundtrail.database");
type GlobalWithDb = typeof globalThis & { [GLOBAL_KEY]?: DatabaseHandle };

/** Makes `handle` the process-wide database used by `getDb()`. */
export function setDatabase(handle: DatabaseHandle | undefined): void {
  (globalThis as GlobalWithDb)[GLOBAL_KEY] = handle;
}

/** The process-wide database handle; throws when the app has not opened one. */
export function getDatabase(): DatabaseHandle {
  const handle = (globalThis as GlobalWithDb)[GLOBAL_KEY];
  if (!handle) throw new Error("The database has not been opened (call openDatabase first)");
  return handle;
}

/** The process-wide Drizzle instance. */
export function getDb(): Database {
  return getDatabase().db;
}

/** The rows of a raw `db.execute` (node-postgres and PGlite both answer `{ rows }`). */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
