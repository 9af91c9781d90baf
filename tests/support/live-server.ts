// The production server as a child process on a fresh data dir, for suites that need the real
// request handler, middleware and PGlite together (authorization matrix, action fuzzing, load).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Database, openDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { account, profiles, user } from "~/db/schema";
import { createTestDataDir } from "~/db/test-db.server";
import { hashPassword } from "~/features/auth/password.server";
import { freePort } from "./ports";
import { productionBuild } from "./production-build";

/** The checkout; from a bundle under node_modules/.cache (npm run bench) the working directory. */
const ROOT = import.meta.url.includes("/node_modules/")
  ? process.cwd()
  : fileURLToPath(new URL("../..", import.meta.url));

/** The app build to run (see production-build.ts). */
export const appBuild = productionBuild;

export const LIVE_PASSWORD = "Live-Server-Pass-1977!";

export interface LiveAccount {
  id: string;
  email: string;
  username: string;
  displayName: string;
  isAdmin?: boolean;
}

/** Inserts confirmed accounts that can sign in with LIVE_PASSWORD. */
export async function insertAccounts(db: Database, accounts: LiveAccount[]): Promise<void> {
  const hash = await hashPassword(LIVE_PASSWORD);
  for (const person of accounts) {
    await db.insert(user).values({
      id: person.id,
      name: person.displayName,
      email: person.email,
      emailVerified: true,
      username: person.username,
    });
    await db.insert(account).values({
      id: `${person.id}-credential`,
      accountId: person.id,
      providerId: "credential",
      userId: person.id,
      password: hash,
      updatedAt: new Date(),
    });
    await db.insert(profiles).values({
      userId: person.id,
      email: person.email,
      displayName: person.displayName,
      username: person.username,
      roles: person.isAdmin ? ["admin"] : [],
    });
  }
}

export interface LiveServer {
  base: string;
  child: ChildProcess;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** Resident memory of the server process in bytes (Linux /proc), or null. */
  rss(): number | null;
  stop(): Promise<void>;
}

export interface LiveServerOptions {
  /** Fixtures written into the fresh database before the server opens it. */
  seed?: (db: Database) => Promise<void>;
  env?: Record<string, string>;
}

/** Seeds a fresh data dir, starts the production server on it and waits until it is ready. */
export async function startLiveServer(options: LiveServerOptions = {}): Promise<LiveServer> {
  const buildDir = await appBuild();
  // The server as the build has it (server/index.ts is built with the app).
  const entry = path.join(buildDir, "server.mjs");
  const dataDir = mkdtempSync(path.join(tmpdir(), "st-live-"));
  await createTestDataDir(path.join(dataDir, "pglite"));
  const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
  try {
    await migrateDatabase(handle);
    await options.seed?.(handle.db);
  } finally {
    await handle.close();
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("VITEST") && key !== "DATABASE_URL" && key !== "SMTP_URL") {
      env[key] = value;
    }
  }
  let output = "";
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: {
      ...env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      DATA_DIR: dataDir,
      SOUNDTRAIL_BUILD_DIR: buildDir,
      LOG_LEVEL: "warn",
      // Each simulated person picks a client address, so per-address limits stay per person.
      TRUST_PROXY: "on",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`the server exited:\n${output}`);
    }
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not get ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const rss = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
      return kb ? Number(kb) * 1024 : null;
    } catch {
      return null;
    }
  };
  return { base, child, output: () => output, rss, stop };
}

/** `name=value; …` from a response's Set-Cookie headers (the session cookie among them). */
export function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .filter((c) => !/=$/.test(c ?? ""))
    .join("; ");
}

/** Signs in with e-mail and password from client address `ip`; returns the Cookie header. */
export async function signIn(base: string, email: string, ip: string): Promise<string> {
  const response = await fetch(`${base}/auth/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: base,
      "X-Forwarded-For": ip,
    },
    body: new URLSearchParams({ intent: "password", email, password: LIVE_PASSWORD }),
  });
  const cookie = cookiesOf(response);
  if (!cookie.includes("session_token")) {
    throw new Error(`sign-in as ${email} failed: ${response.status} ${await response.text()}`);
  }
  return cookie;
}

/** Continues as a guest from client address `ip`; returns the Cookie header. */
export async function signInAsGuest(base: string, ip: string): Promise<string> {
  const response = await fetch(`${base}/auth/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: base,
      "X-Forwarded-For": ip,
    },
    body: "intent=guest",
  });
  const cookie = cookiesOf(response);
  if (!cookie.includes("session_token")) {
    throw new Error(`guest sign-in failed: ${response.status} ${await response.text()}`);
  }
  return cookie;
}
