// Helpers of the operations suites (db:move, backup/restore, topology, upgrades): production
// servers as child processes on a given DATA_DIR / DATABASE_URL, the operator's commands as
// child processes, and a digest of every table to compare two databases by content.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { waitFor } from "./wait-for";

export { freePorts } from "./ports";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "";

/** Our environment for a child, without what vitest put there for the in-process app. */
export function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("VITEST") || key === "TEST_DATABASE_URL") continue;
    if (
      [
        "BASE_URL",
        "NODE_ENV",
        "LOG_LEVEL",
        "ADMIN_EMAILS",
        "AUTH_SECRET",
        "DATABASE_URL",
        "DATA_DIR",
        "SMTP_URL",
      ].includes(key)
    )
      continue;
    if (key.startsWith("GITHUB_CLIENT_")) continue;
    env[key] = value;
  }
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) env[key] = value;
  return env;
}

export interface ServerProcess {
  name: string;
  base: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `build/server.mjs` of `buildDir` on 127.0.0.1:`port` with `env` on top. */
export function startServer(
  name: string,
  port: number,
  buildDir: string,
  env: Record<string, string | undefined>,
): ServerProcess {
  const base = `http://127.0.0.1:${port}`;
  let output = "";
  const child = spawn(process.execPath, [path.join(buildDir, "server.mjs")], {
    cwd: ROOT,
    env: childEnv({
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      SOUNDTRAIL_BUILD_DIR: buildDir,
      LOG_LEVEL: "warn",
      TRUST_PROXY: "on",
      SHUTDOWN_DRAIN_SECONDS: "0",
      ...env,
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
  return { name, base, child, output: () => output, exited };
}

export async function waitForReady(server: ServerProcess, base = server.base): Promise<void> {
  let exitCode: number | null | undefined;
  void server.exited.then((code) => {
    exitCode = code;
  });
  await waitFor(
    `${server.name} to be ready`,
    async () => {
      if (exitCode !== undefined) {
        throw new Error(`${server.name} exited (${exitCode}):\n${server.output()}`);
      }
      try {
        return (await fetch(`${base}/readyz`)).status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 90_000 },
  );
}

/** SIGTERM (SIGKILL after 20 s); resolves with the exit code. */
export async function stopServer(server: ServerProcess | undefined): Promise<number | null> {
  if (!server) return null;
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill("SIGTERM");
    const stopped = await Promise.race([
      server.exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 20_000)),
    ]);
    if (!stopped) server.child.kill("SIGKILL");
  }
  return server.exited;
}

/** Runs `node scripts/ops.mjs <args>` with `env`; its exit code and output. */
export function runOps(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = "";
    const child = spawn(process.execPath, [path.join(ROOT, "scripts/ops.mjs"), ...args], {
      cwd: ROOT,
      env: childEnv({ LOG_LEVEL: "warn", ...env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d) => {
      output += d;
    });
    child.stderr?.on("data", (d) => {
      output += d;
    });
    child.on("exit", (code) => resolve({ code, output }));
  });
}

/** Signs in over HTTP (the login form's password intent); the Cookie header. */
export async function signInOverHttp(
  base: string,
  email: string,
  password: string,
  ip: string,
): Promise<string> {
  const response = await fetch(`${base}/auth/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: base,
      "X-Forwarded-For": ip,
    },
    body: new URLSearchParams({ intent: "password", email, password }),
  });
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .filter((c) => !/=$/.test(c ?? ""))
    .join("; ");
  if (!cookie.includes("session_token")) {
    throw new Error(`sign-in as ${email} failed: ${response.status} ${await response.text()}`);
  }
  return cookie;
}

/** The username `/profile` shows to this cookie, or null when it is not signed in. */
export async function signedInAs(base: string, cookie: string): Promise<string | null> {
  const response = await fetch(`${base}/profile`, {
    headers: { Cookie: cookie },
    redirect: "manual",
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    return null;
  }
  const html = await response.text();
  return /@([a-z0-9_]+)/.exec(html)?.[1] ?? "";
}

/** Creates an empty database on the test server; its URL and a function that drops it. */
export async function createEmptyDatabase(
  prefix: string,
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const cleanup = new pg.Client({ connectionString: ADMIN_URL });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

type Query = <T>(text: string) => Promise<T[]>;

/**
 * Every table of the `public` schema with its row count and an md5 of all its rows (each in
 * PostgreSQL's text form, sorted by their own md5 so collations do not matter), read in UTC: equal digests mean equal contents.
 */
export async function tableDigests(
  query: Query,
): Promise<Record<string, { rows: number; md5: string }>> {
  await query("set timezone = 'UTC'");
  const tables = await query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' order by c.relname`,
  );
  const digests: Record<string, { rows: number; md5: string }> = {};
  for (const { name } of tables) {
    const [row] = await query<{ rows: string | number; md5: string }>(
      `select count(*)::bigint as rows,
         md5(coalesce(string_agg(md5(t::text), '' order by md5(t::text)), '')) as md5
       from "${name}" t`,
    );
    digests[name] = { rows: Number(row?.rows ?? 0), md5: row?.md5 ?? "" };
  }
  return digests;
}

export const pgQuery =
  (client: pg.Client | pg.Pool): Query =>
  async <T>(text: string) =>
    (await client.query(text)).rows as T[];

// --- A small Server-Sent Events client over fetch ---------------------------------------------

export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

export interface SseStream {
  status: number;
  events: SseEvent[];
  /** Resolves once the stream is over (true: ended by the server; false: broken or closed). */
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

/** Opens `/api/events` on `base` with `cookie`, collecting the events as they arrive. */
export async function openEvents(base: string, cookie: string): Promise<SseStream> {
  const abort = new AbortController();
  const response = await fetch(`${base}/api/events`, {
    headers: { Accept: "text/event-stream", Cookie: cookie },
    signal: abort.signal,
  });
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
        buffer += decoder.decode(value, { stream: true }).replaceAll("\r\n", "\n");
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

export { waitFor };
