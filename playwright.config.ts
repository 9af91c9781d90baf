import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { SERVER_NODE_FLAGS } from "./server/node-flags";

/**
 * E2E_SLOT (default 0) shifts every port and directory, so several checkouts or developers on
 * one machine can run the browser tests at the same time without sharing a server.
 */
const SLOT = Number(process.env.E2E_SLOT ?? 0);
const PORT = 3100 + SLOT * 10;
const BASE_URL = `http://127.0.0.1:${PORT}`;
const BUILD_DIR = SLOT ? `build-e2e-${SLOT}` : "build-e2e";
const SINK_SMTP_PORT = 2525 + SLOT * 10;
const SINK_HTTP_PORT = 2526 + SLOT * 10;
const FAKE_MUSIC_PORT = 2527 + SLOT * 10;
const FAKE_MUSIC = `http://127.0.0.1:${FAKE_MUSIC_PORT}`;
// The specs read the sink's and the fake music service's addresses from here.
process.env.SMTP_SINK_HTTP_PORT = String(SINK_HTTP_PORT);
process.env.FAKE_MUSIC_ORIGIN = FAKE_MUSIC;
/**
 * Wiped by the web server command before every start, so each run begins with an empty
 * database. (Not wiped here: this file is also loaded when an already running server is
 * reused, and by every worker.)
 */
const DATA_DIR = path.join(os.tmpdir(), `soundtrail-e2e-data${SLOT ? `-${SLOT}` : ""}`);

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: SLOT ? `test-results-${SLOT}` : "test-results",
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: "list",
  timeout: 30_000,
  expect: { timeout: 5_000 },
  use: {
    baseURL: BASE_URL,
    browserName: "chromium",
    trace: "retain-on-failure",
    // The production build registers a service worker (the offline page). Playwright's request
    // routing does not see requests a worker handles, so specs run without it unless they opt in
    // (tests/e2e/shell-polish.spec.ts does, and checks the live stream and navigation under it).
    serviceWorkers: "block",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: [
    {
      // A real SMTP server for the app's mail, with an HTTP view of what it received.
      command: `npx esbuild tests/support/smtp-sink-server.ts --bundle --platform=node --format=esm --packages=external --log-level=warning --outfile=${BUILD_DIR}/smtp-sink.mjs && node ${BUILD_DIR}/smtp-sink.mjs`,
      url: `http://127.0.0.1:${SINK_HTTP_PORT}/healthz`,
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
      env: { SMTP_SINK_PORT: String(SINK_SMTP_PORT), SMTP_SINK_HTTP_PORT: String(SINK_HTTP_PORT) },
    },
    {
      // The streaming services' public metadata (oEmbed, Open Graph, artwork, a player page),
      // so link previews work without the internet: every service points here.
      command: `npx esbuild tests/support/fake-music-service.ts --bundle --platform=node --format=esm --packages=external --log-level=warning --outfile=${BUILD_DIR}/fake-music.mjs && node ${BUILD_DIR}/fake-music.mjs`,
      url: `${FAKE_MUSIC}/healthz`,
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
      env: { FAKE_MUSIC_PORT: String(FAKE_MUSIC_PORT) },
    },
    {
      // Fixtures go in after the wipe and before the server opens the database.
      command: `rm -rf '${DATA_DIR}' && npm run build >/dev/null && npx esbuild tests/support/e2e-seed.ts --bundle --platform=node --format=esm --packages=external --log-level=warning --outfile=${BUILD_DIR}/e2e-seed.mjs && node ${BUILD_DIR}/e2e-seed.mjs && node ${SERVER_NODE_FLAGS.join(" ")} ${BUILD_DIR}/server.mjs`,
      url: `${BASE_URL}/healthz`,
      reuseExistingServer: !process.env.CI,
      timeout: 420_000,
      // The server logs at warn: what goes wrong on its side shows in the run's output.
      stdout: "pipe",
      stderr: "pipe",
      // SIGTERM lets the server close PGlite cleanly instead of being killed mid-write.
      gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
      env: {
        SOUNDTRAIL_BUILD_DIR: BUILD_DIR,
        NODE_ENV: "production",
        PORT: String(PORT),
        HOST: "127.0.0.1",
        BASE_URL,
        DATA_DIR,
        LOG_LEVEL: "warn",
        SMTP_URL: `smtp://127.0.0.1:${SINK_SMTP_PORT}`,
        SMS_WEBHOOK_URL: `http://127.0.0.1:${SINK_HTTP_PORT}/sms`,
        // Tests pick their own client address (fixtures.ts useOwnClientAddress).
        TRUST_PROXY: "on",
        // Link previews from the fake service only: nothing reaches the internet.
        UNFURL_LINKS: "on",
        UNFURL_SPOTIFY_URL: `${FAKE_MUSIC}/oembed`,
        UNFURL_YOUTUBE_URL: `${FAKE_MUSIC}/oembed`,
        UNFURL_SOUNDCLOUD_URL: `${FAKE_MUSIC}/oembed`,
        UNFURL_DEEZER_URL: `${FAKE_MUSIC}/oembed`,
        UNFURL_TIDAL_URL: `${FAKE_MUSIC}/oembed`,
        UNFURL_BANDCAMP_URL: FAKE_MUSIC,
        UNFURL_APPLE_MUSIC_URL: FAKE_MUSIC,
        PLAYER_FRAME_ORIGINS: FAKE_MUSIC,
      },
    },
  ],
});
