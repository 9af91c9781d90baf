import { and, eq, ne, sql } from "drizzle-orm";
import { type DbOrTx, rowsOf } from "~/db/client.server";
import { follows, homeTimeline, posts } from "~/db/schema";
import type { Audience } from "~/db/schema/enums";
import { queueFanOut } from "./fanout-jobs.server";

/** How many of a person's posts a new follower gets in their home timeline right away. */
export const BACKFILL_LIMIT = 500;

export interface TimelinePost {
  id: string;
  authorId: string;
  createdAt: Date;
  audience: Audience;
}

/**
 * Above this many followers the followers' rows are written by the fan-out worker after the
 * post commits (the fan-out job, fanout-jobs.server.ts) instead of inside the author's request.
 */
export const INLINE_FANOUT_LIMIT = 500;

/** "inline": every timeline has the post on commit; "queued": the worker adds the followers'. */
export type FanOut = "inline" | "queued";

/**
 * Fan-out on write: puts a new post into its author's timeline and, unless it is "only me",
 * into every follower's — in the transaction that creates the post when the author has up to
 * INLINE_FANOUT_LIMIT followers, else through a fan-out job committed with the post (its
 * commit wakes the job runners).
 */
export async function fanOutPost(tx: DbOrTx, post: TimelinePost): Promise<FanOut> {
  const createdAt = post.createdAt.toISOString();
  await tx.execute(sql`
    insert into ${homeTimeline} (user_id, created_at, post_id, author_id)
    values (${post.authorId}, ${createdAt}::timestamptz, ${post.id}::uuid, ${post.authorId})
    on conflict do nothing`);
  if (post.audience === "only_me") return "inline";
  const many = rowsOf(
    await tx.execute(sql`
      select 1 from ${follows} where ${follows.followeeId} = ${post.authorId}
      offset ${INLINE_FANOUT_LIMIT} limit 1`),
  );
  if (many.length > 0) {
    await queueFanOut(tx, post.id);
    return "queued";
  }
  await tx.execute(sql`
    insert into ${homeTimeline} (user_id, created_at, post_id, author_id)
    select ${follows.followerId}, ${createdAt}::timestamptz, ${post.id}::uuid, ${post.authorId}
    from ${follows} where ${follows.followeeId} = ${post.authorId}
    on conflict do nothing`);
  return "inline";
}

/** After an audience change: the post reaches exactly the people the new audience allows. */
export async function refanOutPost(tx: DbOrTx, post: TimelinePost): Promise<FanOut> {
  await tx
    .delete(homeTimeline)
    .where(and(eq(homeTimeline.postId, post.id), ne(homeTimeline.userId, post.authorId)));
  return fanOutPost(tx, post);
}

/** On follow: the followee's newest posts the follower may see join the follower's timeline. */
export async function backfillTimeline(
  tx: DbOrTx,
  options: { followerId: string; followeeId: string },
): Promise<void> {
  await tx.execute(sql`
    insert into ${homeTimeline} (user_id, created_at, post_id, author_id)
    select ${options.followerId}, p.created_at, p.id, p.author_id
    from (
      select ${posts.createdAt} as created_at, ${posts.id} as id, ${posts.authorId} as author_id
      from ${posts}
      where ${posts.authorId} = ${options.followeeId} and ${posts.audience} in ('everyone', 'followers')
      order by ${posts.createdAt} desc, ${posts.id} desc
      limit ${BACKFILL_LIMIT}
    ) p
    on conflict do nothing`);
}

/** On unfollow or block: `authorId`'s posts leave `userId`'s timeline. */
export async function removeAuthorFromTimeline(
  tx: DbOrTx,
  options: { userId: string; authorId: string },
): Promise<void> {
  await tx
    .delete(homeTimeline)
    .where(
      and(eq(homeTimeline.userId, options.userId), eq(homeTimeline.authorId, options.authorId)),
    );
}
