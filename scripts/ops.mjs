// `npm run db:move`, `npm run backup`, `npm run restore`: bundles app/db/ops-cli.server.ts with
// esbuild (as scripts/seed.mjs does) and runs the command against the configured database
// (DATABASE_URL, else PGlite in DATA_DIR). Where esbuild is not installed (the container image,
// built with --omit=dev) the bundle made by `npm run build` (build/ops.mjs) is used.
// See README "Running in production".
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [command, ...args] = process.argv.slice(2);
if (!["move", "backup", "restore"].includes(command)) {
  console.error("Usage: node scripts/ops.mjs move|backup|restore [options]");
  process.exit(1);
}

async function load() {
  const hasEsbuild = await import("esbuild").then(
    () => true,
    () => false,
  );
  if (!hasEsbuild) {
    const prebuilt = path.resolve(process.env.SOUNDTRAIL_BUILD_DIR ?? "build", "ops.mjs");
    if (!existsSync(prebuilt)) {
      console.error(`Neither esbuild nor ${prebuilt} is there: run npm run build first.`);
      process.exit(1);
    }
    process.env.LOG_LEVEL ??= "warn";
    return import(pathToFileURL(prebuilt).href);
  }
  const { importBundled } = await import("./lib-bundle.mjs");
  // One bundle per process: two commands running at once never share a half-written file.
  const name = `ops-${process.pid}`;
  const module = await importBundled("app/db/ops-cli.server.ts", name);
  rmSync(path.resolve(`node_modules/.cache/soundtrail/${name}.mjs`), { force: true });
  return module;
}

const { main } = await load();
await main(command, args);
