// What a build is made from, as one hash (sizes and times of the files): `npm start` builds
// again when it differs from the one the build recorded (build/.source-fingerprint).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const SOURCES = [
  "app",
  "server",
  "public",
  "drizzle",
  "package-lock.json",
  "vite.config.ts",
  "react-router.config.ts",
];

/** Where a build keeps the fingerprint of the sources it was made from. */
export const STAMP = ".source-fingerprint";

export function sourceFingerprint() {
  const hash = createHash("sha256");
  const visit = (entry) => {
    if (!existsSync(entry)) return;
    const s = statSync(entry);
    if (s.isDirectory()) {
      for (const name of readdirSync(entry).sort()) visit(path.join(entry, name));
    } else if (!/\.test\.tsx?$/.test(entry)) {
      // Test files are never part of the build: editing one does not make a new build.
      hash.update(`${entry}:${s.size}:${s.mtimeMs}\n`);
    }
  };
  for (const source of SOURCES) visit(source);
  return hash.digest("hex");
}
