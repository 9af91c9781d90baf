import { randomBytes } from "node:crypto";
import pg from "pg";
import { type DatabaseHandle, openDatabase } from "./client.server";
import { migrateDatabase } from "./migrate.server";

export interface TestDatabase extends DatabaseHandle {
  /** Closes the connection and removes the test database. */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or — when
 * TEST_DATABASE_URL is set (`npm run test:pg`) — a new database on that PostgreSQL server.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const handle = await openDatabase({});
    await migrateDatabase(handle);
    return { ...handle, destroy: () => handle.close() };
  }
  const name = `st_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString() });
  await migrateDatabase(handle);
  return {
    ...handle,
    destroy: async () => {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
