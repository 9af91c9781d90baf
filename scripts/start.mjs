// `npm start`: builds on first run (or when the sources changed since the last build), then
// starts the production server on the embedded database.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { STAMP, sourceFingerprint } from "./source-fingerprint.mjs";

const current = sourceFingerprint();
const stamp = path.join("build", STAMP);
const built =
  existsSync("build/server.mjs") && existsSync(stamp) ? readFileSync(stamp, "utf8") : "";
if (built !== current || process.env.SOUNDTRAIL_FORCE_BUILD === "1") {
  console.log(
    built
      ? "Sources changed since the last build; rebuilding…"
      : "First start: building Soundtrail…",
  );
  const started = Date.now();
  // Quietly: npm's script banners and Vite's asset list are left out, warnings and errors
  // still show (vite.config.ts reads SOUNDTRAIL_QUIET_BUILD).
  const result = spawnSync("npm", ["run", "--silent", "build"], {
    stdio: "inherit",
    shell: process.platform === "win32",
    env: { ...process.env, SOUNDTRAIL_QUIET_BUILD: "1" },
  });
  if (result.status !== 0) {
    console.error("The build failed (see above); nothing was started.");
    process.exit(result.status ?? 1);
  }
  console.log(`Built in ${Math.round((Date.now() - started) / 1000)} s; starting the server…`);
}

process.env.NODE_ENV ??= "production";
await import(pathToFileURL(path.resolve("build/server.mjs")).href);
