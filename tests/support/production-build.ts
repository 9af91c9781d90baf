// The production build that the server suites start as a child process (body limits, scale-out,
// crash, outage, authorization matrix, action fuzzing, load): built once per change of the
// sources and shared by every test file, whichever runs first.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout; from a bundle under node_modules/.cache (npm run bench) the working directory. */
const ROOT = import.meta.url.includes("/node_modules/")
  ? process.cwd()
  : fileURLToPath(new URL("../..", import.meta.url));

/** What a build is made from (as `npm start` decides whether to rebuild). */
const SOURCES = [
  "app",
  "server",
  "public",
  "drizzle",
  "package-lock.json",
  "vite.config.ts",
  "react-router.config.ts",
];

function fingerprint(): string {
  const hash = createHash("sha256");
  const visit = (entry: string) => {
    if (!existsSync(entry)) return;
    const s = statSync(entry);
    if (s.isDirectory()) {
      for (const name of readdirSync(entry).sort()) visit(path.join(entry, name));
    } else if (!/\.test\.tsx?$/.test(entry)) {
      // Test files are never part of the build: editing one does not make a new build.
      hash.update(`${path.relative(ROOT, entry)}:${s.size}:${s.mtimeMs}\n`);
    }
  };
  for (const source of SOURCES) visit(path.join(ROOT, source));
  return hash.digest("hex");
}

const isComplete = (dir: string) =>
  existsSync(path.join(dir, "server.mjs")) && existsSync(path.join(dir, "server", "index.js"));

/**
 * The directory of a production build of this checkout: the one named by TEST_BUILD_DIR or
 * SCALE_OUT_BUILD_DIR when it holds a build (CI passes the browser tests' build), else
 * ./build-test, rebuilt when the sources changed since it was made. A lock directory keeps two
 * test files from building at once; the others wait for it.
 */
export async function productionBuild(): Promise<string> {
  for (const given of [process.env.TEST_BUILD_DIR, process.env.SCALE_OUT_BUILD_DIR]) {
    if (given && isComplete(path.resolve(ROOT, given))) return path.resolve(ROOT, given);
  }
  const dir = path.join(ROOT, "build-test");
  const stamp = path.join(dir, ".source-fingerprint");
  const lock = `${dir}.lock`;
  const wanted = fingerprint();
  const isCurrent = () =>
    isComplete(dir) && existsSync(stamp) && readFileSync(stamp, "utf8") === wanted;
  const deadline = Date.now() + 600_000;
  while (!isCurrent()) {
    try {
      mkdirSync(lock);
    } catch {
      // Another test file is building; a lock older than 10 minutes is left over from a crash.
      const age = existsSync(lock) ? Date.now() - statSync(lock).mtimeMs : 0;
      if (age > 600_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error("waited 10 minutes for the app build");
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    try {
      if (isCurrent()) break;
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production" };
      for (const key of Object.keys(env)) if (key.startsWith("VITEST")) delete env[key];
      delete env.BASE_URL;
      const result = spawnSync("npm", ["run", "build"], {
        cwd: ROOT,
        env: { ...env, SOUNDTRAIL_BUILD_DIR: dir },
        encoding: "utf8",
      });
      if (result.status !== 0) {
        throw new Error(`npm run build failed:\n${result.stdout}\n${result.stderr}`);
      }
      writeFileSync(stamp, wanted);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return dir;
}
