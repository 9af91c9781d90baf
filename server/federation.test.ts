import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { createTestDataDir } from "~/db/test-db.server";
import { insertAccounts, type LiveAccount, signIn } from "../tests/support/live-server";
import { productionBuild } from "../tests/support/production-build";

/**
 * Two real Soundtrail servers (the production build, each with its own BASE_URL on its own
 * loopback address and its own database) federating over ActivityPub: ana on A finds bo on B by
 * `@bo@host`, follows (B accepts), bo posts a track → it reaches ana's home feed; ana likes and
 * replies → bo is notified and sees the reply; bo deletes the post → it leaves ana's feed.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const A = { host: "127.0.0.52", port: 4252 };
const B = { host: "127.0.0.53", port: 4253 };
const ANA: LiveAccount = {
  id: "fed-ana",
  email: "ana@a.test",
  username: "ana",
  displayName: "Ana Alpha",
};
const BO: LiveAccount = {
  id: "fed-bo",
  email: "bo@b.test",
  username: "bo",
  displayName: "Bo Beta",
};

interface Instance {
  base: string;
  child: ChildProcess;
  dataDir: string;
  output(): string;
}

const instances: Instance[] = [];

async function start(at: { host: string; port: number }, account: LiveAccount): Promise<Instance> {
  const buildDir = await productionBuild();
  const dataDir = mkdtempSync(path.join(tmpdir(), "st-fed-"));
  await createTestDataDir(path.join(dataDir, "pglite"));
  const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
  try {
    await migrateDatabase(handle);
    await insertAccounts(handle.db, [account]);
  } finally {
    await handle.close();
  }
  const base = `http://${at.host}:${at.port}`;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("VITEST") && key !== "DATABASE_URL" && key !== "SMTP_URL") env[key] = value;
  }
  let output = "";
  const child = spawn(process.execPath, [path.join(buildDir, "server.mjs")], {
    cwd: ROOT,
    env: {
      ...env,
      NODE_ENV: "production",
      HOST: at.host,
      PORT: String(at.port),
      BASE_URL: base,
      DATA_DIR: dataDir,
      SOUNDTRAIL_BUILD_DIR: buildDir,
      LOG_LEVEL: "warn",
      TRUST_PROXY: "on",
      FEDERATION: "on",
      FEDERATION_ALLOW_LOOPBACK: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const instance = { base, child, dataDir, output: () => output };
  instances.push(instance);
  await until(`${base} ready`, async () => {
    if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
    return fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
  });
  return instance;
}

/** Waits until `condition` holds (no timed assertion: a condition, polled). */
async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 240_000;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(
        `gave up waiting for: ${what}\n${instances.map((i) => i.output()).join("\n")}`,
      );
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

let a: Instance;
let b: Instance;
let anaCookie: string;
let boCookie: string;

beforeAll(async () => {
  a = await start(A, ANA);
  b = await start(B, BO);
  anaCookie = await signIn(a.base, ANA.email, "10.9.0.1");
  boCookie = await signIn(b.base, BO.email, "10.9.0.2");
}, 900_000);

afterAll(async () => {
  for (const instance of instances) {
    if (instance.child.exitCode === null && instance.child.signalCode === null) {
      instance.child.kill("SIGTERM");
      await new Promise((r) => instance.child.once("exit", r));
    }
    rmSync(instance.dataDir, { recursive: true, force: true });
  }
});

function get(instance: Instance, url: string, cookie: string, ip: string, accept = "text/html") {
  return fetch(`${instance.base}${url}`, {
    headers: { Cookie: cookie, "X-Forwarded-For": ip, Accept: accept },
    redirect: "manual",
  });
}

function post(
  instance: Instance,
  url: string,
  cookie: string,
  ip: string,
  body: FormData | URLSearchParams,
) {
  return fetch(`${instance.base}${url}`, {
    method: "POST",
    headers: { Cookie: cookie, "X-Forwarded-For": ip, Origin: instance.base },
    body,
    redirect: "manual",
  });
}

async function collectionSize(instance: Instance, url: string): Promise<number> {
  const response = await fetch(`${instance.base}${url}`, {
    headers: { Accept: "application/activity+json" },
  });
  if (!response.ok) return -1;
  return ((await response.json()) as { totalItems?: number }).totalItems ?? -1;
}

interface FeedJson {
  posts: { id: string; title: string; likeCount?: number }[];
}

async function anaFeed(): Promise<FeedJson["posts"]> {
  const response = await get(
    a,
    "/api/feed?tab=following",
    anaCookie,
    "10.9.0.1",
    "application/json",
  );
  return ((await response.json()) as FeedJson).posts;
}

describe("two Soundtrail servers federate", () => {
  it("follow → accept → a post arrives → like and reply arrive → delete follows", async () => {
    // ana searches bo's handle on A: the remote profile opens.
    const handle = `@bo@${B.host}:${B.port}`;
    const search = await get(a, `/search?q=${encodeURIComponent(handle)}`, anaCookie, "10.9.0.1");
    expect(search.status).toBe(302);
    const profilePath = search.headers.get("location") ?? "";
    expect(decodeURIComponent(profilePath)).toBe(`/u/bo@${B.host}:${B.port}`);
    const profile = await (await get(a, profilePath, anaCookie, "10.9.0.1")).text();
    expect(profile).toContain("Bo Beta");
    const userId = /name="userId" value="([^"]+)"/.exec(profile)?.[1];
    expect(userId).toBeTruthy();

    // Follow → a Follow goes to B, B (no approval) accepts, A records the follow.
    const followed = await post(
      a,
      "/api/follow",
      anaCookie,
      "10.9.0.1",
      new URLSearchParams({ userId: userId ?? "", intent: "follow", name: "Bo Beta" }),
    );
    expect(followed.status).toBeLessThan(400);
    await until(
      "B counts ana as bo's follower",
      async () => (await collectionSize(b, "/u/bo/followers")) === 1,
    );
    await until(
      "A counts bo among ana's following (Accept arrived)",
      async () => (await collectionSize(a, "/u/ana/following")) === 1,
    );

    // bo posts a track to Everyone on B → it arrives in ana's home feed on A.
    const form = new FormData();
    form.set("kind", "track");
    form.set("title", "Federated Groove");
    form.set("artist", "The Remotes");
    form.set("note", "Straight from B");
    form.set("audience", "everyone");
    const shared = await post(b, "/feed", boCookie, "10.9.0.2", form as unknown as FormData);
    expect(shared.status).toBeLessThan(400);
    let arrived: FeedJson["posts"][number] | undefined;
    await until("bo's post reaches ana's feed on A", async () => {
      arrived = (await anaFeed()).find((p) => p.title === "Federated Groove");
      return arrived !== undefined;
    });

    // ana likes and replies on A → B records both and notifies bo.
    const liked = await post(
      a,
      "/api/like",
      anaCookie,
      "10.9.0.1",
      new URLSearchParams({ postId: arrived?.id ?? "", intent: "like" }),
    );
    expect(liked.status).toBeLessThan(400);
    const replied = await post(
      a,
      `/post/${arrived?.id}`,
      anaCookie,
      "10.9.0.1",
      new URLSearchParams({ intent: "add-comment", content: "Great bass from A" }),
    );
    expect(replied.status).toBeLessThan(400);
    const boPosts = (await (
      await get(b, "/api/feed?tab=following", boCookie, "10.9.0.2", "application/json")
    ).json()) as FeedJson;
    const original = boPosts.posts.find((p) => p.title === "Federated Groove");
    expect(original).toBeDefined();
    await until("ana's reply shows under bo's post on B", async () =>
      (await (await get(b, `/post/${original?.id}`, boCookie, "10.9.0.2")).text()).includes(
        "Great bass from A",
      ),
    );
    await until("bo is notified of ana's like on B", async () => {
      const page = await (await get(b, "/notifications", boCookie, "10.9.0.2")).text();
      return page.includes("liked");
    });

    // bo deletes the post on B → it leaves ana's feed on A.
    const deleted = await post(
      b,
      `/post/${original?.id}`,
      boCookie,
      "10.9.0.2",
      new URLSearchParams({ intent: "delete-post" }),
    );
    expect(deleted.status).toBeLessThan(400);
    await until(
      "the deleted post leaves ana's feed on A",
      async () => !(await anaFeed()).some((p) => p.title === "Federated Groove"),
    );
  }, 900_000);
});
