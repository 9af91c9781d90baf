import { and, desc, eq, sql } from "drizzle-orm";
import { shownName } from "~/core/person";
import { personColumns } from "~/core/person.server";
import { canSeePost } from "~/core/visibility.server";
import { getDb } from "~/db/client.server";
import { blocks, followRequests, follows, posts, profiles } from "~/db/schema";

export interface ProfileData {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  bio: string;
  joinedAt: string;
  /** Posts the viewer may see. */
  postCount: number;
  followerCount: number;
  followingCount: number;
  /** Mutual follows. */
  friendCount: number;
  isSelf: boolean;
  isFollowed: boolean;
  followsViewer: boolean;
  /** The viewer blocked them. */
  hasBlocked: boolean;
  /** They blocked the viewer. */
  isBlockedBy: boolean;
  /** The viewer asked to follow them; it waits for their approval. */
  isRequested: boolean;
  /** They approve new followers. */
  requiresApproval: boolean;
  favouriteArtists: string[];
  favouriteGenres: string[];
}

/**
 * A profile as the viewer sees it (counts, relationship), found by username case-insensitively.
 * One statement.
 */
export async function getProfile(options: {
  viewerId: string | null;
  username: string;
}): Promise<ProfileData | null> {
  const { viewerId } = options;
  const username = options.username.trim();
  // A local name, or a remote person's `name@host[:port]` (federation: a person row with an
  // origin, whose username names their server).
  if (
    !/^[A-Za-z0-9_.]{1,60}(?:@[A-Za-z0-9.-]{1,253}(?::\d{1,5})?(?:~[0-9a-f]{6})?)?$/.test(username)
  ) {
    return null;
  }
  const v = viewerId ?? "";
  const [row] = await getDb()
    .select({
      ...personColumns,
      bio: profiles.bio,
      createdAt: profiles.createdAt,
      postCount: sql<number>`(select count(*)::int from ${posts} where ${posts.authorId} = ${profiles.userId} and ${canSeePost(viewerId)})`,
      followerCount: sql<number>`(select count(*)::int from ${follows} where ${follows.followeeId} = ${profiles.userId})`,
      followingCount: sql<number>`(select count(*)::int from ${follows} where ${follows.followerId} = ${profiles.userId})`,
      friendCount: sql<number>`(select count(*)::int from ${follows} out_f where out_f.follower_id = ${profiles.userId}
        and exists (select 1 from ${follows} in_f where in_f.follower_id = out_f.followee_id and in_f.followee_id = ${profiles.userId}))`,
      isFollowed: sql<boolean>`exists (select 1 from ${follows} where ${follows.followerId} = ${v} and ${follows.followeeId} = ${profiles.userId})`,
      followsViewer: sql<boolean>`exists (select 1 from ${follows} where ${follows.followerId} = ${profiles.userId} and ${follows.followeeId} = ${v})`,
      hasBlocked: sql<boolean>`exists (select 1 from ${blocks} where ${blocks.blockerId} = ${v} and ${blocks.blockedId} = ${profiles.userId})`,
      isBlockedBy: sql<boolean>`exists (select 1 from ${blocks} where ${blocks.blockerId} = ${profiles.userId} and ${blocks.blockedId} = ${v})`,
      isRequested: sql<boolean>`exists (select 1 from ${followRequests} where ${followRequests.requesterId} = ${v} and ${followRequests.targetId} = ${profiles.userId})`,
      requiresApproval: profiles.requiresFollowApproval,
      favouriteArtists: profiles.favouriteArtists,
      favouriteGenres: profiles.favouriteGenres,
    })
    .from(profiles)
    .where(sql`lower(${profiles.username}) = ${username.toLowerCase()}`)
    .limit(1);
  if (!row) return null;
  return {
    id: row.id,
    username: row.username,
    displayName: shownName(row),
    avatarUrl: row.avatarUrl,
    bio: row.bio,
    joinedAt: row.createdAt.toISOString(),
    postCount: Number(row.postCount),
    followerCount: Number(row.followerCount),
    followingCount: Number(row.followingCount),
    friendCount: Number(row.friendCount),
    isSelf: row.id === viewerId,
    isFollowed: Boolean(row.isFollowed),
    followsViewer: Boolean(row.followsViewer),
    hasBlocked: Boolean(row.hasBlocked),
    isBlockedBy: Boolean(row.isBlockedBy),
    isRequested: Boolean(row.isRequested),
    requiresApproval: row.requiresApproval,
    favouriteArtists: row.favouriteArtists,
    favouriteGenres: row.favouriteGenres,
  };
}

export interface TopArtist {
  name: string;
  postCount: number;
}

/** The artists someone posts about most, counted over the posts the viewer may see. */
export async function listTopArtists(options: {
  viewerId: string | null;
  userId: string;
  limit?: number;
}): Promise<TopArtist[]> {
  const rows = await getDb()
    .select({ name: sql<string>`min(${posts.artist})`, postCount: sql<number>`count(*)::int` })
    .from(posts)
    .where(
      and(
        eq(posts.authorId, options.userId),
        sql`${posts.artist} is not null`,
        // A playlist's "artist" is its curator, not an artist they listen to.
        sql`${posts.kind} <> 'playlist'`,
        canSeePost(options.viewerId),
      ),
    )
    .groupBy(sql`lower(${posts.artist})`)
    .orderBy(desc(sql`count(*)`), sql`lower(${posts.artist})`)
    .limit(Math.min(options.limit ?? 5, 20));
  return rows.map((r) => ({ name: r.name, postCount: Number(r.postCount) }));
}
