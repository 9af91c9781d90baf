import tsconfigPaths from "vite-tsconfig-paths";
import { defineConfig } from "vitest/config";

/** Test files that need a fresh module graph of their own (see the "isolated" project). */
const ISOLATED = [
  // sets DATA_DIR and AUTH_REDIRECT_URLS before the environment is first read
  "app/features/auth-api/auth-api.test.ts",
  // starts and stops the live hub
  "app/features/realtime/hub.test.ts",
  // sets BASE_URL and FEDERATION_ALLOW_LOOPBACK before the environment is first read
  "app/features/federation/federation.test.ts",
  // sets FEDERATION=off before the environment is first read
  "app/features/federation/federation-off.test.ts",
];

/**
 * The server suites that build production and start it as child processes (or run the
 * operator's commands as an operator does), and the soaks (a backlog of 10,000 jobs): minutes
 * each, so they run under `npm run test:server` (and in CI), not in `npm test`'s quick loop.
 * Every other server/ file is a unit test of the node layer and stays in the loop.
 */
const SERVER_SUITES = [
  "app/core/jobs/backlog.test.ts",
  "server/action-fuzz.test.ts",
  "server/authorization-matrix.test.ts",
  "server/backup-restore.test.ts",
  "server/body-limits.test.ts",
  "server/campaign-crash.test.ts",
  "server/crash-writes.test.ts",
  "server/database-outage.test.ts",
  "server/db-move.test.ts",
  "server/federation.test.ts",
  "server/feed-bytes.test.ts",
  "server/job-crash.test.ts",
  "server/liblistenbrainz.test.ts",
  "server/load.test.ts",
  "server/metrics.test.ts",
  "server/runtime-tree.test.ts",
  "server/scale-out.test.ts",
  "server/supabase-client.test.ts",
  "server/topology.test.ts",
  "server/upgrade.test.ts",
];

// The React Router plugin is left out on purpose: tests import feature modules directly.
export default defineConfig({
  plugins: [tsconfigPaths()],
  test: {
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
    projects: [
      {
        // Most files: one worker runs them one after another with the modules it has already
        // imported (isolate: false), instead of importing the app again for each file (about
        // a minute of the suite's CPU). Each file opens its own database; what modules keep
        // between calls is reset after each file by the setup file.
        extends: true,
        test: {
          name: "shared",
          include: ["app/**/*.test.{ts,tsx}"],
          exclude: [...ISOLATED, ...SERVER_SUITES],
          isolate: false,
          setupFiles: ["tests/support/shared-worker-setup.ts"],
          // In CI the files run in a random order (the seed is printed): a file that only
          // passes after another one, through what the shared modules keep, fails there.
          sequence: { shuffle: { files: process.env.CI === "true", tests: false } },
        },
      },
      {
        // Files that change the process (environment variables, background workers stopped
        // and resumed, the live hub), and the node layer's unit tests: a fresh module graph each.
        extends: true,
        test: {
          name: "isolated",
          include: [...ISOLATED, "server/**/*.test.ts"],
          exclude: SERVER_SUITES,
        },
      },
      {
        // The server suites (see SERVER_SUITES): `npm run test:server`.
        extends: true,
        test: { name: "server", include: SERVER_SUITES },
      },
    ],
  },
});
