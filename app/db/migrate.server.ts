import path from "node:path";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { type DatabaseHandle, withoutSlowStatementLog } from "./client.server";

// Any fixed number: every instance takes the same advisory lock so only one migrates at a time.
const MIGRATION_LOCK_ID = 727_411_001;

/** Applies the committed drizzle-kit migrations; safe when several instances start together. */
export async function migrateDatabase(
  handle: Pick<DatabaseHandle, "pglite" | "pool">,
  migrationsFolder = path.resolve("drizzle"),
): Promise<void> {
  if (handle.pglite) {
    const pglite = handle.pglite;
    await withoutSlowStatementLog(() =>
      migratePglite(drizzlePglite({ client: pglite }), { migrationsFolder }),
    );
    return;
  }
  if (!handle.pool) throw new Error("PostgreSQL handle without a pool");
  const client = await handle.pool.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    // node-postgres is imported only when there is a PostgreSQL server to talk to.
    const [{ drizzle: drizzleNodePg }, { migrate: migrateNodePg }] = await Promise.all([
      import("drizzle-orm/node-postgres"),
      import("drizzle-orm/node-postgres/migrator"),
    ]);
    await migrateNodePg(drizzleNodePg({ client }), { migrationsFolder });
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => {});
    client.release();
  }
}
