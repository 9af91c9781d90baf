// npm run auth:service-key
// Prints the service-role key of the token API's admin endpoints (/auth/v1/admin/*, what
// supabase-js calls auth.admin.*): a JWT with role service_role signed by the instance's current
// signing key, as Supabase hands out its service_role key. Keep it on servers only; it is valid
// until the signing key it was made with is rotated out. On PGlite stop the server first.
import { importBundled } from "./lib-bundle.mjs";

const { serviceKeyCommand } = await importBundled(
  "app/features/auth-api/cli.server.ts",
  "auth-keys",
);
try {
  process.stdout.write(`${await serviceKeyCommand()}\n`);
} catch (error) {
  console.error(`Could not make the key: ${error.message}`);
  process.exitCode = 1;
}
