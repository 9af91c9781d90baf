// `npm run test:pg`: the integration suites against a PostgreSQL server. Each test file creates
// its own database on that server (see app/db/test-db.server.ts) and drops it afterwards.
import { spawnSync } from "node:child_process";
import pg from "pg";

const url = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const client = new pg.Client({ connectionString: url });
try {
  await client.connect();
  const { rows } = await client.query("show server_version");
  console.log(
    `test:pg against PostgreSQL ${rows[0].server_version} (${url.replace(/:[^:@/]*@/, ":***@")})`,
  );
} catch (error) {
  console.error(`Cannot reach PostgreSQL at TEST_DATABASE_URL=${url}: ${error.message}`);
  process.exit(1);
} finally {
  await client.end().catch(() => {});
}

const result = spawnSync("npx", ["vitest", "run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TEST_DATABASE_URL: url },
});
process.exit(result.status ?? 1);
