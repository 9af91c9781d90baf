import tsconfigPaths from "vite-tsconfig-paths";
import { defineConfig } from "vitest/config";

// The React Router plugin is left out on purpose: tests import feature modules directly.
export default defineConfig({
  plugins: [tsconfigPaths()],
  test: {
    include: ["app/**/*.test.{ts,tsx}", "server/**/*.test.ts"],
    environment: "node",
    // Vite exposes its own BASE_URL ("/") in process.env; give the app a real one.
    env: {
      BASE_URL: "http://localhost:3000",
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      AUTH_SECRET: "vitest-secret-that-is-long-enough-0123456789",
      ADMIN_EMAILS: "admin@example.org",
      // OAuth configured (never contacted): tests check the authorisation redirect.
      GITHUB_CLIENT_ID: "vitest-github-client",
      GITHUB_CLIENT_SECRET: "vitest-github-secret",
      // scrypt at 2^12 instead of production's 2^17 (about 0.5 s of CPU a hash on these
      // machines, hundreds of hashes in the suites); hashParams keeps it to NODE_ENV=test.
      TEST_PASSWORD_HASH_LOG_N: "12",
    },
    // Two files at a time on the 2-core machines this runs on (Vitest's default is one less
    // than the cores, i.e. one): most files wait on PGlite, child servers or SMTP as much as
    // they compute. Every file has its own database, ports and temp dirs, so they never share.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
