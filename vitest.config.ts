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
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
