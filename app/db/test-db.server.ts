import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type DatabaseHandle, openDatabase, PGLITE_EXTENSIONS } from "./client.server";
import { migrateDatabase } from "./migrate.server";

export interface TestDatabase extends DatabaseHandle {
  /** Closes the connection and removes the test database. */
  destroy(): Promise<void>;
}

/**
 * What a migrated database depends on: the migration files and the engine's version. A
 * template made from other migrations is never reused.
 */
function migrationsFingerprint(folder = path.resolve("drizzle")): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else hash.update(name).update(readFileSync(file));
    }
  };
  walk(folder);
  const pglite = JSON.parse(
    readFileSync(path.resolve("node_modules/@electric-sql/pglite/package.json"), "utf8"),
  ) as { version: string };
  hash.update(pglite.version);
  return hash.digest("hex").slice(0, 16);
}

let templatePath: Promise<string> | undefined;

/**
 * A migrated PGlite data directory as a tarball in the temp folder, made once per set of
 * migrations and shared by every test file and worker: opening an empty PGlite runs initdb
 * (seconds on 2 cores), loading a tarball does not. Written to a temporary name and renamed,
 * so concurrent workers never read half a file (the last rename wins; the contents are equal).
 */
function pgliteTemplate(): Promise<string> {
  templatePath ??= (async () => {
    const file = path.join(tmpdir(), `soundtrail-test-template-${migrationsFingerprint()}.tar`);
    if (existsSync(file)) return file;
    const handle = await openDatabase({});
    try {
      await migrateDatabase(handle);
      await handle.pglite?.exec("checkpoint");
      const dump = await handle.pglite?.dumpDataDir("none");
      if (!dump) throw new Error("PGlite gave no data directory dump");
      const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, file);
    } finally {
      await handle.close();
    }
    return file;
  })();
  return templatePath;
}

/**
 * A migrated PGlite data directory on disk at `dir` (empty or absent), for suites that start
 * the production server on files: the template unpacked there, the same database as opening
 * an empty directory and migrating it, without initdb and every migration (seconds of CPU per
 * suite). The production path from an empty directory is tested in app/db/client.test.ts and
 * server/body-limits.test.ts.
 */
export async function createTestDataDir(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const template = readFileSync(await pgliteTemplate());
  const pglite = new PGlite(dir, {
    extensions: PGLITE_EXTENSIONS,
    loadDataDir: new Blob([template]),
  });
  await pglite.waitReady;
  await pglite.close();
}

/** The PostgreSQL template of the current migrations, made once (under an advisory lock). */
async function postgresTemplate(adminUrl: string): Promise<string> {
  const name = `st_template_${migrationsFingerprint()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query("select pg_advisory_lock(hashtext('soundtrail-test-template'))");
    const { rowCount } = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (!rowCount) {
      // Templates of older migrations are of no further use.
      const old = await admin.query<{ datname: string }>(
        "select datname from pg_database where datname like 'st\\_template\\_%'",
      );
      for (const { datname } of old.rows) {
        await admin.query(`drop database if exists ${datname} with (force)`);
      }
      const building = `${name}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      const handle = await openDatabase({ databaseUrl: url.toString() });
      try {
        await migrateDatabase(handle);
      } finally {
        await handle.close();
      }
      await admin.query(`alter database ${building} rename to ${name}`);
    }
  } finally {
    await admin.query("select pg_advisory_unlock(hashtext('soundtrail-test-template'))");
    await admin.end();
  }
  return name;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or — when
 * TEST_DATABASE_URL is set (`npm run test:pg`) — a new database on that PostgreSQL server.
 * Both are copies of one database migrated once (a PGlite tarball, a PostgreSQL template).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const template = readFileSync(await pgliteTemplate());
    const handle = await openDatabase({ loadDataDir: new Blob([template]) });
    return { ...handle, destroy: () => handle.close() };
  }
  const name = `st_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${await postgresTemplate(adminUrl)}`);
  } catch (error) {
    // Another checkout with other migrations replaced the template meanwhile: make it again.
    if ((error as { code?: string }).code !== "3D000") throw error;
    await admin.query(`create database ${name} template ${await postgresTemplate(adminUrl)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString() });
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
