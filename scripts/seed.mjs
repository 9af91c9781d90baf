// `npm run seed`: bundles app/seed.server.ts with esbuild (as playwright.config.ts bundles the SMTP
// sink) and runs it against the configured database (DATABASE_URL, else PGlite in DATA_DIR).
// On PGlite stop the server first: one process owns a data directory.
import { importBundled } from "./lib-bundle.mjs";

const { main } = await importBundled("app/seed.server.ts", "seed");
try {
  await main();
} catch (error) {
  console.error(`Seeding failed: ${error.message}`);
  process.exitCode = 1;
}
