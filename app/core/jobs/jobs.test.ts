import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDatabase, getDb, rowsOf } from "~/db/client.server";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  defineJob,
  drainJobs,
  JobLeaseLost,
  JobRunner,
  PermanentJobError,
  runJobNow,
} from "./index.server";

withTestDatabase();

interface JobRow {
  id: number;
  status: string;
  attempts: number;
  last_error: string | null;
  progress: Record<string, unknown> | null;
  run_at: Date;
}

async function jobRow(id: number | null): Promise<JobRow> {
  const [row] = rowsOf<JobRow>(
    await getDb().execute(sql`select id, status, attempts, last_error, progress, run_at
      from jobs where id = ${id}`),
  );
  if (!row) throw new Error(`no job ${id}`);
  return { ...row, id: Number(row.id), run_at: new Date(row.run_at) };
}

const payload = (value: unknown) => value as { n: number };
let kindSeq = 0;
/** A kind of its own for every test, so jobs of one test never meet another's runner. */
const freshKind = () => `test.kind-${++kindSeq}-${Date.now()}`;

const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop(2000)));
});

describe("the job system", () => {
  it("runs a queued job once and marks it done", async () => {
    const seen: number[] = [];
    const job = defineJob({
      kind: freshKind(),
      parse: payload,
      async run({ payload }) {
        seen.push(payload.n);
        return undefined;
      },
    });
    const id = await job.enqueue(getDb(), { n: 7 });
    expect(await drainJobs([job])).toBe(1);
    expect(seen).toEqual([7]);
    expect((await jobRow(id)).status).toBe("done");
    expect(await drainJobs([job])).toBe(0);
  });

  it("coalesces a second enqueue with the same key while the first waits", async () => {
    const seen: number[] = [];
    const job = defineJob({
      kind: freshKind(),
      parse: payload,
      async run({ payload }) {
        seen.push(payload.n);
        return undefined;
      },
    });
    const first = await job.enqueue(getDb(), { n: 1 }, { key: "person-1" });
    const second = await job.enqueue(getDb(), { n: 2 }, { key: "person-1" });
    const other = await job.enqueue(getDb(), { n: 3 }, { key: "person-2" });
    expect(first).not.toBeNull();
    expect(second).toBeNull();
    expect(other).not.toBeNull();
    await drainJobs([job]);
    expect(seen.sort()).toEqual([1, 3]);
    // Once done, the key is free again.
    expect(await job.enqueue(getDb(), { n: 4 }, { key: "person-1" })).not.toBeNull();
  });

  it("a job queued in a transaction that rolls back never exists", async () => {
    const job = defineJob({ kind: freshKind(), parse: payload, run: async () => undefined });
    await expect(
      getDb().transaction(async (tx) => {
        await job.enqueue(tx, { n: 1 });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await drainJobs([job])).toBe(0);
  });

  it("retries a failing job later with back-off, then gives up into the dead letter", async () => {
    let calls = 0;
    const job = defineJob({
      kind: freshKind(),
      maxAttempts: 3,
      backoffSeconds: (attempt) => 60 * attempt,
      parse: payload,
      async run() {
        calls++;
        throw new Error(`broken ${calls}`);
      },
    });
    const id = await job.enqueue(getDb(), { n: 1 });
    await drainJobs([job]);
    let row = await jobRow(id);
    expect(row).toMatchObject({ status: "queued", attempts: 1, last_error: "broken 1" });
    expect(row.run_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
    // Not due yet: nothing runs.
    expect(await drainJobs([job])).toBe(0);
    for (const attempt of [2, 3]) {
      await getDb().execute(sql`update jobs set run_at = now() where id = ${id}`);
      await drainJobs([job]);
      row = await jobRow(id);
      expect(row.attempts).toBe(attempt);
    }
    expect(row).toMatchObject({ status: "dead", last_error: "broken 3" });
    expect(calls).toBe(3);
  });

  it("sends a permanent failure to the dead letter at once, and a poison job never blocks others", async () => {
    const seen: number[] = [];
    const job = defineJob({
      kind: freshKind(),
      parse: payload,
      async run({ payload }) {
        if (payload.n === 0) throw new PermanentJobError("cannot ever work");
        seen.push(payload.n);
        return undefined;
      },
    });
    const poison = await job.enqueue(getDb(), { n: 0 }, { priority: 0 });
    for (const n of [1, 2, 3]) await job.enqueue(getDb(), { n });
    await drainJobs([job]);
    expect(seen).toEqual([1, 2, 3]);
    expect(await jobRow(poison)).toMatchObject({
      status: "dead",
      attempts: 1,
      last_error: "cannot ever work",
    });
  });

  it("runs a long job in slices, keeping its progress, and counts attempts from the last progress", async () => {
    const slices: number[] = [];
    let failOnce = true;
    const job = defineJob({
      kind: freshKind(),
      maxAttempts: 2,
      parse: payload,
      async run({ payload, progress, attempt }) {
        const done = Number(progress?.done ?? 0);
        if (done === 2 && failOnce) {
          failOnce = false;
          expect(attempt).toBe(1);
          throw new Error("a passing fault");
        }
        slices.push(done);
        if (done + 1 >= payload.n) return undefined;
        return { again: { progress: { done: done + 1 } } };
      },
    });
    const id = await job.enqueue(getDb(), { n: 4 });
    await drainJobs([job]);
    // The failed slice waits for its back-off; bring it forward.
    await getDb().execute(sql`update jobs set run_at = now() where id = ${id}`);
    await drainJobs([job]);
    expect(slices).toEqual([0, 1, 2, 3]);
    expect(await jobRow(id)).toMatchObject({ status: "done", progress: { done: 3 } });
  });

  it("fences a runner that lost its lease: its writes and its settlement change nothing", async () => {
    let firstRun = true;
    const writes: string[] = [];
    const job = defineJob({
      kind: freshKind(),
      leaseSeconds: 30,
      parse: payload,
      async run(active) {
        if (firstRun) {
          firstRun = false;
          // Another instance takes the job over meanwhile (this one stalled past its lease).
          await getDb().execute(sql`update jobs set locked_until = now() - interval '1 second'
            where id = ${active.id}`);
          expect(await drainJobs([job])).toBe(1);
          await expect(
            getDb().transaction(async (tx) => {
              await active.fence(tx);
              writes.push("stale");
            }),
          ).rejects.toBeInstanceOf(JobLeaseLost);
          return undefined;
        }
        await getDb().transaction(async (tx) => {
          await active.fence(tx);
          writes.push("fresh");
        });
        return undefined;
      },
    });
    const id = await job.enqueue(getDb(), { n: 1 });
    await drainJobs([job]);
    expect(writes).toEqual(["fresh"]);
    expect(await jobRow(id)).toMatchObject({ status: "done", attempts: 2 });
  });

  it("never runs two jobs with the same key at once", async () => {
    const kind = freshKind();
    let active = 0;
    let most = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const job = defineJob({
      kind,
      concurrency: 2,
      parse: payload,
      async run() {
        active++;
        most = Math.max(most, active);
        await gate;
        active--;
        return undefined;
      },
    });
    const runner = new JobRunner({ handle: getDatabase(), definitions: [job], pollMs: 200 });
    runners.push(runner);
    const first = await job.enqueue(getDb(), { n: 1 }, { key: "same" });
    await runner.start();
    await vi.waitFor(async () => expect((await jobRow(first)).status).toBe("running"));
    const second = await job.enqueue(getDb(), { n: 2 }, { key: "same" });
    // The second waits while the first holds the key, though there is room for two, and no
    // other runner may take it either.
    expect(await drainJobs([job])).toBe(0);
    expect((await jobRow(second)).status).toBe("queued");
    release();
    await vi.waitFor(async () => expect((await jobRow(second)).status).toBe("done"), {
      timeout: 10_000,
    });
    expect(most).toBe(1);
  });

  it("wakes a started runner when a job is queued (no poll for a minute)", async () => {
    let ran = 0;
    const job = defineJob({
      kind: freshKind(),
      parse: payload,
      async run() {
        ran++;
        return undefined;
      },
    });
    const runner = new JobRunner({ handle: getDatabase(), definitions: [job], pollMs: 60_000 });
    runners.push(runner);
    await runner.start();
    await getDb().transaction((tx) => job.enqueue(tx, { n: 0 }));
    await vi.waitFor(() => expect(ran).toBe(1), { timeout: 20_000 });
  });

  it("at shutdown asks a long job to stop and queues it again without counting the attempt", async () => {
    const kind = freshKind();
    let started = false;
    const job = defineJob({
      kind,
      parse: payload,
      async run({ signal }) {
        started = true;
        await new Promise<void>((_, reject) => {
          signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
        });
        return undefined;
      },
    });
    const runner = new JobRunner({ handle: getDatabase(), definitions: [job] });
    const id = await job.enqueue(getDb(), { n: 1 });
    await runner.start();
    await vi.waitFor(() => expect(started).toBe(true));
    await runner.stop(5000);
    expect(await jobRow(id)).toMatchObject({ status: "queued", attempts: 0 });
  });

  it("takes up a job whose runner died once its lease ran out", async () => {
    const job = defineJob({ kind: freshKind(), parse: payload, run: async () => undefined });
    const id = await job.enqueue(getDb(), { n: 1 });
    // A runner claimed it and died (its lease still runs): not claimable yet.
    await getDb().execute(sql`update jobs set status = 'running', attempts = 1,
      lease_token = gen_random_uuid(), locked_until = now() + interval '1 minute' where id = ${id}`);
    expect(await drainJobs([job])).toBe(0);
    await getDb().execute(sql`update jobs set locked_until = now() - interval '1 second'
      where id = ${id}`);
    expect(await drainJobs([job])).toBe(1);
    expect(await jobRow(id)).toMatchObject({ status: "done", attempts: 2 });
  });

  it("runs one job here and now on request, once", async () => {
    let ran = 0;
    const job = defineJob({
      kind: freshKind(),
      parse: payload,
      async run() {
        ran++;
        return undefined;
      },
    });
    const id = await job.enqueue(getDb(), { n: 1 });
    if (id === null) throw new Error("not queued");
    expect(await runJobNow(job, id)).toBe(true);
    expect(await runJobNow(job, id)).toBe(false);
    expect(ran).toBe(1);
  });
});
