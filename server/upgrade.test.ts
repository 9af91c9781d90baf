import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_URL,
  createEmptyDatabase,
  freePorts,
  ROOT,
  type ServerProcess,
  startServer,
  stopServer,
  waitForReady,
} from "../tests/support/ops-servers";
import { productionBuild } from "../tests/support/production-build";

/*
 * Upgrades: migrations are forward-only and applied on start under an advisory lock. Two
 * instances started at the same moment on an empty PostgreSQL database both come up, and every
 * migration is applied exactly once. Needs PostgreSQL: runs under `npm run test:pg`.
 */

describe.skipIf(!ADMIN_URL)("two instances starting together on an empty database", () => {
  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let dataDir: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createEmptyDatabase("st_upgrade");
    dataDir = mkdtempSync(path.join(tmpdir(), "st-upgrade-"));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => stopServer(server)));
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("both come up and every migration is applied once", async () => {
    const buildDir = await productionBuild();
    const [portA = 0, portB = 0] = await freePorts(2);
    const env = {
      DATABASE_URL: database.url,
      AUTH_SECRET: "upgrade-test-secret-that-is-long-enough-01",
    };
    // Spawned back to back: both reach the migration step together.
    servers.push(
      startServer("a", portA, buildDir, { ...env, DATA_DIR: path.join(dataDir, "a") }),
      startServer("b", portB, buildDir, { ...env, DATA_DIR: path.join(dataDir, "b") }),
    );
    await Promise.all(servers.map((server) => waitForReady(server)));

    const journal = JSON.parse(
      readFileSync(path.join(ROOT, "drizzle/meta/_journal.json"), "utf8"),
    ) as { entries: { tag: string }[] };
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ hash: string }>(
        "select hash from drizzle.__drizzle_migrations",
      );
      expect(rows).toHaveLength(journal.entries.length);
      expect(new Set(rows.map((r) => r.hash)).size).toBe(journal.entries.length);
      const tables = await client.query<{ n: number }>(
        "select count(*)::int as n from pg_tables where schemaname = 'public'",
      );
      expect(tables.rows[0]?.n).toBeGreaterThan(20);
    } finally {
      await client.end();
    }
    for (const server of servers) {
      expect(server.output()).not.toMatch(/already exists|could not start/i);
      const page = await fetch(`${server.base}/`);
      expect(page.status).toBe(200);
      await page.body?.cancel();
    }
    // A restart (the upgrade path with nothing new) applies nothing and comes up again.
    expect(await stopServer(servers[0])).toBe(0);
    const [portC = 0] = await freePorts(1);
    const again = startServer("a2", portC, buildDir, { ...env, DATA_DIR: path.join(dataDir, "a") });
    servers.push(again);
    await waitForReady(again);
  }, 420_000);
});
