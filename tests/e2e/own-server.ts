import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { expect } from "@playwright/test";
import { SERVER_NODE_FLAGS } from "../../server/node-flags";

// For specs that start server processes of their own from the e2e build (to stop, restart or
// misconfigure them), apart from the web server playwright.config.ts runs.

/** This run's slot (playwright.config.ts): ports and directories are shifted by it. */
export const SLOT = Number(process.env.E2E_SLOT ?? 0);
/** The e2e build (and seed script) the web server of playwright.config.ts made for this slot. */
export const BUILD_DIR = SLOT ? `build-e2e-${SLOT}` : "build-e2e";

/**
 * A port of this slot's own that the shared web server does not use: the config gives each slot
 * ten ports from 3100 + 10 × slot, the first one for the web server.
 */
export function sparePort(n: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9): number {
  return 3100 + SLOT * 10 + n;
}

export interface OwnServer {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
  exited: Promise<number | null>;
}

const started = new Set<ChildProcess>();

/**
 * Kills the servers a failed test left running (call in `afterEach`), so that the next test
 * does not find its port taken by a stale one.
 */
export function killOwnServers(): void {
  for (const child of started) child.kill("SIGKILL");
  started.clear();
}

/**
 * Starts `server.mjs` of the e2e build in production mode. Its database is its own PGlite under
 * `DATA_DIR` unless `env` says otherwise: the shell's DATABASE_URL and SMTP_URL are not passed on.
 */
export function startOwnServer(env: Record<string, string>): OwnServer {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    SOUNDTRAIL_BUILD_DIR: BUILD_DIR,
    // No load balancer to drain for, unless a spec asks for one.
    SHUTDOWN_DRAIN_SECONDS: "0",
  };
  delete childEnv.DATABASE_URL;
  delete childEnv.SMTP_URL;
  let output = "";
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, path.join(BUILD_DIR, "server.mjs")],
    {
      env: { ...childEnv, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  started.add(child);
  void exited.then(() => started.delete(child));
  return { child, output: () => output, exited };
}

/** Waits until the server on `port` answers /readyz with 200; fails with its output if it exits. */
export async function waitForReady(server: OwnServer, port: number): Promise<void> {
  await expect
    .poll(
      async () => {
        if (server.child.exitCode !== null) {
          throw new Error(`the server exited:\n${server.output()}`);
        }
        try {
          return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
        } catch {
          return 0;
        }
      },
      { timeout: 30_000 },
    )
    .toBe(200);
}
