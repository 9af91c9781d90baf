import { and, desc, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { withShownName } from "~/core/person";
import { personColumns } from "~/core/person.server";
import { blockedBetween } from "~/core/visibility.server";
import { type DbOrTx, getDb } from "~/db/client.server";
import { followRequests, follows, profiles } from "~/db/schema";
import { backfillTimeline } from "~/features/feed/index.server";
import { recordSocialEvent } from "~/features/notifications/index.server";

export const REQUEST_NOT_FOUND = "This follow request is no longer waiting.";
/** Requests per page of the list in privacy settings. */
export const FOLLOW_REQUESTS_PAGE_SIZE = 30;

export interface FollowRequest {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  requestedAt: string;
}

/**
 * The people waiting for the viewer to accept them as followers, oldest first (first come,
 * first answered), paged by offset with the total. People in a block with the viewer are left
 * out (blocking removes their requests anyway).
 */
export async function listFollowRequests(options: {
  viewerId: string;
  page?: number;
}): Promise<{ requests: FollowRequest[]; total: number; page: number; pageCount: number }> {
  const { viewerId } = options;
  const page = Math.max(1, Math.floor(Number.isFinite(options.page) ? (options.page ?? 1) : 1));
  const visible = and(
    eq(followRequests.targetId, viewerId),
    sql`not ${blockedBetween(followRequests.requesterId, viewerId)}`,
  );
  const db = getDb();
  const [rows, [count]] = await Promise.all([
    db
      .select({
        ...personColumns,
        requestedAt: followRequests.createdAt,
      })
      .from(followRequests)
      .innerJoin(profiles, eq(profiles.userId, followRequests.requesterId))
      .where(visible)
      .orderBy(followRequests.createdAt, profiles.userId)
      .limit(FOLLOW_REQUESTS_PAGE_SIZE)
      .offset((page - 1) * FOLLOW_REQUESTS_PAGE_SIZE),
    db.select({ n: sql<number>`count(*)::int` }).from(followRequests).where(visible),
  ]);
  const total = Number(count?.n ?? 0);
  return {
    requests: rows.map((row) => ({
      ...withShownName(row),
      requestedAt: row.requestedAt.toISOString(),
    })),
    total,
    page,
    pageCount: Math.max(1, Math.ceil(total / FOLLOW_REQUESTS_PAGE_SIZE)),
  };
}

/** Turns one waiting request into a follow, inside `tx`; false when there was none. */
async function acceptIn(tx: DbOrTx, requesterId: string, targetId: string): Promise<boolean> {
  const removed = await tx
    .delete(followRequests)
    .where(and(eq(followRequests.requesterId, requesterId), eq(followRequests.targetId, targetId)))
    .returning({ requesterId: followRequests.requesterId });
  if (removed.length === 0) return false;
  await recordSocialEvent(tx, { type: "followRequestClosed", requesterId, targetId });
  const inserted = await tx
    .insert(follows)
    .values({ followerId: requesterId, followeeId: targetId })
    .onConflictDoNothing()
    .returning({ followerId: follows.followerId });
  if (inserted.length > 0) {
    await backfillTimeline(tx, { followerId: requesterId, followeeId: targetId });
    await recordSocialEvent(tx, { type: "followAccepted", requesterId, targetId });
  }
  return true;
}

/**
 * The viewer accepts `requesterId` as a follower: the request becomes a follow (their
 * followers-only posts now show to the requester), and the requester hears of it.
 */
export async function acceptFollowRequest(options: {
  viewerId: string;
  requesterId: string;
}): Promise<void> {
  await getDb().transaction(async (tx) => {
    const [blocked] = await tx
      .select({ isBlocked: sql<boolean>`${blockedBetween(options.requesterId, options.viewerId)}` })
      .from(profiles)
      .where(eq(profiles.userId, options.viewerId));
    if (blocked?.isBlocked) throw new AppError("not_found", REQUEST_NOT_FOUND);
    if (!(await acceptIn(tx, options.requesterId, options.viewerId))) {
      throw new AppError("not_found", REQUEST_NOT_FOUND);
    }
  });
}

/** The viewer declines `requesterId`: the request goes, and the requester is not told. */
export async function declineFollowRequest(options: {
  viewerId: string;
  requesterId: string;
}): Promise<void> {
  await getDb().transaction(async (tx) => {
    const removed = await tx
      .delete(followRequests)
      .where(
        and(
          eq(followRequests.requesterId, options.requesterId),
          eq(followRequests.targetId, options.viewerId),
        ),
      )
      .returning({ requesterId: followRequests.requesterId });
    if (removed.length === 0) throw new AppError("not_found", REQUEST_NOT_FOUND);
    await recordSocialEvent(tx, {
      type: "followRequestClosed",
      requesterId: options.requesterId,
      targetId: options.viewerId,
    });
  });
}

/** The viewer withdraws their own request to follow `targetId` (nothing when there is none). */
export async function cancelFollowRequest(options: {
  viewerId: string;
  targetId: string;
}): Promise<{ following: false; requested: false; followerCount: number }> {
  await getDb().transaction(async (tx) => {
    const removed = await tx
      .delete(followRequests)
      .where(
        and(
          eq(followRequests.requesterId, options.viewerId),
          eq(followRequests.targetId, options.targetId),
        ),
      )
      .returning({ requesterId: followRequests.requesterId });
    if (removed.length > 0) {
      await recordSocialEvent(tx, {
        type: "followRequestClosed",
        requesterId: options.viewerId,
        targetId: options.targetId,
      });
    }
  });
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(follows)
    .where(eq(follows.followeeId, options.targetId));
  return { following: false, requested: false, followerCount: Number(row?.n ?? 0) };
}

/**
 * Accepts every waiting request of `targetId` (when they stop approving followers), inside the
 * caller's transaction. Returns how many became follows.
 */
export async function acceptAllFollowRequests(tx: DbOrTx, targetId: string): Promise<number> {
  const waiting = await tx
    .select({ requesterId: followRequests.requesterId })
    .from(followRequests)
    .where(
      and(
        eq(followRequests.targetId, targetId),
        sql`not ${blockedBetween(followRequests.requesterId, targetId)}`,
      ),
    )
    .orderBy(desc(followRequests.createdAt));
  let accepted = 0;
  for (const { requesterId } of waiting) {
    if (await acceptIn(tx, requesterId, targetId)) accepted++;
  }
  return accepted;
}
