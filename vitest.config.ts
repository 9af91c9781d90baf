import tsconfigPaths from "vite-tsconfig-paths";
import { defineConfig } from "vitest/config";

// The React Router plugin is left out on purpose: tests import feature modules directly.
export default defineConfig({
  plugins: [tsconfigPaths()],
  test: {
    include: ["app/**/*.test.{ts,tsx}", "server/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
