import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server as NetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb, setDatabase } from "~/db/client.server";
import { account } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { getAuth, resetAuth } from "~/features/auth/better-auth.server";
import { hashPassword } from "~/features/auth/password.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser } from "../tests/support/factories";
import { freePort } from "../tests/support/ports";
import { productionBuild } from "../tests/support/production-build";

/*
 * Database outage, on PostgreSQL: a production server process talks to PostgreSQL through a
 * TCP proxy owned by this test. Closing the proxy (listener and every connection) is the
 * outage — no mocked driver. While it lasts, documents, `.data` requests and resource routes
 * answer 503 with Retry-After and a clear message, the log stays a handful of JSON lines,
 * and once the proxy is back the same requests answer 200 without a restart.
 * Needs a PostgreSQL server: runs under `npm run test:pg` (TEST_DATABASE_URL); PGlite runs in
 * the server's own process, so there is nothing between them to take away.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PASSWORD = "Violet-Harbour-Lantern-77";
const AUTH_SECRET = process.env.AUTH_SECRET ?? "";
const DEADLINE_MS = 20_000;

function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("VITEST") || key === "TEST_DATABASE_URL") continue;
    if (["BASE_URL", "NODE_ENV", "LOG_LEVEL", "ADMIN_EMAILS", "AUTH_SECRET"].includes(key))
      continue;
    if (key.startsWith("GITHUB_CLIENT_") || key === "SMTP_URL" || key === "DATABASE_URL") continue;
    env[key] = value;
  }
  return { ...env, ...overrides };
}

async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  explain: () => string = () => "",
): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${explain()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A TCP proxy to PostgreSQL that the test can take away (outage) and bring back. */
function createDatabaseProxy(port: number, target: { host: string; port: number }) {
  let server: NetServer | undefined;
  const sockets = new Set<Socket>();
  const open = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        sockets.add(client);
        sockets.add(upstream);
        client.pipe(upstream);
        upstream.pipe(client);
        const end = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        for (const s of [client, upstream]) {
          s.on("error", end);
          s.on("close", end);
        }
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  return { open, close };
}

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  "a database outage (PostgreSQL; skipped without TEST_DATABASE_URL: PGlite has no connection to lose)",
  () => {
    let testDb: TestDatabase;
    let proxy: ReturnType<typeof createDatabaseProxy>;
    let child: ChildProcess | undefined;
    let output = "";
    let base: string;
    let cookie: string;
    let dataDir: string;

    beforeAll(async () => {
      const buildDir = await productionBuild();
      testDb = await createTestDatabase();
      setDatabase(testDb);
      resetAuth();
      const user = await createTestUser({ username: "outage_ana", displayName: "Ana" });
      await getDb()
        .insert(account)
        .values({
          id: `${user.id}-credential`,
          accountId: user.id,
          providerId: "credential",
          userId: user.id,
          password: await hashPassword(PASSWORD),
        });
      const response = await getAuth().api.signInEmail({
        body: { email: user.email, password: PASSWORD },
        headers: new Headers({ [CLIENT_IP_HEADER]: "10.8.0.1" }),
        asResponse: true,
      });
      expect(response.status).toBe(200);
      cookie = response.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");

      const databaseUrl = new URL(testDb.databaseUrl ?? "");
      const proxyPort = await freePort();
      proxy = createDatabaseProxy(proxyPort, {
        host: databaseUrl.hostname,
        port: Number(databaseUrl.port || 5432),
      });
      await proxy.open();
      const viaProxy = new URL(databaseUrl);
      viaProxy.hostname = "127.0.0.1";
      viaProxy.port = String(proxyPort);

      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      dataDir = mkdtempSync(path.join(tmpdir(), "st-outage-"));
      child = spawn(process.execPath, [path.join(buildDir, "server.mjs")], {
        cwd: ROOT,
        env: childEnv({
          NODE_ENV: "production",
          PORT: String(port),
          HOST: "127.0.0.1",
          BASE_URL: base,
          DATABASE_URL: viaProxy.toString(),
          AUTH_SECRET,
          DATA_DIR: dataDir,
          SOUNDTRAIL_BUILD_DIR: buildDir,
          SHUTDOWN_DRAIN_SECONDS: "0",
          LOG_LEVEL: "warn",
          METRICS_TOKEN: "outage-metrics-token",
        }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout?.on("data", (d) => {
        output += d;
      });
      child.stderr?.on("data", (d) => {
        output += d;
      });
      await waitFor(
        "the server to be ready",
        async () => {
          if (child?.exitCode !== null) throw new Error(`the server exited:\n${output}`);
          try {
            return (await fetch(`${base}/readyz`)).status === 200 ? true : undefined;
          } catch {
            return undefined;
          }
        },
        () => output,
      );
    }, 240_000);

    afterAll(async () => {
      child?.kill("SIGKILL");
      await proxy?.close();
      setDatabase(undefined);
      resetAuth();
      await testDb?.destroy();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const get = (pathname: string) =>
      fetch(`${base}${pathname}`, { headers: { Cookie: cookie }, redirect: "manual" });

    it("answers 503 with Retry-After and a clear page while it lasts, logs little, and recovers by itself", async () => {
      // Before: all well, signed in.
      const before = await get("/feed");
      expect(before.status).toBe(200);
      expect(await before.text()).toContain("Ana");

      await proxy.close();
      const logBefore = output.length;
      const outageStarted = Date.now();

      // The document: a page that says what is going on, and when to come back.
      const page = await waitFor("a 503 for the feed document", async () => {
        const response = await get("/feed");
        return response.status === 503 ? response : undefined;
      });
      expect(page.headers.get("Retry-After")).toMatch(/^\d+$/);
      expect(page.headers.get("Content-Type")).toContain("text/html");
      const html = await page.text();
      expect(html).toContain("Soundtrail can't reach its database right now");
      expect(html).not.toContain("Something went wrong");

      // React Router's data request (client navigation): 503 with the message.
      const dataRequest = await get("/feed.data");
      expect(dataRequest.status).toBe(503);
      expect(dataRequest.headers.get("Retry-After")).toMatch(/^\d+$/);
      expect(await dataRequest.text()).toContain("can't reach its database");

      // A resource route (the live event stream, which needs the session): JSON.
      const resource = await get("/api/events");
      expect(resource.status).toBe(503);
      expect(resource.headers.get("Retry-After")).toMatch(/^\d+$/);
      expect(await resource.json()).toMatchObject({ code: "database_unavailable" });

      // Many more requests while it lasts: every one is a 503, none a 500.
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          get(["/feed", "/feed.data", "/api/events", "/notifications"][i % 4] ?? "/feed").then(
            (r) => r.status,
          ),
        ),
      );
      expect(statuses.filter((s) => s !== 503)).toEqual([]);
      expect((await fetch(`${base}/readyz`)).status).toBe(503);

      // The log: JSON lines only, the outage said once per kind and place (rate limited).
      const during = output
        .slice(logBefore)
        .split("\n")
        .filter((line) => line.trim() !== "");
      for (const line of during) expect(() => JSON.parse(line), line).not.toThrow();
      const outageLines = during
        .map((line) => JSON.parse(line) as { msg?: string; where?: string; kind?: string })
        .filter((entry) => entry.msg === "database unavailable");
      expect(outageLines.length).toBeGreaterThan(0);
      // At most one line per kind and place per 30 s window (a slow machine may see two windows).
      const windows = Math.ceil((Date.now() - outageStarted) / 30_000);
      const perKind = new Map<string, number>();
      for (const entry of outageLines) {
        const key = `${entry.where}:${entry.kind}`;
        perKind.set(key, (perKind.get(key) ?? 0) + 1);
      }
      for (const [key, lines] of perKind) expect(lines, key).toBeLessThanOrEqual(windows);
      // Far fewer lines than the 33 failed requests: not one (or a stack trace) per request.
      expect(during.length).toBeLessThan(20);

      // Back: the same requests succeed again, no restart.
      await proxy.open();
      await waitFor("the feed to answer 200 again", async () =>
        (await get("/feed")).status === 200 ? true : undefined,
      );
      expect((await get("/feed.data")).status).toBe(200);
      const events = await get("/api/events");
      expect(events.status).toBe(200);
      await events.body?.cancel();
      await waitFor("/readyz to answer 200 again", async () =>
        (await fetch(`${base}/readyz`)).status === 200 ? true : undefined,
      );
      expect(child?.exitCode).toBeNull();
      // /metrics counts the failures the log left out.
      const metrics = await fetch(`${base}/metrics`, {
        headers: { Authorization: "Bearer outage-metrics-token" },
      }).then((r) => r.text());
      const failures = metrics
        .split("\n")
        .filter((line) => line.startsWith("soundtrail_database_unavailable_total{"))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
      expect(failures).toBeGreaterThanOrEqual(outageLines.length);
    }, 120_000);
  },
);
