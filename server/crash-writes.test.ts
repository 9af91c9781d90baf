import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, rowsOf } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { createTestDatabase, createTestDataDir, type TestDatabase } from "~/db/test-db.server";
import { insertAccounts, type LiveAccount, signIn } from "../tests/support/live-server";
import { freePort } from "../tests/support/ports";
import { productionBuild } from "../tests/support/production-build";

/**
 * Crash and faults: people keep sharing posts while the production server is killed with
 * SIGKILL, twice, and restarted on the same data. Every post the server acknowledged (its
 * redirect back to the feed) must be there after the restarts, exactly once. Runs on PGlite,
 * and on PostgreSQL under `npm run test:pg`.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ON_POSTGRES = Boolean(process.env.TEST_DATABASE_URL);
const PEOPLE: LiveAccount[] = Array.from({ length: 4 }, (_, i) => ({
  id: `crash-writer-${i}`,
  email: `writer${i}@crash.test`,
  username: `crash_writer_${i}`,
  displayName: `Crash Writer ${i}`,
}));
/** Acknowledged posts per cycle before the kill (the writers keep going while it lands). */
const ACKS_BEFORE_KILL = 12;

interface Server {
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

describe(`posts shared while the server is killed (kill -9) and restarted, on ${ON_POSTGRES ? "PostgreSQL" : "PGlite"}`, () => {
  let buildDir: string;
  let dataDir: string;
  let base: string;
  let port: number;
  let testDb: TestDatabase | undefined;
  let running: Server | undefined;
  const logs: string[] = [];

  function start(): Server {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (key.startsWith("VITEST") || key.startsWith("GITHUB_CLIENT_")) continue;
      if (["DATABASE_URL", "SMTP_URL", "BASE_URL", "TEST_DATABASE_URL"].includes(key)) continue;
      env[key] = value;
    }
    let output = "";
    const child = spawn(process.execPath, [path.join(buildDir, "server.mjs")], {
      cwd: ROOT,
      env: {
        ...env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: base,
        DATA_DIR: dataDir,
        ...(testDb?.databaseUrl ? { DATABASE_URL: testDb.databaseUrl } : {}),
        SOUNDTRAIL_BUILD_DIR: buildDir,
        SHUTDOWN_DRAIN_SECONDS: "0",
        TRUST_PROXY: "on",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d) => {
      output += d;
    });
    child.stderr?.on("data", (d) => {
      output += d;
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    running = { child, output: () => output, exited };
    return running;
  }

  async function ready(server: Server): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
      const ok = await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`not ready in 2 minutes:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function kill9(server: Server): Promise<void> {
    server.child.kill("SIGKILL");
    await server.exited;
    logs.push(server.output());
    running = undefined;
  }

  /** Opens the data the server wrote (the server stopped: PGlite has one user at a time). */
  async function openData(): Promise<DatabaseHandle> {
    if (testDb) return testDb;
    return openDatabase({ dataDir: path.join(dataDir, "pglite") });
  }

  beforeAll(async () => {
    buildDir = await productionBuild();
    dataDir = mkdtempSync(path.join(tmpdir(), "st-crash-writes-"));
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    if (ON_POSTGRES) {
      testDb = await createTestDatabase();
      await insertAccounts(testDb.db, PEOPLE);
    } else {
      await createTestDataDir(path.join(dataDir, "pglite"));
      const handle = await openData();
      await migrateDatabase(handle);
      await insertAccounts(handle.db, PEOPLE);
      await handle.close();
    }
  }, 600_000);

  afterAll(async () => {
    if (running) await kill9(running);
    await testDb?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("keeps every acknowledged post across two kills, each exactly once", async () => {
    const acknowledged: string[] = [];
    let server = start();
    await ready(server);
    const cookies = await Promise.all(
      PEOPLE.map((person, i) => signIn(base, person.email, `198.51.100.${i + 1}`)),
    );

    for (let cycle = 0; cycle < 2; cycle++) {
      const target = acknowledged.length + ACKS_BEFORE_KILL;
      let stop = false;
      const writers = PEOPLE.map(async (_, i) => {
        for (let n = 0; !stop; n++) {
          const title = `Crash ${cycle}.${i}.${n}`;
          const form = new FormData();
          form.set("kind", "track");
          form.set("title", title);
          form.set("artist", "The Interrupters");
          form.set("note", `cycle ${cycle} #crash`);
          form.set("audience", "everyone");
          try {
            const response = await fetch(`${base}/feed`, {
              method: "POST",
              redirect: "manual",
              headers: {
                Cookie: cookies[i] ?? "",
                Origin: base,
                "X-Forwarded-For": `198.51.100.${i + 1}`,
              },
              body: form,
            });
            await response.arrayBuffer();
            // The redirect back to the feed is the acknowledgement; anything else is a failure
            // the person saw, which this suite does not expect before the kill.
            if (response.status === 302 || response.status === 303) acknowledged.push(title);
            else if (!stop) throw new Error(`${title}: ${response.status}`);
          } catch (error) {
            if (!stop) throw error;
          }
        }
      });
      // Kill while the writers are still sending.
      const killed = (async () => {
        while (acknowledged.length < target) {
          if (server.child.exitCode !== null) throw new Error(server.output());
          await new Promise((r) => setTimeout(r, 20));
        }
        stop = true;
        await kill9(server);
      })();
      await Promise.all([killed, ...writers]);

      server = start();
      await ready(server);
    }

    // The sessions made before the kills still work: one more post, acknowledged.
    const after = await fetch(`${base}/feed`, {
      headers: { Cookie: cookies[0] ?? "" },
      redirect: "manual",
    });
    expect(after.status).toBe(200);

    server.child.kill("SIGTERM");
    await server.exited;
    running = undefined;
    const handle = await openData();
    try {
      const rows = rowsOf<{ title: string; n: number }>(
        await handle.db.execute(
          sql`select title, count(*)::int as n from posts where title like 'Crash %' group by title`,
        ),
      );
      const stored = new Map(rows.map((r) => [r.title, Number(r.n)]));
      const lost = acknowledged.filter((title) => !stored.has(title));
      const twice = rows.filter((r) => Number(r.n) > 1).map((r) => r.title);
      expect(acknowledged.length).toBeGreaterThanOrEqual(2 * ACKS_BEFORE_KILL);
      expect(lost).toEqual([]);
      expect(twice).toEqual([]);
      // Each stored post reached its author's own timeline in the same transaction.
      const unfanned = rowsOf<{ n: number }>(
        await handle.db.execute(
          sql`select count(*)::int as n from posts p where p.title like 'Crash %'
            and not exists (select 1 from home_timeline t where t.post_id = p.id and t.user_id = p.author_id)`,
        ),
      );
      expect(Number(unfanned[0]?.n)).toBe(0);
    } finally {
      if (!testDb) await handle.close();
    }
  }, 600_000);
});
