// Puts fixtures into the browser tests' fresh database before the server starts; run by the
// web server command in playwright.config.ts (bundled with esbuild). Add a spec's fixtures by
// writing a Seed in tests/support/seeds/ and listing it below.
import path from "node:path";
import { type Database, openDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { seedAdminFixtures } from "./seeds/admin";
import { seedJourneyFixtures } from "./seeds/journey";
import { seedShareFixtures } from "./seeds/share";

export type Seed = (db: Database) => Promise<void>;

const seeds: [name: string, seed: Seed][] = [
  ["admin", seedAdminFixtures],
  ["share", seedShareFixtures],
  ["journey", seedJourneyFixtures],
];

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error("e2e-seed: DATA_DIR must be set");
const handle = await openDatabase({
  databaseUrl: process.env.DATABASE_URL,
  dataDir: path.join(path.resolve(dataDir), "pglite"),
});
try {
  await migrateDatabase(handle);
  for (const [name, seed] of seeds) {
    const started = Date.now();
    await seed(handle.db);
    console.log(`e2e-seed: ${name} (${Date.now() - started} ms)`);
  }
} finally {
  await handle.close();
}
