import pg from "pg";
import type { DatabaseHandle } from "./client.server";
import { migrateDatabase } from "./migrate.server";

/*
 * `npm run db:move -- --to postgres://…`: copies a Soundtrail database (the embedded PGlite one,
 * usually) into a PostgreSQL database, every table of the `public` schema — accounts and their
 * sessions, posts, images, notifications, the mail outbox … — read in one snapshot.
 *
 * - The target is migrated first (the same drizzle migrations), so both have the same tables.
 * - A target with any row in any table is refused unless `force` (then it is emptied first).
 * - Everything is written in one transaction on the target: the foreign keys are dropped, the
 *   rows copied, the foreign keys added again (PostgreSQL checks every row then), sequences set
 *   to the source's values. A failure anywhere leaves the target as it was.
 * - Values travel as PostgreSQL's own text form (`col::text` → `$n::type`), which round-trips
 *   every type exactly (bytea, jsonb, arrays, timestamps); generated columns (search vectors,
 *   folded keys) are computed again by the target.
 * - Row counts are compared after the commit.
 */

export interface MoveOptions {
  /** The database to copy (PGlite or PostgreSQL), opened by the caller. */
  source: DatabaseHandle;
  /** PostgreSQL connection string of the target. */
  targetUrl: string;
  /** Empty a non-empty target instead of refusing. */
  force?: boolean;
  /** Progress lines (one per table). */
  log?: (line: string) => void;
}

export interface TableCount {
  table: string;
  source: number;
  target: number;
}

export interface MoveResult {
  tables: TableCount[];
  sequences: { name: string; value: number | null }[];
  rows: number;
}

export class MoveRefused extends Error {
  override name = "MoveRefused";
}

/** Runs SQL on the source inside its snapshot transaction. */
type Query = <T>(text: string, params?: unknown[]) => Promise<T[]>;

function sourceQuery(handle: DatabaseHandle): { query: Query; release: () => Promise<void> } {
  if (handle.pglite) {
    const pglite = handle.pglite;
    return {
      query: async <T>(text: string, params: unknown[] = []) =>
        (await pglite.query<T>(text, params)).rows,
      release: async () => {},
    };
  }
  if (!handle.pool) throw new Error("PostgreSQL handle without a pool");
  const pool = handle.pool;
  let client: pg.PoolClient | undefined;
  return {
    query: async <T>(text: string, params: unknown[] = []) => {
      client ??= await pool.connect();
      return (await client.query(text, params)).rows as T[];
    },
    release: async () => client?.release(),
  };
}

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The tables of the `public` schema, by name. */
export const TABLES_SQL = `
  select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind in ('r', 'p') order by c.relname`;

/** Stored (not generated, not dropped) columns of a table with their full types. */
const COLUMNS_SQL = `
  select a.attname as name, format_type(a.atttypid, a.atttypmod) as type
  from pg_attribute a
  where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
  order by a.attnum`;

const SEQUENCES_SQL = `
  select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind = 'S' order by c.relname`;

const FOREIGN_KEYS_SQL = `
  select conrelid::regclass::text as "table", conname as name, pg_get_constraintdef(oid) as def
  from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace
  order by conrelid::regclass::text, conname`;

/** Counts the rows of every table (one statement per table, in the caller's transaction). */
export async function countRows(
  query: Query,
  tables: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const table of tables) {
    const [row] = await query<{ n: string | number }>(
      `select count(*)::bigint as n from ${quoteIdent(table)}`,
    );
    counts.set(table, Number(row?.n ?? 0));
  }
  return counts;
}

/** At most this many parameters per INSERT (PostgreSQL's limit is 65,535). */
const MAX_PARAMS = 30_000;
/** … and about this many bytes of values, so image tables go in modest statements. */
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
const FETCH_ROWS = 500;

export async function moveDatabase(options: MoveOptions): Promise<MoveResult> {
  const log = options.log ?? (() => {});
  const { source } = options;

  // The source is brought to the current migrations (what the server does on start), so that
  // both sides have the same tables and columns.
  await migrateDatabase(source);

  const target = new pg.Client({ connectionString: options.targetUrl });
  try {
    await target.connect();
  } catch (error) {
    throw new MoveRefused(`Cannot reach the target PostgreSQL: ${(error as Error).message}`);
  }
  const tq: Query = async <T>(text: string, params: unknown[] = []) =>
    (await target.query(text, params)).rows as T[];

  const { query: sq, release } = sourceQuery(source);
  try {
    // The target gets the same schema through the same migrations (taking the advisory lock).
    const targetPool = new pg.Pool({ connectionString: options.targetUrl, max: 1 });
    try {
      await migrateDatabase({ pool: targetPool });
    } finally {
      await targetPool.end();
    }

    const targetTables = (await tq<{ name: string }>(TABLES_SQL)).map((r) => r.name);
    const before = await countRows(tq, targetTables);
    const occupied = [...before].filter(([, n]) => n > 0);
    if (occupied.length > 0 && !options.force) {
      throw new MoveRefused(
        `The target database is not empty (${occupied
          .slice(0, 5)
          .map(([t, n]) => `${t}: ${n}`)
          .join(", ")}${occupied.length > 5 ? ", …" : ""}). ` +
          "Use an empty database, or pass --force to delete everything in it first.",
      );
    }

    // One snapshot of the source: every read below sees the same committed state.
    await sq("begin isolation level repeatable read read only");
    const sourceTables = (await sq<{ name: string }>(TABLES_SQL)).map((r) => r.name);
    const missing = sourceTables.filter((t) => !targetTables.includes(t));
    if (missing.length > 0) {
      throw new MoveRefused(`The target lacks tables the source has: ${missing.join(", ")}`);
    }
    const sourceCounts = await countRows(sq, sourceTables);

    await tq("begin");
    const foreignKeys = await tq<{ table: string; name: string; def: string }>(FOREIGN_KEYS_SQL);
    for (const fk of foreignKeys) {
      await tq(`alter table ${fk.table} drop constraint ${quoteIdent(fk.name)}`);
    }
    // The rows arrive as they are: triggers (e.g. the listen version a new play raises) would
    // change what they copy. Back on before the commit, in the same transaction.
    for (const table of targetTables) {
      await tq(`alter table ${quoteIdent(table)} disable trigger user`);
    }
    if (occupied.length > 0) {
      await tq(`truncate ${targetTables.map(quoteIdent).join(", ")}`);
      log(`emptied the target (${occupied.length} tables had rows)`);
    }

    let total = 0;
    for (const table of sourceTables) {
      const columns = await sq<{ name: string; type: string }>(COLUMNS_SQL, [quoteIdent(table)]);
      const targetColumns = new Set(
        (await tq<{ name: string }>(COLUMNS_SQL, [quoteIdent(table)])).map((c) => c.name),
      );
      const absent = columns.filter((c) => !targetColumns.has(c.name));
      if (absent.length > 0) {
        throw new MoveRefused(
          `The target's table ${table} lacks columns ${absent.map((c) => c.name).join(", ")}`,
        );
      }
      const columnList = columns.map((c) => quoteIdent(c.name)).join(", ");
      const rowsPerInsert = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
      let batch: (string | null)[][] = [];
      let batchBytes = 0;
      let copied = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const params: (string | null)[] = [];
        const tuples = batch.map((row) => {
          const placeholders = row.map((value, i) => {
            params.push(value);
            return `$${params.length}::${columns[i]?.type}`;
          });
          return `(${placeholders.join(", ")})`;
        });
        await tq(
          // Identity columns (jobs.id) take the source's values as they are.
          `insert into ${quoteIdent(table)} (${columnList}) overriding system value values ${tuples.join(", ")}`,
          params,
        );
        copied += batch.length;
        batch = [];
        batchBytes = 0;
      };
      const cursor = `soundtrail_move_${sourceTables.indexOf(table)}`;
      await sq(
        `declare ${cursor} no scroll cursor for select ${columns
          .map((c) => `${quoteIdent(c.name)}::text`)
          .join(", ")} from ${quoteIdent(table)}`,
      );
      for (;;) {
        const rows = await sq<Record<string, string | null>>(`fetch ${FETCH_ROWS} from ${cursor}`);
        if (rows.length === 0) break;
        for (const row of rows) {
          const values = columns.map((c) => row[c.name] ?? null);
          batch.push(values);
          for (const v of values) batchBytes += v?.length ?? 0;
          if (batch.length >= rowsPerInsert || batchBytes >= MAX_BATCH_BYTES) await flush();
        }
      }
      await flush();
      await sq(`close ${cursor}`);
      total += copied;
      log(`${table}: ${copied} rows`);
    }

    // Foreign keys again: PostgreSQL checks every copied row against them here.
    for (const table of targetTables) {
      await tq(`alter table ${quoteIdent(table)} enable trigger user`);
    }
    for (const fk of foreignKeys) {
      await tq(`alter table ${fk.table} add constraint ${quoteIdent(fk.name)} ${fk.def}`);
    }

    const sequences: { name: string; value: number | null }[] = [];
    for (const { name } of await sq<{ name: string }>(SEQUENCES_SQL)) {
      const [state] = await sq<{ last_value: string; is_called: boolean }>(
        `select last_value::text, is_called from ${quoteIdent(name)}`,
      );
      if (!state) continue;
      await tq("select setval($1::regclass, $2::bigint, $3)", [
        quoteIdent(name),
        state.last_value,
        state.is_called,
      ]);
      sequences.push({ name, value: state.is_called ? Number(state.last_value) : null });
    }

    await tq("commit");
    await sq("commit");

    // Every row arrived: the counts of both sides, table by table.
    const targetCounts = await countRows(tq, sourceTables);
    const tables = sourceTables.map((table) => ({
      table,
      source: sourceCounts.get(table) ?? 0,
      target: targetCounts.get(table) ?? 0,
    }));
    const differ = tables.filter((t) => t.source !== t.target);
    if (differ.length > 0) {
      throw new Error(
        `Row counts differ after the move: ${differ
          .map((t) => `${t.table} ${t.source} → ${t.target}`)
          .join(", ")}`,
      );
    }
    return { tables, sequences, rows: total };
  } catch (error) {
    await tq("rollback").catch(() => {});
    await sq("rollback").catch(() => {});
    throw error;
  } finally {
    await release();
    await target.end().catch(() => {});
  }
}
