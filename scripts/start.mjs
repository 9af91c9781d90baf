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
  const result = spawnSync("npm", ["run", "build"], {
    stdio: "inherit",
    shell: process.platform === "win32",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

process.env.NODE_ENV ??= "production";
await import(pathToFileURL(path.resolve("build/server.mjs")).href);
