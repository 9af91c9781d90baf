import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { createTestDataDir } from "~/db/test-db.server";
import { seedDatabase } from "~/seed.server";
import {
  ADMIN_URL,
  createEmptyDatabase,
  pgQuery,
  runOps,
  tableDigests,
} from "../tests/support/ops-servers";

/*
 * `npm run backup` → wipe → `npm run restore` → the same data, table by table and row by row
 * (an md5 of every table's rows), on the embedded database and on PostgreSQL. The commands run
 * as child processes, as an operator runs them.
 */

/** Adds what a used instance has beyond the demo seed: a session and a notification. */
async function addUsageRows(db: Parameters<typeof seedDatabase>[0]): Promise<void> {
  await db.execute(sql`insert into session (id, expires_at, token, updated_at, user_id)
    select 'backup-session', now() + interval '7 days', 'backup-token', now(), id
    from "user" order by id limit 1`);
  await db.execute(sql`insert into notifications (recipient_id, kind, group_key)
    select id, 'follow', 'backup' from "user" order by id limit 1`);
}

describe("backup and restore of the embedded database", () => {
  let dataDir: string;
  let before: Awaited<ReturnType<typeof tableDigests>>;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "st-backup-"));
    await createTestDataDir(path.join(dataDir, "pglite"));
    const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
    try {
      await migrateDatabase(handle);
      await seedDatabase(handle.db);
      await addUsageRows(handle.db);
      before = await tableDigests(async (text) => rowsOf(await handle.db.execute(sql.raw(text))));
    } finally {
      await handle.close();
    }
  }, 120_000);

  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses while a server owns the data directory (the documented pause)", async () => {
    const lock = path.join(dataDir, "pglite", "soundtrail.lock");
    // This test process stands in for a running server: a live pid in the lock file.
    writeFileSync(lock, String(process.pid));
    try {
      const result = await runOps(["backup", "--out", path.join(dataDir, "no.tar.gz")], {
        DATA_DIR: dataDir,
      });
      expect(result.code).toBe(1);
      expect(result.output).toContain("stop the server, run npm run backup, start it again");
      expect(existsSync(path.join(dataDir, "no.tar.gz"))).toBe(false);
    } finally {
      rmSync(lock, { force: true });
    }
  });

  it("writes the backup under DATA_DIR/backups by default (the one place the server's user may write)", async () => {
    const result = await runOps(["backup"], { DATA_DIR: dataDir });
    expect(result.code, result.output).toBe(0);
    const written = readdirSync(path.join(dataDir, "backups")).filter((name) =>
      /^soundtrail-pglite-.+\.tar\.gz$/.test(name),
    );
    expect(written).toHaveLength(1);
    expect(result.output).toContain(path.join(dataDir, "backups", written[0] ?? ""));
  });

  it("says which engine a backup is for instead of failing inside it", async () => {
    const dump = path.join(dataDir, "from-postgres.dump");
    writeFileSync(dump, Buffer.concat([Buffer.from("PGDMP"), Buffer.alloc(64)]));
    const refused = await runOps(["restore", dump], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("is a backup of a PostgreSQL database (pg_dump)");
    expect(refused.output).not.toMatch(/\n\s+at /);
    const other = path.join(dataDir, "notes.txt");
    writeFileSync(other, "not a backup");
    expect((await runOps(["restore", other], { DATA_DIR: dataDir })).output).toContain(
      "is not a Soundtrail backup",
    );
  });

  it("backup → wipe → restore gives back the same rows", async () => {
    const file = path.join(dataDir, "backups", "embedded.tar.gz");
    const backedUp = await runOps(["backup", "--out", file], { DATA_DIR: dataDir });
    expect(backedUp.code, backedUp.output).toBe(0);
    expect(statSync(file).size).toBeGreaterThan(0);

    // Restoring over an existing database needs --force.
    const refused = await runOps(["restore", file], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("--force");

    rmSync(path.join(dataDir, "pglite"), { recursive: true, force: true });
    const restored = await runOps(["restore", file], { DATA_DIR: dataDir });
    expect(restored.code, restored.output).toBe(0);

    const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
    try {
      const after = await tableDigests(async (text) =>
        rowsOf(await handle.db.execute(sql.raw(text))),
      );
      expect(after).toEqual(before);
      expect(after.posts?.rows).toBeGreaterThan(400);
      expect(after.media?.rows).toBeGreaterThan(0);
      expect(after.session?.rows).toBe(1);
    } finally {
      await handle.close();
    }

    // --force keeps the database it replaces next to it.
    const forced = await runOps(["restore", file, "--force"], { DATA_DIR: dataDir });
    expect(forced.code, forced.output).toBe(0);
    expect(readdirSync(dataDir).some((name) => name.startsWith("pglite.before-restore-"))).toBe(
      true,
    );
  }, 120_000);
});

describe.skipIf(!ADMIN_URL)("backup and restore on PostgreSQL (pg_dump custom format)", () => {
  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let workDir: string;
  let before: Awaited<ReturnType<typeof tableDigests>>;

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), "st-pgbackup-"));
    database = await createEmptyDatabase("st_backup");
    const handle = await openDatabase({ databaseUrl: database.url });
    try {
      await migrateDatabase(handle);
      await seedDatabase(handle.db);
      await addUsageRows(handle.db);
    } finally {
      await handle.close();
    }
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    before = await tableDigests(pgQuery(client));
    await client.end();
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("backup → drop the database → restore gives back the same rows", async () => {
    const file = path.join(workDir, "soundtrail.dump");
    const env = { DATABASE_URL: database.url, DATA_DIR: workDir };
    const backedUp = await runOps(["backup", "--out", file], env);
    expect(backedUp.code, backedUp.output).toBe(0);
    expect(statSync(file).size).toBeGreaterThan(0);

    const refused = await runOps(["restore", file], env);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("--force");

    // Wipe: the database is dropped and created again, empty.
    await database.drop();
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${database.name}`);
    await admin.end();

    const restored = await runOps(["restore", file], env);
    expect(restored.code, restored.output).toBe(0);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const after = await tableDigests(pgQuery(client));
      expect(after).toEqual(before);
      expect(after.posts?.rows).toBeGreaterThan(400);
      // The migrations journal came back too: a server starting on it applies nothing twice.
      const { rows } = await client.query<{ n: number }>(
        "select count(*)::int as n from drizzle.__drizzle_migrations",
      );
      expect(rows[0]?.n).toBeGreaterThan(10);
    } finally {
      await client.end();
    }

    const forced = await runOps(["restore", file, "--force"], env);
    expect(forced.code, forced.output).toBe(0);

    // The embedded database's backup (a gzipped tarball) is not for this engine: it says so.
    const tarball = path.join(workDir, "embedded.tar.gz");
    writeFileSync(tarball, Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]));
    const wrongEngine = await runOps(["restore", tarball], env);
    expect(wrongEngine.code).toBe(1);
    expect(wrongEngine.output).toContain("is a backup of the embedded database (PGlite)");
  }, 120_000);
});
