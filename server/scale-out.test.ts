import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb, setDatabase } from "~/db/client.server";
import { account } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { getAuth, resetAuth } from "~/features/auth/better-auth.server";
import { hashPassword } from "~/features/auth/password.server";
import { notificationsAfter } from "~/features/notifications/inbox.server";
import type { NotificationView } from "~/features/notifications/types";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser, type TestUser } from "../tests/support/factories";
import { freePorts } from "../tests/support/ports";
import { productionBuild } from "../tests/support/production-build";
import { createTestPost } from "../tests/support/social-factories";

/*
 * Scale-out on PostgreSQL: two production servers (two processes, two ports) share one
 * database. A change made through one instance reaches a browser connected to the other through
 * PostgreSQL's LISTEN/NOTIFY, and a browser that reconnects with `Last-Event-ID` gets exactly
 * what it missed. Runs under `npm run test:pg`; skipped without TEST_DATABASE_URL.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PASSWORD = "Violet-Harbour-Lantern-77";
/** The secret the in-process better-auth signs cookies with (vitest.config.ts): the servers share it. */
const AUTH_SECRET = process.env.AUTH_SECRET ?? "";
/** How long anything asynchronous may take before the test fails. */
const DEADLINE_MS = 10_000;

/** The environment of a child process: ours without what vitest put there for the app. */
function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("VITEST") || key === "TEST_DATABASE_URL") continue;
    if (["BASE_URL", "NODE_ENV", "LOG_LEVEL", "ADMIN_EMAILS", "AUTH_SECRET"].includes(key))
      continue;
    if (key.startsWith("GITHUB_CLIENT_")) continue;
    env[key] = value;
  }
  return { ...env, ...overrides };
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = DEADLINE_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Instance {
  name: string;
  base: string;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startInstance(
  name: string,
  port: number,
  buildDir: string,
  databaseUrl: string,
): Instance {
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), `st-scale-${name}-`));
  let output = "";
  const child = spawn(process.execPath, [path.join(buildDir, "server.mjs")], {
    cwd: ROOT,
    env: childEnv({
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      DATABASE_URL: databaseUrl,
      AUTH_SECRET,
      DATA_DIR: dataDir,
      SOUNDTRAIL_BUILD_DIR: buildDir,
      LOG_LEVEL: "warn",
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { name, base, dataDir, child, output: () => output, exited };
}

async function waitForReady(instance: Instance): Promise<void> {
  let exitCode: number | null | undefined;
  void instance.exited.then((code) => {
    exitCode = code;
  });
  await waitFor(
    `instance ${instance.name} to be ready`,
    async () => {
      if (exitCode !== undefined) {
        throw new Error(`instance ${instance.name} exited (${exitCode}):\n${instance.output()}`);
      }
      try {
        return (await fetch(`${instance.base}/readyz`)).status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    60_000,
  );
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance) return;
  if (instance.child.exitCode === null && instance.child.signalCode === null) {
    instance.child.kill("SIGTERM");
    const stopped = await Promise.race([
      instance.exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 20_000)),
    ]);
    if (!stopped) {
      instance.child.kill("SIGKILL");
      await instance.exited;
    }
  }
  rmSync(instance.dataDir, { recursive: true, force: true });
}

// --- A tiny Server-Sent Events client over fetch ----------------------------------------------

interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

interface SseStream {
  status: number;
  events: SseEvent[];
  /**
   * Resolves once the stream is over: true when the server ended it properly, false when the
   * connection broke or it was closed here.
   */
  ended: Promise<boolean>;
  close(): void;
}

function parseFrame(frame: string): SseEvent | null {
  const event: SseEvent = { event: "message", data: "" };
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event.event = value;
    else if (field === "id") event.id = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0 && event.event === "message") return null;
  event.data = data.join("\n");
  return event;
}

async function openEvents(
  base: string,
  cookie: string | null,
  lastEventId?: string,
): Promise<SseStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = { Accept: "text/event-stream" };
  if (cookie) headers.Cookie = cookie;
  if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
  const response = await fetch(`${base}/api/events`, { headers, signal: abort.signal });
  const events: SseEvent[] = [];
  const isStream = response.headers.get("content-type")?.startsWith("text/event-stream");
  const ended = (async () => {
    if (!isStream || !response.body) {
      await response.body?.cancel();
      return true;
    }
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // Soundtrail ends lines with "\n" only.
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const parsed = parseFrame(buffer.slice(0, end));
          if (parsed) events.push(parsed);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
      }
      return true;
    } catch {
      return false;
    }
  })();
  return { status: response.status, events, ended, close: () => abort.abort() };
}

const notificationsIn = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === "notification")
    .map((e) => ({ id: e.id, view: JSON.parse(e.data) as NotificationView }));

const unreadIn = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === "unread")
    .map((e) => (JSON.parse(e.data) as { count: number }).count);

// --- Accounts ---------------------------------------------------------------------------------

let ipCounter = 0;

/** A confirmed account with a password, signed in through better-auth here; its Cookie header. */
async function signedInUser(username: string): Promise<{ user: TestUser; cookie: string }> {
  const user = await createTestUser({ username, displayName: username });
  await getDb()
    .insert(account)
    .values({
      id: `${user.id}-credential`,
      accountId: user.id,
      providerId: "credential",
      userId: user.id,
      password: await hashPassword(PASSWORD),
    });
  ipCounter++;
  const response = await getAuth().api.signInEmail({
    body: { email: user.email, password: PASSWORD },
    headers: new Headers({ [CLIENT_IP_HEADER]: `10.9.0.${ipCounter}` }),
    asResponse: true,
  });
  expect(response.status).toBe(200);
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  expect(cookie).toContain("soundtrail.session_token=");
  return { user, cookie };
}

/** A state-changing request as a browser on `base` sends it (same origin, fetcher-style). */
function post(base: string, pathname: string, cookie: string, fields: Record<string, string>) {
  return fetch(`${base}${pathname}`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: base },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
}

// --- The test ---------------------------------------------------------------------------------

describe.skipIf(!process.env.TEST_DATABASE_URL)("two instances on one PostgreSQL database", () => {
  let testDb: TestDatabase;
  let a: Instance | undefined;
  let b: Instance | undefined;
  const open: SseStream[] = [];
  let ana: { user: TestUser; cookie: string };
  let ben: { user: TestUser; cookie: string };
  let postId: string;
  /** The like notification Ana got live on instance B. */
  let like: { id: string; view: NotificationView };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    setDatabase(testDb);
    resetAuth();
    const databaseUrl = testDb.databaseUrl;
    if (!databaseUrl) throw new Error("the test database has no URL");
    const buildDir = await productionBuild();
    const [portA = 0, portB = 0] = await freePorts(2);
    a = startInstance("a", portA, buildDir, databaseUrl);
    b = startInstance("b", portB, buildDir, databaseUrl);
    await Promise.all([waitForReady(a), waitForReady(b)]);

    ana = await signedInUser("ana_scale");
    ben = await signedInUser("ben_scale");
    postId = await createTestPost(ana.user.id, { title: "Teardrop", artist: "Massive Attack" });
  }, 240_000);

  afterAll(async () => {
    for (const stream of open) stream.close();
    const stopped = [a, b].map((instance) => stopInstance(instance));
    await Promise.all(stopped);
    resetAuth();
    setDatabase(undefined);
    await testDb?.destroy();
  }, 60_000);

  const instances = () => {
    if (!a || !b) throw new Error("instances not started");
    return { a, b };
  };

  it("a like through instance A reaches Ana's stream on instance B", async () => {
    const { a, b } = instances();
    const stream = await openEvents(b.base, ana.cookie);
    open.push(stream);
    expect(stream.status).toBe(200);
    await waitFor("ready on B", () => (stream.events.length > 0 ? true : undefined));
    expect(stream.events[0]?.event).toBe("ready");

    const liked = await post(a.base, "/api/like", ben.cookie, { postId, intent: "like" });
    expect(liked.status).toBe(200);
    expect(await liked.json()).toMatchObject({ ok: true });

    like = await waitFor("the like notification on B", () => {
      const [first] = notificationsIn(stream.events);
      return first?.id ? { id: first.id, view: first.view } : undefined;
    });
    expect(like.view).toMatchObject({ kind: "like", actorCount: 1, isRead: false });
    expect(like.view.actors.map((actor) => actor.id)).toEqual([ben.user.id]);
    expect(like.view.post?.id).toBe(postId);
    expect(like.id).toBe(String(like.view.seq));

    await waitFor("unread count 1 on B", () =>
      unreadIn(stream.events).includes(1) ? true : undefined,
    );
    expect(notificationsIn(stream.events)).toHaveLength(1);

    stream.close();
    await stream.ended;
  });

  it("reconnecting with Last-Event-ID gets exactly what was missed", async () => {
    const { a } = instances();
    expect(like, "the previous test saw the like").toBeDefined();

    // Ana is offline: Ben comments through instance A.
    const commented = await post(a.base, `/post/${postId}`, ben.cookie, {
      intent: "add-comment",
      content: "That harpsichord line!",
    });
    expect(commented.status).toBe(200);
    const [missed] = await waitFor("the comment notification in the database", async () => {
      const rows = await notificationsAfter({ recipientId: ana.user.id, afterSeq: like.view.seq });
      return rows.length > 0 ? rows : undefined;
    });

    // Back, on the other instance, with the id of the last event she had.
    const stream = await openEvents(a.base, ana.cookie, like.id);
    open.push(stream);
    expect(stream.status).toBe(200);
    // One catch-up round ends with the unread count: everything before it is what she missed.
    const unreadAt = await waitFor("the unread count after catching up", () => {
      const index = stream.events.findIndex((e) => e.event === "unread");
      return index === -1 ? undefined : index;
    });
    const caughtUp = stream.events.slice(0, unreadAt + 1);
    expect(caughtUp[0]?.event).toBe("ready");
    const received = notificationsIn(caughtUp);
    expect(received).toHaveLength(1);
    const [comment] = received;
    expect(comment?.view).toMatchObject({ kind: "comment", actorCount: 1, seq: missed?.seq });
    expect(comment?.view.actors.map((actor) => actor.id)).toEqual([ben.user.id]);
    expect(comment?.view.commentExcerpt).toContain("harpsichord");
    expect(Number(comment?.id)).toBeGreaterThan(Number(like.id));
    // Not the like again.
    expect(received.map((n) => n.view.id)).not.toContain(like.view.id);
    expect(JSON.parse(caughtUp[unreadAt]?.data ?? "{}")).toEqual({ count: 2 });

    stream.close();
    await stream.ended;
  });

  it("answers 401 to a signed-out browser", async () => {
    const { a, b } = instances();
    for (const instance of [a, b]) {
      const stream = await openEvents(instance.base, null);
      expect(stream.status).toBe(401);
      expect(await stream.ended).toBe(true);
      expect(stream.events).toEqual([]);
    }
  });

  it("SIGTERM ends the open streams and both instances exit cleanly", async () => {
    const { a, b } = instances();
    const streams = [await openEvents(a.base, ana.cookie), await openEvents(b.base, ben.cookie)];
    open.push(...streams);
    for (const stream of streams) {
      expect(stream.status).toBe(200);
      await waitFor("ready", () => (stream.events[0]?.event === "ready" ? true : undefined));
    }
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    // Ended by the server (a complete response), not cut off by the forced close.
    expect(await Promise.all(streams.map((stream) => stream.ended))).toEqual([true, true]);
    expect(await a.exited, a.output()).toBe(0);
    expect(await b.exited, b.output()).toBe(0);
  });
});
