// npm run admin:grant -- <email>   |   npm run admin:revoke -- <email>
// Uses the same configuration as the server (DATABASE_URL or DATA_DIR). On PGlite, stop the
// server first: one process owns a data directory.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [action, email] = process.argv.slice(2);
if (!["grant", "revoke"].includes(action) || !email?.includes("@")) {
  console.error("Usage: npm run admin:grant -- <email>   or   npm run admin:revoke -- <email>");
  process.exit(2);
}
const buildDir = path.resolve(process.env.SOUNDTRAIL_BUILD_DIR ?? "build");
if (!existsSync(path.join(buildDir, "server/index.js"))) {
  const built = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
process.env.LOG_LEVEL ??= "warn";
const build = await import(pathToFileURL(path.join(buildDir, "server/index.js")).href);
const app = build.entry.module;
try {
  await app.bootstrap();
  const result = await app.setAdminRole({ email, isAdmin: action === "grant" });
  const messages = {
    granted: `${email} is now an admin.`,
    revoked: `${email} is no longer an admin.`,
    unchanged: `Nothing to do: ${email} ${action === "grant" ? "already is" : "is not"} an admin.`,
    "no-such-account": `There is no account with the e-mail ${email}.`,
  };
  console.log(messages[result]);
  process.exitCode = result === "no-such-account" ? 1 : 0;
} catch (error) {
  console.error(`Could not change the role: ${error.message}`);
  process.exitCode = 1;
} finally {
  await app.shutdown();
}
