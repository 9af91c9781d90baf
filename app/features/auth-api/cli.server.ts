import path from "node:path";
import { openDatabase, setDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { getEnv } from "~/lib/env.server";
import { getSigningKeys, rotateSigningKey } from "./keys.server";
import { signServiceRoleKey } from "./tokens.server";

/**
 * The token API's command-line entries (scripts/rotate-jwt-key.mjs, scripts/service-key.mjs),
 * against the configured database (DATABASE_URL, else PGlite in DATA_DIR: stop the server
 * first, one process owns a data directory).
 */
async function withDatabase<T>(run: () => Promise<T>): Promise<T> {
  const env = getEnv();
  const handle = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: path.join(env.DATA_DIR, "pglite"),
  });
  try {
    await migrateDatabase(handle);
    setDatabase(handle);
    return await run();
  } finally {
    setDatabase(undefined);
    await handle.close();
  }
}

/** `npm run auth:rotate-key`: a new signing key for every instance; the old one stays published. */
export async function rotateKeyCommand(): Promise<string> {
  const env = getEnv();
  if (env.AUTH_JWT_KEYS) {
    throw new Error(
      "AUTH_JWT_KEYS is set and overrides the keys in the database: rotate the keys there " +
        "(add the new key second, deploy, then move it first).",
    );
  }
  const kid = await withDatabase(() => rotateSigningKey(env));
  return (
    `New signing key ${kid}. Every instance signs with it within a minute; the previous key ` +
    `stays published until its tokens have expired (${env.AUTH_JWT_EXPIRY} s). ` +
    "Print a new service-role key (npm run auth:service-key): the old one stops working then too."
  );
}

/** `npm run auth:service-key`: the service-role key for the admin API, signed by the current key. */
export async function serviceKeyCommand(): Promise<string> {
  const env = getEnv();
  // Keys given by AUTH_JWT_KEYS need no database (and a running PGlite server keeps it locked).
  if (env.AUTH_JWT_KEYS) return signServiceRoleKey();
  return withDatabase(async () => {
    await getSigningKeys(env);
    return signServiceRoleKey();
  });
}
