// Bundles a TypeScript entry of the app with esbuild (the `~/` imports resolve through the
// tsconfig paths) into node_modules/.cache/soundtrail and imports it. For the command-line
// scripts (`npm run seed`, `npm run auth:rotate-key`, `npm run auth:service-key`, `npm run bench`) that run app code
// outside the server build. Where esbuild is not installed (the container image is pruned of
// dev dependencies) the bundle `npm run build` made of the same entry is used: CLI_ENTRIES.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The entries the production build bundles for the scripts, by the name they import them as. */
export const CLI_ENTRIES = {
  seed: "app/seed.server.ts",
  "auth-keys": "app/features/auth-api/cli.server.ts",
};

/** esbuild's options for an app entry bundled to run under Node 20, its packages left outside. */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
  // Vite's asset imports (`./icons/sprite.svg?no-inline`, reached through a feature's browser
  // entry): a file next to the bundle stands in for the hashed URL; nothing here renders it.
  loader: { ".svg": "file" },
};

export async function importBundled(entry, name) {
  process.env.LOG_LEVEL ??= "warn";
  const esbuild = await import("esbuild").catch(() => null);
  if (!esbuild) {
    const prebuilt = path.resolve(
      process.env.SOUNDTRAIL_BUILD_DIR ?? "build",
      "cli",
      `${name}.mjs`,
    );
    if (CLI_ENTRIES[name] !== entry || !existsSync(prebuilt)) {
      console.error(`Neither esbuild nor ${prebuilt} is there: run npm run build first.`);
      process.exit(1);
    }
    return import(pathToFileURL(prebuilt).href);
  }
  const outDir = path.resolve("node_modules/.cache/soundtrail");
  mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, `${name}.mjs`);
  await esbuild.build({ entryPoints: [entry], outfile, ...BUNDLE_OPTIONS });
  return import(pathToFileURL(outfile).href);
}
