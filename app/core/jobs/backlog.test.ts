import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDatabase, getDb, rowsOf } from "~/db/client.server";
import { withTestDatabase } from "../../../tests/support/test-database";
import { defineJob, JobRunner } from "./index.server";

withTestDatabase();

/**
 * A backlog of 10,000 queued jobs drains through a started runner: each job once, never more
 * at a time than its kind's concurrency, the heap not growing with the queue (the runner holds
 * a few claims, never the backlog). A soak of a minute or more on PGlite, so it runs with the
 * server suites (`npm run test:server`), not in `npm test`'s quick loop.
 */

const payload = (value: unknown) => value as { n: number };
const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop(2000)));
});

describe("a backlog of jobs", () => {
  it("wakes a started runner when a job is queued, and drains a backlog of 10,000 jobs once each, a few at a time", async () => {
    const kind = `test.backlog-${Date.now()}`;
    const seen = new Set<number>();
    let ran = 0;
    let active = 0;
    let most = 0;
    const job = defineJob({
      kind,
      concurrency: 3,
      parse: payload,
      async run({ payload }) {
        ran++;
        active++;
        most = Math.max(most, active);
        seen.add(payload.n);
        await new Promise((resolve) => setImmediate(resolve));
        active--;
        return undefined;
      },
    });
    const runner = new JobRunner({ handle: getDatabase(), definitions: [job], pollMs: 60_000 });
    runners.push(runner);
    await runner.start();
    // Queued in bulk, as a big backlog would be, then one enqueue that notifies.
    await getDb().execute(sql`insert into jobs (kind, payload)
      select ${kind}, jsonb_build_object('n', i) from generate_series(1, 10000) i`);
    const heapBefore = process.memoryUsage().heapUsed;
    await getDb().transaction((tx) => job.enqueue(tx, { n: 0 }));
    await vi.waitFor(() => expect(ran).toBe(10_001), { timeout: 240_000, interval: 200 });
    // Each once, never more at a time than the kind's concurrency: the runner holds a few
    // claims, not the backlog (its memory does not grow with the queue).
    expect(seen.size).toBe(10_001);
    expect(most).toBeLessThanOrEqual(3);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    const [left] = rowsOf<{ n: number }>(
      await getDb().execute(sql`select count(*)::int as n from jobs
        where kind = ${kind} and status <> 'done'`),
    );
    expect(left?.n).toBe(0);
  }, 300_000);
});
