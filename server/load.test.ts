import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../tests/support/live-server";
import {
  emptyCounts,
  LOAD_PEOPLE,
  loadPeople,
  runWorkload,
  seedLoad,
  signInPeople,
} from "../tests/support/load-workload";

/*
 * Load: 50 simulated people at once against the production server on PGlite, each browsing the
 * feed, posting, liking, commenting, following and reading notifications (the light round of
 * tests/support/load-workload.ts). Bounded by a number of rounds (LOAD_ROUNDS, default 1 after
 * a warm-up round), not by time, and asserting counts only: not one 5xx or dropped connection,
 * and resident memory at the end within a generous factor (2×) of what it was after the
 * warm-up. The longer variant is `npm run bench -- load`.
 */

const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 1);
const people = loadPeople(LOAD_PEOPLE);

describe("50 people at once (mixed workload)", () => {
  let server: LiveServer;

  beforeAll(async () => {
    server = await startLiveServer({ seed: (db) => seedLoad(db, people) });
  }, 420_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("answers every request without a 5xx, and memory stays flat", async () => {
    const signedIn = await signInPeople(server.base, people);
    const counts = emptyCounts();
    // Warm-up: one round, so caches, JIT and PGlite's buffers are at their working size.
    await runWorkload(server.base, signedIn, 1, counts, true);
    const warm = server.rss();
    await runWorkload(server.base, signedIn, ROUNDS, counts, true);
    const end = server.rss();

    expect(counts.failures).toEqual([]);
    expect(counts.byClass["5xx"]).toBe(0);
    expect(counts.byClass.network).toBe(0);
    // Most of it went through (a few 4xx are rate limits or a post someone just hid).
    expect(counts.byClass["2xx"] + counts.byClass["3xx"]).toBeGreaterThan(counts.requests * 0.8);
    expect(counts.requests).toBeGreaterThan(LOAD_PEOPLE * (ROUNDS + 1) * 4);
    if (warm !== null && end !== null) {
      expect(end, `RSS ${warm >> 20} MB after warm-up, ${end >> 20} MB at the end`).toBeLessThan(
        warm * 2,
      );
    }
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(200);
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
  }, 300_000);
});
