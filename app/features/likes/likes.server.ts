import { and, desc, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { isUuid } from "~/core/ids";
import { withShownName } from "~/core/person";
import { personColumns } from "~/core/person.server";
import { blockedBetween, canSeePost, POST_NOT_FOUND } from "~/core/visibility.server";
import { getDb } from "~/db/client.server";
import { postLikes, posts, profiles } from "~/db/schema";
import { recordSocialEvent } from "~/features/notifications/index.server";

export interface LikeState {
  liked: boolean;
  likeCount: number;
}

/** The like count of a post the viewer may see; null when they may not (it reveals nothing). */
async function likeCountOf(viewerId: string, postId: string): Promise<number | null> {
  const [row] = await getDb()
    .select({
      n: sql<number>`(select count(*)::int from ${postLikes} where ${postLikes.postId} = ${posts.id})`,
    })
    .from(posts)
    .where(and(eq(posts.id, postId), canSeePost(viewerId)));
  return row ? Number(row.n) : null;
}

/**
 * Likes a post the viewer may see (a block either way means they cannot). Liking twice is
 * harmless; a hidden or unknown post is "not found".
 */
export async function likePost(options: { viewerId: string; postId: string }): Promise<LikeState> {
  const { viewerId, postId } = options;
  if (!isUuid(postId)) throw new AppError("not_found", POST_NOT_FOUND);
  await getDb().transaction(async (tx) => {
    const [post] = await tx
      .select({ id: posts.id, authorId: posts.authorId })
      .from(posts)
      .where(and(eq(posts.id, postId), canSeePost(viewerId)));
    if (!post) throw new AppError("not_found", POST_NOT_FOUND);
    const inserted = await tx
      .insert(postLikes)
      .values({ postId, userId: viewerId })
      .onConflictDoNothing()
      .returning({ postId: postLikes.postId });
    if (inserted.length > 0) {
      await recordSocialEvent(tx, {
        type: "postLiked",
        postId,
        authorId: post.authorId,
        likerId: viewerId,
      });
    }
  });
  const likeCount = await likeCountOf(viewerId, postId);
  if (likeCount === null) throw new AppError("not_found", POST_NOT_FOUND);
  return { liked: true, likeCount };
}

/**
 * Takes a like back. Always allowed (it only removes the viewer's own row), but the answer goes
 * through the visibility rule: on a post the viewer may no longer see it is "not found".
 */
export async function unlikePost(options: {
  viewerId: string;
  postId: string;
}): Promise<LikeState> {
  if (!isUuid(options.postId)) throw new AppError("not_found", POST_NOT_FOUND);
  await getDb().transaction(async (tx) => {
    const removed = await tx
      .delete(postLikes)
      .where(and(eq(postLikes.postId, options.postId), eq(postLikes.userId, options.viewerId)))
      .returning({ postId: postLikes.postId });
    if (removed.length === 0) return;
    const [post] = await tx
      .select({ authorId: posts.authorId })
      .from(posts)
      .where(eq(posts.id, options.postId));
    if (!post) return;
    // Its notification goes too (or the person leaves the "… and 3 others" group).
    await recordSocialEvent(tx, {
      type: "postUnliked",
      postId: options.postId,
      authorId: post.authorId,
      likerId: options.viewerId,
    });
  });
  const likeCount = await likeCountOf(options.viewerId, options.postId);
  if (likeCount === null) throw new AppError("not_found", POST_NOT_FOUND);
  return { liked: false, likeCount };
}

export interface Liker {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
}

/** Who liked a post the viewer may see, newest first (people in a block with the viewer left out). */
export async function listLikers(options: {
  viewerId: string | null;
  postId: string;
  limit?: number;
}): Promise<Liker[]> {
  const { viewerId, postId } = options;
  if (!isUuid(postId)) return [];
  const rows = await getDb()
    .select(personColumns)
    .from(postLikes)
    .innerJoin(posts, eq(posts.id, postLikes.postId))
    .innerJoin(profiles, eq(profiles.userId, postLikes.userId))
    .where(
      and(
        eq(postLikes.postId, postId),
        canSeePost(viewerId),
        viewerId ? sql`not ${blockedBetween(postLikes.userId, viewerId)}` : undefined,
      ),
    )
    .orderBy(desc(postLikes.createdAt))
    .limit(Math.min(options.limit ?? 50, 100));
  return rows.map(withShownName);
}
