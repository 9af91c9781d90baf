import { afterAll, beforeAll } from "vitest";
import { setDatabase } from "~/db/client.server";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";

/**
 * Gives the test file its own fresh, migrated database (PGlite in memory, or a new database on
 * the PostgreSQL server under `npm run test:pg`) as the process-wide one, and removes it after.
 * Returns a getter for files that need the handle itself.
 */
export function withTestDatabase(): () => TestDatabase {
  let testDb: TestDatabase | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    setDatabase(testDb);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await testDb?.destroy();
  });
  return () => {
    if (!testDb) throw new Error("The test database is opened in beforeAll");
    return testDb;
  };
}
