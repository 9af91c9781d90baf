import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_URL, createEmptyDatabase } from "../tests/support/ops-servers";
import { productionBuild } from "../tests/support/production-build";

/*
 * The container image as the Dockerfile builds it, without a Docker engine: the production
 * dependencies alone (`npm ci --omit=dev`, what the build stage's prune leaves: no esbuild, no
 * Vite), the build, `drizzle/` and `scripts/` in a directory that belongs to root, and every
 * command the README names run in it as an unprivileged user (the image's `node`; `nobody`
 * here) with a DATA_DIR of its own. Each must do its work and say so, never print a stack.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let work: string;
let app: string;
let dataDir: string;
let home: string;

/** Runs a command in the runtime tree as the image's user; its exit code and all it printed. */
function run(command: string, args: string[], extraEnv: Record<string, string> = {}) {
  const result = spawnSync(command, args, {
    cwd: app,
    encoding: "utf8",
    timeout: 180_000,
    ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      NODE_ENV: "production",
      DATA_DIR: dataDir,
      BASE_URL: "http://127.0.0.1:3000",
      LOG_LEVEL: "warn",
      npm_config_update_notifier: "false",
      ...extraEnv,
    },
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A stack trace line, as node prints one ("    at fn (file:line:col)"). */
const STACK = /\n\s+at .+:\d+:\d+\)?\n/;

describe.skipIf(process.platform !== "linux")(
  "the runtime tree, as the Dockerfile builds it",
  () => {
    beforeAll(async () => {
      const buildDir = await productionBuild();
      work = mkdtempSync(path.join(tmpdir(), "st-runtime-"));
      app = path.join(work, "app");
      dataDir = path.join(work, "data");
      home = path.join(work, "home");
      mkdirSync(app);
      // mkdtemp's 0700 would keep the image's user out of a directory it may read in the image.
      chmodSync(work, 0o755);
      for (const file of ["package.json", "package-lock.json", ".npmrc"]) {
        cpSync(path.join(ROOT, file), path.join(app, file));
      }
      const installed = spawnSync(
        "npm",
        ["ci", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
        { cwd: app, encoding: "utf8", timeout: 300_000 },
      );
      expect(installed.status, installed.stderr).toBe(0);
      cpSync(buildDir, path.join(app, "build"), { recursive: true });
      for (const dir of ["drizzle", "scripts"]) {
        cpSync(path.join(ROOT, dir), path.join(app, dir), { recursive: true });
      }
      mkdirSync(dataDir);
      mkdirSync(home);
      if (isRoot) {
        // The Dockerfile's COPY --chown: the files are the user's, /app itself stays root's.
        for (const dir of [dataDir, home, path.join(app, "build")]) {
          spawnSync("chown", ["-R", `${NOBODY}:${NOBODY}`, dir]);
        }
        chownSync(path.join(app, "package.json"), NOBODY, NOBODY);
      }
    }, 600_000);

    // Removing the tree's node_modules takes a while on a busy machine.
    afterAll(async () => {
      if (work) await rm(work, { recursive: true, force: true });
    }, 300_000);

    it("has no dev dependency: esbuild and Vite are not there", () => {
      expect(existsSync(path.join(app, "node_modules", "esbuild"))).toBe(false);
      expect(existsSync(path.join(app, "node_modules", "vite"))).toBe(false);
    });

    it("seeds the demo data (npm run seed)", () => {
      const seeded = run("npm", ["run", "--silent", "seed"]);
      expect(seeded.code, seeded.output).toBe(0);
      expect(seeded.output).toMatch(/Seeded \d+ people/);
      expect(seeded.output).not.toMatch(STACK);
    }, 240_000);

    it("grants and revokes the admin role (npm run admin:grant / admin:revoke)", () => {
      const email = "ana_rivera@demo.soundtrail.test";
      const granted = run("npm", ["run", "--silent", "admin:grant", "--", email]);
      expect(granted.code, granted.output).toBe(0);
      expect(granted.output).toMatch(/is now an admin|already is an admin/);
      const revoked = run("npm", ["run", "--silent", "admin:revoke", "--", email]);
      expect(revoked.code, revoked.output).toBe(0);
      expect(revoked.output).toContain("is no longer an admin");
    }, 120_000);

    it("rotates the token API's signing key (npm run auth:rotate-key)", () => {
      const rotated = run("npm", ["run", "--silent", "auth:rotate-key"]);
      expect(rotated.code, rotated.output).toBe(0);
      expect(rotated.output).toContain("New signing key");
      expect(rotated.output).not.toMatch(STACK);
    }, 120_000);

    it("prints the service-role key (npm run auth:service-key)", () => {
      const printed = run("npm", ["run", "--silent", "auth:service-key"]);
      expect(printed.code, printed.output).toBe(0);
      const [header = "", payload = ""] = printed.output.trim().split(".");
      expect(JSON.parse(Buffer.from(header, "base64url").toString())).toMatchObject({
        alg: "ES256",
      });
      expect(JSON.parse(Buffer.from(payload, "base64url").toString())).toMatchObject({
        role: "service_role",
      });
    }, 120_000);

    it("backs up to DATA_DIR by default and restores it (npm run backup / restore)", () => {
      const backedUp = run("npm", ["run", "--silent", "backup"]);
      expect(backedUp.code, backedUp.output).toBe(0);
      const [file] = readdirSync(path.join(dataDir, "backups"));
      expect(file).toMatch(/^soundtrail-pglite-.+\.tar\.gz$/);
      const backup = path.join(dataDir, "backups", file ?? "");
      const refused = run("npm", ["run", "--silent", "restore", "--", backup]);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain("--force");
      expect(refused.output).not.toMatch(STACK);
      const restored = run("npm", ["run", "--silent", "restore", "--", backup, "--force"]);
      expect(restored.code, restored.output).toBe(0);
    }, 240_000);

    // Needs a PostgreSQL server to move to: runs under `npm run test:pg` (and so in CI).
    it.skipIf(!ADMIN_URL)(
      "moves the embedded database to PostgreSQL (npm run db:move)",
      async () => {
        if (!existsSync(path.join(dataDir, "pglite"))) {
          const seeded = run("npm", ["run", "--silent", "seed"]);
          expect(seeded.code, seeded.output).toBe(0);
        }
        const target = await createEmptyDatabase("st_runtime_move");
        try {
          const moved = run("npm", ["run", "--silent", "db:move", "--", "--to", target.url]);
          expect(moved.code, moved.output).toBe(0);
          expect(moved.output).toMatch(/every row count equal on both sides/);
          expect(moved.output).not.toMatch(STACK);
          const client = new pg.Client({ connectionString: target.url });
          await client.connect();
          try {
            const { rows } = await client.query(`select count(*)::int as n from "user"`);
            expect(rows[0]?.n).toBeGreaterThan(0);
          } finally {
            await client.end();
          }
        } finally {
          await target.drop();
        }
      },
      240_000,
    );

    it("starts as the image does (node build/server.mjs), answers, and stops cleanly on SIGTERM", async () => {
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, "127.0.0.1", () => {
          const address = probe.address();
          probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
        });
      });
      let output = "";
      const child: ChildProcess = spawn(process.execPath, ["build/server.mjs"], {
        cwd: app,
        ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          NODE_ENV: "production",
          DATA_DIR: dataDir,
          HOST: "127.0.0.1",
          PORT: String(port),
          BASE_URL: `http://127.0.0.1:${port}`,
          SHUTDOWN_DRAIN_SECONDS: "0",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout?.on("data", (d) => {
        output += d;
      });
      child.stderr?.on("data", (d) => {
        output += d;
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      try {
        const deadline = Date.now() + 120_000;
        for (;;) {
          if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
          const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
            (r) => r.ok,
            () => false,
          );
          if (ready) break;
          if (Date.now() > deadline) throw new Error(`the server did not get ready:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        const page = await fetch(`http://127.0.0.1:${port}/`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain("Soundtrail");
      } finally {
        child.kill("SIGTERM");
      }
      expect(await exited).toBe(0);
      expect(output).not.toMatch(STACK);
      expect(readFileSync(path.join(app, "build", "server.mjs"), "utf8").length).toBeGreaterThan(0);
    }, 240_000);
  },
);
