// `npm run seed`: bundles app/seed.server.ts with esbuild (as playwright.config.ts bundles the SMTP
// sink) and runs it against the configured database (DATABASE_URL, else PGlite in DATA_DIR).
// On PGlite stop the server first (one process owns a data directory), or let the server seed
// as it starts: SEED_DEMO=1 npm start. On PostgreSQL it runs beside running servers.
import { importBundled } from "./lib-bundle.mjs";

const { main } = await importBundled("app/seed.server.ts", "seed");
try {
  await main();
} catch (error) {
  console.error(`Seeding failed: ${error.message}`);
  if (/in use by another Soundtrail process/.test(error.message)) {
    console.error(
      "The server holds this data directory. Either stop it, run npm run seed, and start it " +
        "again, or restart it with SEED_DEMO=1 npm start: it seeds as it starts.",
    );
  }
  process.exitCode = 1;
}
