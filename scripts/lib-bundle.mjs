// Bundles a TypeScript entry of the app with esbuild (the `~/` imports resolve through the
// tsconfig paths) into node_modules/.cache/soundtrail and imports it. For the command-line
// scripts (`npm run seed`, `npm run bench`) that run app code outside the server build.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

export async function importBundled(entry, name) {
  const outDir = path.resolve("node_modules/.cache/soundtrail");
  mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
    // Vite's asset imports (`./icons/sprite.svg?no-inline`, reached through a feature's browser
    // entry): a file next to the bundle stands in for the hashed URL; nothing here renders it.
    loader: { ".svg": "file" },
  });
  process.env.LOG_LEVEL ??= "warn";
  return import(pathToFileURL(outfile).href);
}
