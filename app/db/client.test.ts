import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { count, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from "../lib/env.server";
import {
  DatabaseUnavailableError,
  embeddedStatementStats,
  openDatabase,
  pingDatabase,
  rowsOf,
  WORD_SIMILARITY_THRESHOLD,
  withoutSlowStatementLog,
} from "./client.server";
import { migrateDatabase } from "./migrate.server";
import { appMeta } from "./schema";
import { createTestDatabase, type TestDatabase } from "./test-db.server";

describe("database layer", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(() => testDb.destroy());

  it("applies the committed migrations and answers queries", async () => {
    expect(await pingDatabase(testDb.db)).toBe(true);
    await testDb.db.insert(appMeta).values({ key: "first_start", value: "now" });
    const rows = await testDb.db.select().from(appMeta).where(eq(appMeta.key, "first_start"));
    expect(rows).toEqual([expect.objectContaining({ key: "first_start", value: "now" })]);
  });

  it("times the embedded engine's statements, in and out of transactions", async (context) => {
    if (testDb.kind !== "pglite") context.skip();
    const before = { ...embeddedStatementStats(), counts: [...embeddedStatementStats().counts] };
    await testDb.db.execute(sql`select pg_sleep(0.12)`);
    await testDb.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_sleep(0.06)`);
    });
    const after = embeddedStatementStats();
    // Both statements (the one in the transaction too).
    expect(after.total - before.total).toBeGreaterThanOrEqual(2);
    expect(after.longestMs).toBeGreaterThanOrEqual(120);
    // Statements at most 50 ms (bucket 1) grew by the others, not by the two sleeps.
    const over50 = (s: typeof before) => s.total - (s.counts[1] ?? 0);
    expect(over50(after) - over50(before)).toBeGreaterThanOrEqual(2);
  });

  it("still counts slow statements it does not log (the catching up on start)", async (context) => {
    if (testDb.kind !== "pglite") context.skip();
    const before = embeddedStatementStats().total;
    const answer = await withoutSlowStatementLog(async () => {
      await testDb.db.execute(sql`select pg_sleep(0.11)`);
      return "done";
    });
    expect(answer).toBe("done");
    expect(embeddedStatementStats().total - before).toBeGreaterThanOrEqual(1);
    expect(embeddedStatementStats().longestMs).toBeGreaterThanOrEqual(110);
  });

  it("can apply migrations again without changing anything", async () => {
    await migrateDatabase(testDb);
    const rows = await testDb.db.select({ n: count() }).from(appMeta);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it("gives every session the settings search relies on, and no GIN pending lists", async () => {
    // People search's `<%` (index-assisted) must mean what word_similarity(…) >= 0.3 meant.
    const threshold = await testDb.db.execute(
      sql`select current_setting('pg_trgm.word_similarity_threshold') as threshold`,
    );
    expect(rowsOf<{ threshold: string }>(threshold)).toEqual([
      { threshold: String(WORD_SIMILARITY_THRESHOLD) },
    ]);
    const gin = rowsOf<{ name: string; options: string[] | null }>(
      await testDb.db.execute(sql`
        select c.relname as name, c.reloptions as options
        from pg_class c join pg_am am on am.oid = c.relam
        where am.amname = 'gin' and c.relkind = 'i' order by 1`),
    );
    expect(gin.length).toBeGreaterThanOrEqual(6);
    for (const index of gin) expect(index.options, index.name).toContain("fastupdate=off");
  });
});

// Each test here runs PGlite's initdb in a new directory (and the first one every migration):
// seconds on an idle 2-core machine, past 30 s when the whole suite shares it with browser tests.
describe("embedded database on disk", { timeout: 120_000 }, () => {
  it("keeps what was written after a clean close", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "st-pglite-"));
    const first = await openDatabase({ dataDir: dir });
    await migrateDatabase(first);
    await first.db.insert(appMeta).values({ key: "k", value: "persisted" });
    const buffers = sql`select current_setting('shared_buffers') as size`;
    // PGLITE_SHARED_BUFFERS_MB's default, set alone (PGlite's other start parameters kept).
    expect(rowsOf(await first.db.execute(buffers))).toEqual([
      { size: `${DEFAULT_PGLITE_SHARED_BUFFERS_MB}MB` },
    ]);
    await first.close();

    const second = await openDatabase({ dataDir: dir, sharedBuffersMb: 16 });
    const rows = await second.db.select({ value: appMeta.value }).from(appMeta);
    const resized = rowsOf(await second.db.execute(buffers));
    await second.close();
    expect(rows).toEqual([{ value: "persisted" }]);
    expect(resized).toEqual([{ size: "16MB" }]);
  });

  it("refuses a data directory another live process holds, naming the directory", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "st-pglite-"));
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      writeFileSync(path.join(dir, "soundtrail.lock"), String(other.pid));
      const error = await openDatabase({ dataDir: dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect((error as Error).message).toContain(dir);
      expect((error as Error).message).toContain("in use by another Soundtrail process");
    } finally {
      other.kill();
    }
  });

  it("takes over a lock left behind by a process that is gone", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "st-pglite-"));
    writeFileSync(path.join(dir, "soundtrail.lock"), "999999999");
    const handle = await openDatabase({ dataDir: dir });
    expect(await pingDatabase(handle.db)).toBe(true);
    await handle.close();
  });
});

describe("PostgreSQL server", () => {
  it("explains clearly when the server cannot be reached", async () => {
    const error = await openDatabase({
      databaseUrl: "postgres://nobody@127.0.0.1:1/soundtrail",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect((error as Error).message).toContain("Cannot reach PostgreSQL at 127.0.0.1:1/soundtrail");
  });
});
