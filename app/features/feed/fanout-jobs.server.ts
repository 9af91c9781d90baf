import { sql } from "drizzle-orm";
import { defineJob, drainJobs, stringFields } from "~/core/jobs/index.server";
import { logger } from "~/core/logger.server";
import { type DbOrTx, getDb, rowsOf } from "~/db/client.server";
import { publishLive } from "~/features/realtime/index.server";

/**
 * The fan-out job: adds a big author's new post to their followers' timelines after the post
 * has committed, FANOUT_BATCH followers per transaction, so neither the author's request nor
 * anybody else's waits for ten thousand rows (issue 17). It runs on the job system (core/jobs).
 *
 * Each batch moves the job's cursor (its saved progress: the last follower done) in the same
 * transaction as the rows, fenced by the job's lease, so a restart resumes where it stopped and
 * two instances never write the same batch. The post's audience is read at every batch: an edit
 * to "only me" meanwhile stops the rest, and a deleted post ends the job. The live "new post"
 * signal goes out with the last batch, once every follower's timeline has the post.
 */

/** Rows per transaction: small enough that other requests get the database in between. */
export const FANOUT_BATCH = 1000;

export const fanOutJob = defineJob<{ postId: string }>({
  kind: "feed.fanout",
  priority: 1,
  concurrency: 2,
  parse: stringFields("postId"),
  async run(job) {
    let after = (job.progress?.afterFollower as string | null | undefined) ?? null;
    for (;;) {
      if (job.signal.aborted) throw new Error("stopped");
      const outcome = await getDb().transaction(async (tx) => {
        await job.fence(tx);
        const [batch] = rowsOf<{
          author_id: string;
          audience: string;
          last: string | null;
          n: number;
        }>(
          await tx.execute(sql`
            with post as (
              select id, author_id, created_at, audience from posts
              where id = ${job.payload.postId}::uuid
              for key share
            ), batch as (
              select f.follower_id from follows f, post
              where f.followee_id = post.author_id
                and (${after}::text is null or f.follower_id > ${after}::text)
              order by f.follower_id limit ${FANOUT_BATCH}
            ), added as (
              insert into home_timeline (user_id, created_at, post_id, author_id)
              select b.follower_id, post.created_at, post.id, post.author_id
              from batch b, post
              where post.audience <> 'only_me'
              on conflict do nothing
            )
            select post.author_id, post.audience, (select max(follower_id) from batch) as last,
              (select count(*)::int from batch) as n
            from post`),
        );
        // The post was deleted, or went to "only me", meanwhile: nothing left to do.
        if (!batch || batch.audience === "only_me") return "done" as const;
        if (batch.n < FANOUT_BATCH || batch.last === null) {
          await publishLive(tx, { t: "p", p: job.payload.postId, a: batch.author_id });
          return "done" as const;
        }
        await job.saveProgress({ afterFollower: batch.last }, tx);
        return batch.last;
      });
      if (outcome === "done") {
        logger.debug({ postId: job.payload.postId }, "fan-out done");
        return undefined;
      }
      after = outcome;
      logger.debug({ postId: job.payload.postId, after }, "fan-out batch");
      // Let waiting requests have the database between batches.
      await job.yield();
    }
  },
});

/**
 * Queues the fan-out of a post (in the transaction that created or re-audienced it); a queued
 * one for the same post starts over from the first follower.
 */
export async function queueFanOut(tx: DbOrTx, postId: string): Promise<void> {
  await fanOutJob.enqueue(tx, { postId }, { key: postId, replace: true });
}

/** Works through every queued fan-out until none is left (tests and the bench). */
export async function drainFanOut(): Promise<void> {
  await drainJobs([fanOutJob]);
}
