import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { withShownName } from "~/core/person";
import { personColumns } from "~/core/person.server";
import { blockedBetween } from "~/core/visibility.server";
import { getDb } from "~/db/client.server";
import { blocks, followRequests, follows, posts, profiles } from "~/db/schema";
import { backfillTimeline, removeAuthorFromTimeline } from "~/features/feed/index.server";
import { recordSocialEvent } from "~/features/notifications/index.server";

export const CANNOT_FOLLOW_SELF = "You cannot follow yourself.";
export const CANNOT_FOLLOW_BLOCKED = "You cannot follow this person.";
export const PERSON_NOT_FOUND = "This person does not exist.";

export interface FollowState {
  following: boolean;
  /** A follow request waits for their approval. */
  requested: boolean;
  followerCount: number;
}

async function followerCountOf(userId: string): Promise<number> {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(follows)
    .where(eq(follows.followeeId, userId));
  return Number(row?.n ?? 0);
}

/**
 * Follows someone: refused for oneself and across a block (either way). When they approve their
 * followers, a follow request is stored instead (and they hear of it); nothing of their
 * followers-only posts shows until they accept. Otherwise their newest posts the follower may
 * now see are copied into the follower's home timeline in the same transaction.
 */
export async function followUser(options: {
  viewerId: string;
  targetId: string;
}): Promise<FollowState> {
  const { viewerId, targetId } = options;
  if (viewerId === targetId) throw new AppError("invalid", CANNOT_FOLLOW_SELF);
  const requested = await getDb().transaction(async (tx) => {
    const [target] = await tx
      .select({
        id: profiles.userId,
        isBlocked: sql<boolean>`${blockedBetween(profiles.userId, viewerId)}`,
        requiresApproval: profiles.requiresFollowApproval,
        isFollowed: sql<boolean>`exists (select 1 from ${follows} where ${follows.followerId} = ${viewerId} and ${follows.followeeId} = ${profiles.userId})`,
      })
      .from(profiles)
      .where(eq(profiles.userId, targetId));
    if (!target) throw new AppError("not_found", PERSON_NOT_FOUND);
    if (target.isBlocked) throw new AppError("blocked", CANNOT_FOLLOW_BLOCKED);
    if (target.isFollowed) return false;
    if (target.requiresApproval) {
      const asked = await tx
        .insert(followRequests)
        .values({ requesterId: viewerId, targetId })
        .onConflictDoNothing()
        .returning({ requesterId: followRequests.requesterId });
      if (asked.length > 0) {
        await recordSocialEvent(tx, {
          type: "followRequested",
          requesterId: viewerId,
          targetId,
        });
      }
      return true;
    }
    const inserted = await tx
      .insert(follows)
      .values({ followerId: viewerId, followeeId: targetId })
      .onConflictDoNothing()
      .returning({ followerId: follows.followerId });
    if (inserted.length === 0) return false;
    await backfillTimeline(tx, { followerId: viewerId, followeeId: targetId });
    await recordSocialEvent(tx, {
      type: "userFollowed",
      followerId: viewerId,
      followeeId: targetId,
    });
    return false;
  });
  return {
    following: !requested,
    requested,
    followerCount: await followerCountOf(targetId),
  };
}

/** Stops following; their posts leave the viewer's home timeline. */
export async function unfollowUser(options: {
  viewerId: string;
  targetId: string;
}): Promise<FollowState> {
  const { viewerId, targetId } = options;
  await getDb().transaction(async (tx) => {
    const removed = await tx
      .delete(follows)
      .where(and(eq(follows.followerId, viewerId), eq(follows.followeeId, targetId)))
      .returning({ followerId: follows.followerId });
    await removeAuthorFromTimeline(tx, { userId: viewerId, authorId: targetId });
    if (removed.length > 0) {
      await recordSocialEvent(tx, {
        type: "userUnfollowed",
        followerId: viewerId,
        followeeId: targetId,
      });
    }
  });
  return { following: false, requested: false, followerCount: await followerCountOf(targetId) };
}

export interface PersonSummary {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  bio: string;
  /** The viewer follows them. */
  isFollowed: boolean;
  /** They follow the viewer. */
  followsViewer: boolean;
  /** The viewer asked to follow them and waits for their approval. */
  isRequested: boolean;
  /** They approve new followers. */
  requiresApproval: boolean;
}

export const PEOPLE_PAGE_SIZE = 30;

function personFields(viewerId: string | null) {
  return {
    ...personColumns,
    bio: profiles.bio,
    isFollowed: viewerId
      ? sql<boolean>`exists (select 1 from ${follows} f2 where f2.follower_id = ${viewerId} and f2.followee_id = ${profiles.userId})`
      : sql<boolean>`false`,
    followsViewer: viewerId
      ? sql<boolean>`exists (select 1 from ${follows} f3 where f3.follower_id = ${profiles.userId} and f3.followee_id = ${viewerId})`
      : sql<boolean>`false`,
    isRequested: viewerId
      ? sql<boolean>`exists (select 1 from ${followRequests} fr where fr.requester_id = ${viewerId} and fr.target_id = ${profiles.userId})`
      : sql<boolean>`false`,
    requiresApproval: profiles.requiresFollowApproval,
  };
}

function toPerson(r: {
  id: string;
  username: string;
  displayName: string | null;
  avatarUrl: string | null;
  bio: string;
  isFollowed: boolean;
  followsViewer: boolean;
  isRequested: boolean;
  requiresApproval: boolean;
}): PersonSummary {
  return {
    ...withShownName(r),
    isFollowed: Boolean(r.isFollowed),
    followsViewer: Boolean(r.followsViewer),
    isRequested: Boolean(r.isRequested),
    requiresApproval: Boolean(r.requiresApproval),
  };
}

export type PeopleList = "followers" | "following" | "friends";

/**
 * Followers, following or friends (mutual follows) of `userId`, newest first, paged by offset.
 * People in a block with the viewer are left out.
 */
export async function listPeople(options: {
  viewerId: string | null;
  userId: string;
  list: PeopleList;
  page?: number;
}): Promise<{ people: PersonSummary[]; hasMore: boolean }> {
  const { viewerId, userId, list } = options;
  const page = Math.max(1, Math.floor(options.page ?? 1));
  const other = list === "followers" ? follows.followerId : follows.followeeId;
  const mine = list === "followers" ? follows.followeeId : follows.followerId;
  const rows = await getDb()
    .select(personFields(viewerId))
    .from(follows)
    .innerJoin(profiles, eq(profiles.userId, other))
    .where(
      and(
        eq(mine, userId),
        list === "friends"
          ? sql`exists (select 1 from ${follows} back where back.follower_id = ${follows.followeeId} and back.followee_id = ${userId})`
          : undefined,
        viewerId ? sql`not ${blockedBetween(profiles.userId, viewerId)}` : undefined,
      ),
    )
    .orderBy(desc(follows.createdAt), desc(profiles.userId))
    .limit(PEOPLE_PAGE_SIZE + 1)
    .offset((page - 1) * PEOPLE_PAGE_SIZE);
  return {
    people: rows.slice(0, PEOPLE_PAGE_SIZE).map(toPerson),
    hasMore: rows.length > PEOPLE_PAGE_SIZE,
  };
}

export interface Suggestion extends PersonSummary {
  /** Why we suggest them, e.g. "Also posts about Radiohead". */
  reason: string;
}

/**
 * People to follow: those who post publicly about the same artists as the viewer (most shared
 * artists first); when that gives too few, the most active public posters of the last 90 days.
 * Never oneself, people already followed, anyone in a block with the viewer, or anyone who
 * chose not to appear in search and suggestions.
 */
export async function suggestPeople(options: {
  viewerId: string;
  limit?: number;
}): Promise<Suggestion[]> {
  const { viewerId } = options;
  const limit = Math.min(options.limit ?? 5, 20);
  const db = getDb();
  const eligible = sql`${posts.authorId} <> ${viewerId}
    and ${posts.audience} = 'everyone'
    and exists (select 1 from ${profiles} sp where sp.user_id = ${posts.authorId} and sp.is_discoverable)
    and not exists (select 1 from ${follows} where ${follows.followerId} = ${viewerId} and ${follows.followeeId} = ${posts.authorId})
    and not exists (select 1 from ${followRequests} where ${followRequests.requesterId} = ${viewerId} and ${followRequests.targetId} = ${posts.authorId})
    and not exists (select 1 from ${blocks} where ${blocks.blockerId} = ${viewerId} and ${blocks.blockedId} = ${posts.authorId})
    and not exists (select 1 from ${blocks} where ${blocks.blockerId} = ${posts.authorId} and ${blocks.blockedId} = ${viewerId})`;
  const shared = await db
    .select({
      authorId: posts.authorId,
      shared: sql<number>`count(distinct lower(${posts.artist}))::int`,
      example: sql<string>`min(${posts.artist})`,
    })
    .from(posts)
    .where(
      and(
        eligible,
        sql`${posts.kind} <> 'playlist'`,
        sql`lower(${posts.artist}) in (select distinct lower(mine.artist) from ${posts} mine
          where mine.author_id = ${viewerId} and mine.artist is not null and mine.kind <> 'playlist')`,
      ),
    )
    .groupBy(posts.authorId)
    .orderBy(sql`count(distinct lower(${posts.artist})) desc`, sql`count(*) desc`, posts.authorId)
    .limit(limit);
  const reasons = new Map<string, string>(
    shared.map((r) => [
      r.authorId,
      r.shared > 1
        ? `Also posts about ${r.example} and ${r.shared - 1} more of your artists`
        : `Also posts about ${r.example}`,
    ]),
  );
  if (reasons.size < limit) {
    const active = await db
      .select({ authorId: posts.authorId })
      .from(posts)
      .where(and(eligible, sql`${posts.createdAt} > now() - interval '90 days'`))
      .groupBy(posts.authorId)
      .orderBy(sql`count(*) desc`, posts.authorId)
      .limit(limit * 2);
    for (const r of active) {
      if (reasons.size >= limit) break;
      if (!reasons.has(r.authorId)) reasons.set(r.authorId, "Shares a lot of music here");
    }
  }
  if (reasons.size === 0) return [];
  const ids = [...reasons.keys()];
  const people = await db
    .select(personFields(viewerId))
    .from(profiles)
    .where(inArray(profiles.userId, ids));
  const byId = new Map(people.map((p) => [p.id, toPerson(p)]));
  return ids.flatMap((id) => {
    const person = byId.get(id);
    return person ? [{ ...person, reason: reasons.get(id) ?? "" }] : [];
  });
}
