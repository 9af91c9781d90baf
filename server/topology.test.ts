import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, setDatabase } from "~/db/client.server";
import { rotateSigningKey } from "~/features/auth-api/keys.server";
import { insertAccounts, signIn } from "../tests/support/live-server";
import {
  ADMIN_URL,
  createEmptyDatabase,
  freePorts,
  openEvents,
  ROOT,
  type SseStream,
  waitFor,
} from "../tests/support/ops-servers";
import { productionBuild } from "../tests/support/production-build";
import { createTestPost } from "../tests/support/social-factories";

/*
 * The production topology of deploy/compose.yaml without Docker, through
 * deploy/run-topology.mjs: PostgreSQL, two instances and Caddy with deploy/Caddyfile as plain
 * processes. A like made through instance A reaches a browser whose live stream went through
 * the proxy to instance B; with B killed, the site keeps working through A. Needs PostgreSQL
 * (`npm run test:pg`) and Debian's caddy (.ci/run installs it).
 */

const hasCaddy = spawnSync("caddy", ["version"]).status === 0;
const METRICS_TOKEN = "topology-metrics-token-0123456789";
const ANA = {
  id: "topo-ana",
  email: "ana@topology.test",
  username: "ana_topo",
  displayName: "Ana",
};
const BEN = {
  id: "topo-ben",
  email: "ben@topology.test",
  username: "ben_topo",
  displayName: "Ben",
};

interface Topology {
  proxy: string;
  instances: { name: string; pid: number; port: number }[];
}

describe.skipIf(!ADMIN_URL || !hasCaddy)(
  "two instances behind Caddy (deploy/run-topology.mjs)",
  () => {
    let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
    let runner: ChildProcess | undefined;
    let runnerOutput = "";
    let topology: Topology;
    let handle: DatabaseHandle | undefined;
    const streams: SseStream[] = [];

    beforeAll(async () => {
      database = await createEmptyDatabase("st_topology");
      const buildDir = await productionBuild();
      const [proxyPort = 0, portA = 0, portB = 0] = await freePorts(3);
      let stdout = "";
      runner = spawn(process.execPath, [path.join(ROOT, "deploy/run-topology.mjs")], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: database.url,
          SOUNDTRAIL_BUILD_DIR: buildDir,
          PROXY_PORT: String(proxyPort),
          APP_PORTS: `${portA},${portB}`,
          METRICS_TOKEN,
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      runner.stdout?.on("data", (d) => {
        stdout += d;
      });
      runner.stderr?.on("data", (d) => {
        runnerOutput += d;
      });
      topology = await waitFor(
        "the topology to be ready",
        () => {
          if (runner?.exitCode !== null) throw new Error(`run-topology exited:\n${runnerOutput}`);
          const line = stdout.split("\n").find((l) => l.startsWith("{"));
          return line ? (JSON.parse(line) as Topology) : undefined;
        },
        { timeoutMs: 180_000 },
      );
      handle = await openDatabase({ databaseUrl: database.url });
      setDatabase(handle);
      await insertAccounts(handle.db, [ANA, BEN]);
    }, 400_000);

    afterAll(async () => {
      for (const stream of streams) stream.close();
      if (runner && runner.exitCode === null) {
        runner.kill("SIGTERM");
        await new Promise((resolve) => runner?.once("exit", resolve));
      }
      setDatabase(undefined);
      await handle?.close();
      await database?.drop();
    }, 60_000);

    /** Live streams open on an instance, read from its own /metrics. */
    async function streamsOn(port: number): Promise<number> {
      const text = await (
        await fetch(`http://127.0.0.1:${port}/metrics`, {
          headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
        })
      ).text();
      const line = text.split("\n").find((l) => l.startsWith("soundtrail_sse_connections"));
      return Number(line?.split(" ").at(-1) ?? Number.NaN);
    }

    it("one key set for both instances: a token from one works on the other, the JWKS are equal, a rotation keeps old tokens", async () => {
      const [a, b] = topology.instances.map((i) => `http://127.0.0.1:${i.port}`);
      if (!a || !b) throw new Error("two instances expected");
      const jwksOf = async (base: string) =>
        (await (await fetch(`${base}/auth/v1/.well-known/jwks.json`)).json()) as {
          keys: { kid: string }[];
        };
      const guestOn = async (base: string) => {
        const response = await fetch(`${base}/auth/v1/signup`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: "{}",
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { access_token: string }).access_token;
      };
      const userOn = async (base: string, token: string) => {
        const response = await fetch(`${base}/auth/v1/user`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        await response.body?.cancel();
        return response.status;
      };
      const before = await jwksOf(a);
      expect(await jwksOf(b)).toEqual(before);
      const fromA = await guestOn(a);
      const fromB = await guestOn(b);
      expect(await userOn(b, fromA)).toBe(200);
      expect(await userOn(a, fromB)).toBe(200);
      const feed = await fetch(`${b}/api/feed`, { headers: { Authorization: `Bearer ${fromA}` } });
      expect(feed.status).toBe(200);
      expect(await feed.json()).toMatchObject({ posts: expect.any(Array) });

      // npm run auth:rotate-key's work, on the shared database.
      const kid = await rotateSigningKey({ AUTH_JWT_EXPIRY: 3600 });
      const after = await jwksOf(a);
      expect(await jwksOf(b)).toEqual(after);
      expect(after.keys.map((k) => k.kid)).toEqual(
        expect.arrayContaining([kid, ...before.keys.map((k) => k.kid)]),
      );
      expect(await userOn(a, fromA)).toBe(200);
      expect(await userOn(b, fromA)).toBe(200);
      expect(await userOn(b, fromB)).toBe(200);
      expect(await userOn(a, await guestOn(b))).toBe(200);
    }, 120_000);

    it("a like through instance A reaches the stream the proxy gave to instance B, then B dies and A carries on", async () => {
      const { proxy } = topology;
      // Both sign in through the proxy (Caddy sets X-Forwarded-For; whatever they send is dropped).
      const ana = await signIn(proxy, ANA.email, "10.8.0.1");
      const ben = await signIn(proxy, BEN.email, "10.8.0.2");
      const postId = await createTestPost(ANA.id, { title: "Windowlicker", artist: "Aphex Twin" });

      // Ana's browser: a live stream through the proxy. Which instance did it land on?
      const stream = await openEvents(proxy, ana);
      streams.push(stream);
      expect(stream.status).toBe(200);
      await waitFor("ready through the proxy", () =>
        stream.events[0]?.event === "ready" ? true : undefined,
      );
      const counts = await Promise.all(topology.instances.map((i) => streamsOn(i.port)));
      expect([...counts].sort()).toEqual([0, 1]);
      const b = topology.instances.find((_, i) => counts[i] === 1);
      const a = topology.instances.find((_, i) => counts[i] === 0);
      if (!a || !b) throw new Error("the stream is on no instance");

      // Ben likes the post through instance A itself.
      const aBase = `http://127.0.0.1:${a.port}`;
      const liked = await fetch(`${aBase}/api/like`, {
        method: "POST",
        headers: { Cookie: ben, Origin: proxy },
        body: new URLSearchParams({ postId, intent: "like" }),
      });
      expect(liked.status).toBe(200);
      await liked.body?.cancel();
      const notification = await waitFor("the like on Ana's stream through the proxy", () =>
        stream.events.find((e) => e.event === "notification"),
      );
      expect(JSON.parse(notification.data)).toMatchObject({ kind: "like", actorCount: 1 });

      // Instance B dies without warning: the stream breaks, the site goes on through A.
      process.kill(b.pid, "SIGKILL");
      await stream.ended;
      for (let i = 0; i < 6; i++) {
        const page = await fetch(`${proxy}/feed`, { headers: { Cookie: ana } });
        expect(page.status).toBe(200);
        expect(await page.text()).toContain("Windowlicker");
      }
      const again = await openEvents(proxy, ana);
      streams.push(again);
      expect(again.status).toBe(200);
      await waitFor("ready again through the proxy", () =>
        again.events[0]?.event === "ready" ? true : undefined,
      );
      const unliked = await fetch(`${proxy}/api/like`, {
        method: "POST",
        headers: { Cookie: ben, Origin: proxy },
        body: new URLSearchParams({ postId, intent: "unlike" }),
      });
      expect(unliked.status).toBe(200);
      await unliked.body?.cancel();
      // The proxy answers /metrics with 404: metrics are scraped from the instances only.
      const metrics = await fetch(`${proxy}/metrics`, {
        headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(metrics.status).toBe(404);
      await metrics.body?.cancel();
    }, 120_000);

    it("compresses pages through the proxy", async () => {
      const response = await fetch(`${topology.proxy}/`, {
        headers: { "Accept-Encoding": "gzip" },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-encoding")).toMatch(/gzip|br|zstd/);
      await response.text();
    });
  },
);
