// npm run auth:rotate-key
// Rotates the token API's signing key, kept in the database for every instance: a new ES256 key
// signs from now on, the previous one stays published in the JWKS until its tokens have
// expired. Running instances pick the new key up by themselves. With AUTH_JWT_KEYS set, rotate
// there instead (see docs/decisions/016-auth-api.md). On PGlite stop the server first.
import { importBundled } from "./lib-bundle.mjs";

const { rotateKeyCommand } = await importBundled(
  "app/features/auth-api/cli.server.ts",
  "auth-keys",
);
try {
  console.log(await rotateKeyCommand());
} catch (error) {
  console.error(`Could not rotate the key: ${error.message}`);
  process.exitCode = 1;
}
