// `npm run db:move`, `npm run backup`, `npm run restore`: bundles app/db/ops-cli.server.ts with
// esbuild (as scripts/seed.mjs does) and runs the command against the configured database
// (DATABASE_URL, else PGlite in DATA_DIR). See README "Running in production".
import { rmSync } from "node:fs";
import path from "node:path";
import { importBundled } from "./lib-bundle.mjs";

const [command, ...args] = process.argv.slice(2);
if (!["move", "backup", "restore"].includes(command)) {
  console.error("Usage: node scripts/ops.mjs move|backup|restore [options]");
  process.exit(1);
}
// One bundle per process: two commands running at once never share a half-written file.
const name = `ops-${process.pid}`;
const { main } = await importBundled("app/db/ops-cli.server.ts", name);
rmSync(path.resolve(`node_modules/.cache/soundtrail/${name}.mjs`), { force: true });
await main(command, args);
