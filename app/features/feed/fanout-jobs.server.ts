import { sql } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { getDb, rowsOf } from "~/db/client.server";
import { fanoutJobs } from "~/db/schema";
import { publishLive } from "~/features/realtime/index.server";

/**
 * The fan-out worker: adds a big author's new post to their followers' timelines after the
 * post has committed, FANOUT_BATCH followers per transaction, so neither the author's request
 * nor anybody else's waits for ten thousand rows (issue 17).
 *
 * Each batch claims its job with `for update skip locked` and moves the job's cursor in the
 * same transaction, so a restart resumes where it stopped and two instances never write the
 * same batch. The post's audience is read at every batch: an edit to "only me" meanwhile stops
 * the rest, and a deleted post takes its job with it (foreign key). The live "new post" signal
 * goes out with the last batch, once every follower's timeline has the post.
 */

/** Rows per transaction: small enough that other requests get the database in between. */
export const FANOUT_BATCH = 1000;

let draining: Promise<void> | null = null;
let wakeAgain = false;
let stopping = false;
let timer: ReturnType<typeof setInterval> | null = null;

/**
 * One batch of the oldest open job. False when there was nothing to do. The post's row is
 * locked too, without waiting: a post being deleted (which deletes its job) is skipped rather
 * than waited for, so the two never wait on each other.
 */
async function runBatch(): Promise<boolean> {
  return getDb().transaction(async (tx) => {
    const [job] = rowsOf<{ post_id: string; author_id: string; last: string | null; n: number }>(
      await tx.execute(sql`
        with job as (
          select j.post_id, j.author_id, j.after_follower, p.created_at, p.audience
          from ${fanoutJobs} j join posts p on p.id = j.post_id
          order by j.created_at limit 1
          for update of j skip locked
          for key share of p skip locked
        ), batch as (
          select f.follower_id from follows f, job
          where f.followee_id = job.author_id
            and (job.after_follower is null or f.follower_id > job.after_follower)
          order by f.follower_id limit ${FANOUT_BATCH}
        ), added as (
          insert into home_timeline (user_id, created_at, post_id, author_id)
          select b.follower_id, job.created_at, job.post_id, job.author_id
          from batch b, job
          where job.audience <> 'only_me'
          on conflict do nothing
        )
        select job.post_id, job.author_id,
          (select max(follower_id) from batch) as last,
          (select count(*)::int from batch) as n
        from job`),
    );
    if (!job) return false;
    if (job.n < FANOUT_BATCH || job.last === null) {
      await tx.execute(sql`delete from ${fanoutJobs} where post_id = ${job.post_id}::uuid`);
      await publishLive(tx, { t: "p", p: job.post_id, a: job.author_id });
    } else {
      await tx.execute(
        sql`update ${fanoutJobs} set after_follower = ${job.last} where post_id = ${job.post_id}::uuid`,
      );
    }
    return true;
  });
}

/** Works through every open job until none is left (tests and the bench await it). */
export function drainFanOut(): Promise<void> {
  if (draining) {
    wakeAgain = true;
    return draining;
  }
  draining = (async () => {
    try {
      do {
        wakeAgain = false;
        while (!stopping && (await runBatch())) {
          // Let waiting requests have the database between batches.
          await new Promise((resolve) => setImmediate(resolve));
        }
      } while (wakeAgain && !stopping);
    } finally {
      draining = null;
    }
  })();
  return draining;
}

/** After a post with a queued fan-out committed: start working on it (in the background). */
export function wakeFanOut(): void {
  drainFanOut().catch((error: unknown) => logger.error({ err: error }, "fan-out failed"));
}

/** Drains now and every half minute: jobs left by a crash, or by another instance's. */
export function startFanOutWorker(): void {
  stopping = false;
  if (timer) return;
  wakeFanOut();
  timer = setInterval(wakeFanOut, 30_000);
  timer.unref();
}

/** Stops after the current batch (the next start resumes) and waits for it. */
export async function stopFanOutWorker(): Promise<void> {
  stopping = true;
  if (timer) clearInterval(timer);
  timer = null;
  await draining?.catch(() => {});
}
