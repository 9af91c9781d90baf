import { and, eq, ne, sql } from "drizzle-orm";
import { follows, homeTimeline, posts } from "~/db/schema";
import type { Audience } from "~/features/posts/constants";
import type { DbOrTx } from "~/features/posts/post-cards.server";

/** How many of a person's posts a new follower gets in their home timeline right away. */
export const BACKFILL_LIMIT = 500;

export interface TimelinePost {
  id: string;
  authorId: string;
  createdAt: Date;
  audience: Audience;
}

/**
 * Fan-out on write: puts a new post into its author's timeline and, unless it is "only me",
 * into every follower's. Runs in the transaction that creates the post.
 */
export async function fanOutPost(tx: DbOrTx, post: TimelinePost): Promise<void> {
  const createdAt = post.createdAt.toISOString();
  const followers =
    post.audience === "only_me"
      ? sql``
      : sql`union all
        select ${follows.followerId}, ${createdAt}::timestamptz, ${post.id}::uuid, ${post.authorId}
        from ${follows} where ${follows.followeeId} = ${post.authorId}`;
  await tx.execute(sql`
    insert into ${homeTimeline} (user_id, created_at, post_id, author_id)
    select ${post.authorId}, ${createdAt}::timestamptz, ${post.id}::uuid, ${post.authorId}
    ${followers}
    on conflict do nothing`);
}

/** After an audience change: the post reaches exactly the people the new audience allows. */
export async function refanOutPost(tx: DbOrTx, post: TimelinePost): Promise<void> {
  await tx
    .delete(homeTimeline)
    .where(and(eq(homeTimeline.postId, post.id), ne(homeTimeline.userId, post.authorId)));
  await fanOutPost(tx, post);
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
