// npm run auth:rotate-key
// Rotates the token API's signing key in DATA_DIR/auth-jwt-keys.json: a new ES256 key signs
// from now on, the previous one stays published in the JWKS (its tokens live at most an hour),
// older ones are dropped. A running server picks the change up by itself. With AUTH_JWT_KEYS
// set, rotate there instead (see docs/decisions/016-auth-api.md).
import { importBundled } from "./lib-bundle.mjs";

if (process.env.AUTH_JWT_KEYS) {
  console.error("AUTH_JWT_KEYS is set: rotate the keys there (new key second, then first).");
  process.exit(2);
}
const { rotateSigningKey } = await importBundled(
  "app/features/auth-api/keys.server.ts",
  "jwt-keys",
);
const { getEnv } = await importBundled("app/lib/env.server.ts", "env");
const kid = await rotateSigningKey(getEnv());
console.log(`New signing key ${kid}; the previous key stays published until the next rotation.`);
