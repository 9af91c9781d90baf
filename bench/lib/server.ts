import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SERVER_NODE_FLAGS } from "../../server/node-flags";
import { log } from "./report";

/**
 * The production build the benchmarks run. Not `build/` (what `npm start` uses) and not one of
 * the test builds; `bench/build/` is covered by the `build/` line of .gitignore, so neither git
 * nor Biome sees it.
 */
export const BUILD_DIR = "bench/build";

/** Ports the benchmarks may use (3400–3420). */
export const PORTS = {
  feedSsr: 3401,
  jsSize: 3402,
  htmlSize: 3403,
  liveLatency: 3404,
  lighthouse: 3405,
} as const;

let built: Promise<void> | null = null;

/** Output of a child process, kept for the error message when it fails. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve();
      else {
        const name = path.basename(args.at(-1) ?? command).replace(/\W+/g, "-");
        const logFile = path.join(tmpdir(), `soundtrail-bench-${name}.log`);
        writeFileSync(logFile, output);
        const firstError = output.split("\n").find((l) => /error/i.test(l)) ?? "";
        reject(
          new Error(
            `${command} ${args.join(" ")} exited with ${code}: ${firstError.trim().slice(0, 300)} (full output in ${logFile})`,
          ),
        );
      }
    });
  });
}

/**
 * `npm run build` into bench/build, once per bench run. BENCH_SKIP_BUILD=1 reuses an existing
 * build (quicker when iterating on the bench itself; the numbers are then for that build).
 */
export function ensureBuild(): Promise<void> {
  if (!built) {
    built = (async () => {
      if (process.env.BENCH_SKIP_BUILD === "1" && existsSync(path.join(BUILD_DIR, "server.mjs"))) {
        log(`reusing the existing build in ${BUILD_DIR} (BENCH_SKIP_BUILD=1)`);
        return;
      }
      const started = performance.now();
      log(`building the app into ${BUILD_DIR} …`);
      await run("npm", ["run", "build"], { ...process.env, SOUNDTRAIL_BUILD_DIR: BUILD_DIR });
      log(`build done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    })();
  }
  return built;
}

/** A fresh data directory, removed by `cleanup`. */
export function tempDataDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `soundtrail-bench-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function serverEnv(options: {
  port: number;
  dataDir: string;
  extra?: Record<string, string>;
}): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  // Never the developer's real database or mail: the benchmarks run on PGlite in DATA_DIR.
  for (const name of [
    "SOUNDTRAIL_BENCH",
    "DATABASE_URL",
    "SMTP_URL",
    "SMS_WEBHOOK_URL",
    "TRUST_PROXY",
  ]) {
    delete inherited[name];
  }
  return {
    ...inherited,
    NODE_ENV: "production",
    SOUNDTRAIL_BUILD_DIR: BUILD_DIR,
    PORT: String(options.port),
    HOST: "127.0.0.1",
    BASE_URL: `http://127.0.0.1:${options.port}`,
    DATA_DIR: options.dataDir,
    AUTH_SECRET: process.env.BENCH_AUTH_SECRET ?? randomBytes(24).toString("hex"),
    LOG_LEVEL: "warn",
    ...options.extra,
  };
}

/** `npm run seed` (app/seed.server.ts: the demo community) into the server's data directory. */
export async function seedDemo(env: NodeJS.ProcessEnv): Promise<void> {
  await run(process.execPath, ["scripts/seed.mjs"], env);
}

export interface RunningServer {
  baseUrl: string;
  /** The server process, for its memory (`rssBytes`). */
  pid: number;
  stop(): Promise<void>;
}

/** A process's resident set size (VmRSS), in bytes; 0 once it is gone. */
export function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; gives the highest seen. */
export function watchRss(pid: number, everyMs = 100): { stop(): number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssBytes(pid));
    },
  };
}

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Starts bench/build/server.mjs and resolves once /readyz answers 200. */
export async function startServer(env: NodeJS.ProcessEnv): Promise<RunningServer> {
  const baseUrl = env.BASE_URL as string;
  let output = "";
  // The heap limits `npm start` runs with: the memory rows measure the server as shipped.
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, path.join(BUILD_DIR, "server.mjs")],
    {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.add(child);
  child.stdout?.on("data", (d) => {
    output = (output + d).slice(-8000);
  });
  child.stderr?.on("data", (d) => {
    output = (output + d).slice(-8000);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`the server exited with ${child.exitCode} before it was ready:\n${output}`);
    }
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the server did not get ready in 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(timer);
      if (code !== 0) log(`the server exited with ${code}; its last output:\n${output}`);
    },
  };
}
