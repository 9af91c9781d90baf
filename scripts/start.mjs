// `npm start`: builds on first run (or when the sources changed since the last build), then
// starts the production server on the embedded database.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const STAMP = "build/.source-fingerprint";
const SOURCES = [
  "app",
  "server",
  "public",
  "drizzle",
  "package-lock.json",
  "vite.config.ts",
  "react-router.config.ts",
];

function fingerprint() {
  const hash = createHash("sha256");
  const visit = (entry) => {
    if (!existsSync(entry)) return;
    const s = statSync(entry);
    if (s.isDirectory()) {
      for (const name of readdirSync(entry).sort()) visit(path.join(entry, name));
    } else {
      hash.update(`${entry}:${s.size}:${s.mtimeMs}\n`);
    }
  };
  for (const source of SOURCES) visit(source);
  return hash.digest("hex");
}

const current = fingerprint();
const built =
  existsSync("build/server.mjs") && existsSync(STAMP) ? readFileSync(STAMP, "utf8") : "";
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
  writeFileSync(STAMP, current);
}

process.env.NODE_ENV ??= "production";
await import(pathToFileURL(path.resolve("build/server.mjs")).href);
