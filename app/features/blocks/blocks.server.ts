import { and, eq, or } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { blocks, followRequests, follows, profiles } from "~/db/schema";
import { removeAuthorFromTimeline } from "~/features/feed/index.server";
import { recordSocialEvent } from "~/features/notifications/index.server";

export const CANNOT_BLOCK_SELF = "You cannot block yourself.";

/**
 * Blocks someone. In one transaction: the block, both follows and any waiting follow request
 * (either way) removed, and each person's posts
 * removed from the other's home timeline. From then on the shared visibility rule hides each
 * from the other, and the blocked person cannot follow, like or comment on the blocker's posts.
 */
export async function blockUser(options: { viewerId: string; targetId: string }): Promise<void> {
  const { viewerId, targetId } = options;
  if (viewerId === targetId) throw new AppError("invalid", CANNOT_BLOCK_SELF);
  await getDb().transaction(async (tx) => {
    const [target] = await tx
      .select({ id: profiles.userId })
      .from(profiles)
      .where(eq(profiles.userId, targetId));
    if (!target) throw new AppError("not_found", "This person does not exist.");
    await tx
      .insert(blocks)
      .values({ blockerId: viewerId, blockedId: targetId })
      .onConflictDoNothing();
    await tx
      .delete(follows)
      .where(
        or(
          and(eq(follows.followerId, viewerId), eq(follows.followeeId, targetId)),
          and(eq(follows.followerId, targetId), eq(follows.followeeId, viewerId)),
        ),
      );
    await tx
      .delete(followRequests)
      .where(
        or(
          and(eq(followRequests.requesterId, viewerId), eq(followRequests.targetId, targetId)),
          and(eq(followRequests.requesterId, targetId), eq(followRequests.targetId, viewerId)),
        ),
      );
    await removeAuthorFromTimeline(tx, { userId: viewerId, authorId: targetId });
    await removeAuthorFromTimeline(tx, { userId: targetId, authorId: viewerId });
    await recordSocialEvent(tx, { type: "userBlocked", blockerId: viewerId, blockedId: targetId });
  });
}

/** Lifts a block. Follows are not restored: either person may follow again. */
export async function unblockUser(options: { viewerId: string; targetId: string }): Promise<void> {
  await getDb()
    .delete(blocks)
    .where(and(eq(blocks.blockerId, options.viewerId), eq(blocks.blockedId, options.targetId)));
}
