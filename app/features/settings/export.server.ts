import { asc, eq } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import {
  blocks,
  comments,
  follows,
  listens,
  notifications,
  postLikes,
  posts,
  profiles,
  user,
} from "~/db/schema";
import { exportConversations } from "~/features/assistant/index.server";
import { getNotificationPreferences } from "~/features/notifications/index.server";
import { getEnv } from "~/lib/env.server";

/**
 * Everything a person created or chose here, as one JSON-ready object: their profile and
 * account details, their posts (with image links), their comments (their own words only),
 * the posts they liked (ids only: another person's post is not theirs to take), whom they
 * follow, who follows them, whom they blocked, their notifications, their preferences,
 * their conversations with the assistant and their listening history.
 */
export async function exportPersonData(options: { userId: string }) {
  const { userId } = options;
  const db = getDb();
  const base = getEnv().BASE_URL;
  const [account] = await db
    .select({
      username: profiles.username,
      displayName: profiles.displayName,
      bio: profiles.bio,
      avatarUrl: profiles.avatarUrl,
      email: user.email,
      emailVerified: user.emailVerified,
      phoneNumber: user.phoneNumber,
      createdAt: profiles.createdAt,
    })
    .from(profiles)
    .innerJoin(user, eq(user.id, profiles.userId))
    .where(eq(profiles.userId, userId));
  if (!account) throw new AppError("not_found", "Your account could not be found.");
  const [ownPosts, ownComments, likes, following, followers, blocked, ownNotifications] =
    await Promise.all([
      db
        .select({
          id: posts.id,
          kind: posts.kind,
          title: posts.title,
          artist: posts.artist,
          album: posts.album,
          linkUrl: posts.linkUrl,
          note: posts.note,
          mood: posts.mood,
          audience: posts.audience,
          mediaId: posts.mediaId,
          createdAt: posts.createdAt,
          editedAt: posts.editedAt,
        })
        .from(posts)
        .where(eq(posts.authorId, userId))
        .orderBy(asc(posts.createdAt)),
      db
        .select({
          id: comments.commentId,
          postId: comments.postId,
          replyToId: comments.replyToId,
          content: comments.content,
          createdAt: comments.createdAt,
          editedAt: comments.editedAt,
        })
        .from(comments)
        .where(eq(comments.userId, userId))
        .orderBy(asc(comments.createdAt)),
      db
        .select({ postId: postLikes.postId, createdAt: postLikes.createdAt })
        .from(postLikes)
        .where(eq(postLikes.userId, userId))
        .orderBy(asc(postLikes.createdAt)),
      db
        .select({ username: profiles.username, since: follows.createdAt })
        .from(follows)
        .innerJoin(profiles, eq(profiles.userId, follows.followeeId))
        .where(eq(follows.followerId, userId))
        .orderBy(asc(follows.createdAt)),
      db
        .select({ username: profiles.username, since: follows.createdAt })
        .from(follows)
        .innerJoin(profiles, eq(profiles.userId, follows.followerId))
        .where(eq(follows.followeeId, userId))
        .orderBy(asc(follows.createdAt)),
      db
        .select({ username: profiles.username, since: blocks.createdAt })
        .from(blocks)
        .innerJoin(profiles, eq(profiles.userId, blocks.blockedId))
        .where(eq(blocks.blockerId, userId))
        .orderBy(asc(blocks.createdAt)),
      db
        .select({
          kind: notifications.kind,
          postId: notifications.postId,
          createdAt: notifications.createdAt,
          readAt: notifications.readAt,
        })
        .from(notifications)
        .where(eq(notifications.recipientId, userId))
        .orderBy(asc(notifications.createdAt)),
    ]);
  const absolute = (path: string | null) => (path ? new URL(path, base).toString() : null);
  return {
    format: "soundtrail-export/1",
    exportedAt: new Date().toISOString(),
    profile: {
      username: account.username,
      displayName: account.displayName,
      bio: account.bio,
      avatarUrl: absolute(account.avatarUrl),
      createdAt: account.createdAt.toISOString(),
    },
    account: {
      email: account.email,
      isEmailVerified: account.emailVerified,
      phoneNumber: account.phoneNumber,
    },
    posts: ownPosts.map(({ mediaId, ...post }) => ({
      ...post,
      imageUrl: absolute(mediaId ? `/media/${mediaId}` : null),
      url: absolute(`/post/${post.id}`),
    })),
    comments: ownComments,
    likes,
    following,
    followers,
    blocked,
    notifications: ownNotifications,
    notificationPreferences: await getNotificationPreferences(userId),
    assistantConversations: await exportConversations({ userId }),
    listens: await db
      .select({
        listenedAt: listens.listenedAt,
        durationMs: listens.durationMs,
        artistName: listens.artistName,
        trackName: listens.trackName,
        releaseName: listens.releaseName,
        source: listens.source,
      })
      .from(listens)
      .where(eq(listens.userId, userId))
      .orderBy(asc(listens.listenedAt), asc(listens.id)),
  };
}

export type PersonExport = Awaited<ReturnType<typeof exportPersonData>>;
