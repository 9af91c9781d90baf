import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { blockedBetween, canSeePost } from "~/core/visibility.server";
import { type DbOrTx, getDb, rowsOf } from "~/db/client.server";
import {
  comments,
  linkUnfurls,
  listenImports,
  notificationActors,
  notificationPreferences,
  notifications,
  posts,
  profiles,
} from "~/db/schema";
import { postArtUrl } from "~/features/artwork";
import { publishLive } from "~/features/realtime/index.server";
import { queueListenImportMail, queueNotificationMail } from "./email.server";
import { isNotificationKind, NOTIFICATION_DEFAULTS, type NotificationKind } from "./kinds";
import type { NotificationActor, NotificationPage, NotificationView } from "./types";

export type { NotificationActor, NotificationPage, NotificationView };

/** Notifications per page on `/notifications`. */
export const NOTIFICATIONS_PAGE_SIZE = 20;
/** The badge stops counting here ("99+"). */
export const UNREAD_CAP = 99;

// ---------------------------------------------------------------------------------------------
// Rules: who hears about what. All of it runs inside the transaction of the change itself.

interface AddOptions {
  recipientId: string;
  actorId: string;
  kind: NotificationKind;
  groupKey: string;
  postId: string | null;
  /** The single comment this notification is about (mentions in a comment). */
  commentId?: string | null;
  /** The comment the actor wrote (comments and replies; grouped, so it lives on the actor). */
  actorCommentId?: string | null;
}

/** The advisory lock key that orders notification seq numbers by commit (any fixed bigint). */
const NOTIFICATION_SEQ_LOCK = 7_351_001;

/**
 * Adds `actorId` to the recipient's open notification for `groupKey`, or opens one. Nothing
 * happens for one's own actions, across a block (either way), for a post the recipient cannot
 * see, or when the recipient turned this kind off in the app. E-mail follows the preference.
 */
async function addNotification(tx: DbOrTx, options: AddOptions): Promise<boolean> {
  const { recipientId, actorId, kind } = options;
  if (recipientId === actorId) return false;
  const [check] = rowsOf<{ blocked: boolean; can_see: boolean; in_app: boolean; email: boolean }>(
    await tx.execute(sql`select
      ${blockedBetween(recipientId, actorId)} as blocked,
      ${
        options.postId
          ? sql`exists (select 1 from ${posts} where ${posts.id} = ${options.postId} and ${canSeePost(recipientId)})`
          : sql`true`
      } as can_see,
      coalesce((select ${notificationPreferences.inApp} from ${notificationPreferences}
        where ${notificationPreferences.userId} = ${recipientId} and ${notificationPreferences.kind} = ${kind}),
        ${NOTIFICATION_DEFAULTS[kind].inApp}) as in_app,
      coalesce((select ${notificationPreferences.email} from ${notificationPreferences}
        where ${notificationPreferences.userId} = ${recipientId} and ${notificationPreferences.kind} = ${kind}),
        ${NOTIFICATION_DEFAULTS[kind].email}) as email`),
  );
  if (!check || check.blocked || !check.can_see) return false;
  if (check.in_app) {
    // Streams and reconnects read "everything after seq N", so a seq must never become visible
    // after a higher one: taking this lock before nextval makes seq order commit order (a lower
    // seq committing late was skipped). One key for all, held until commit, so no deadlock.
    await tx.execute(sql`select pg_advisory_xact_lock(${NOTIFICATION_SEQ_LOCK})`);
    await tx.execute(sql`
      with n as (
        insert into ${notifications} (recipient_id, kind, group_key, post_id, comment_id)
        values (${recipientId}, ${kind}, ${options.groupKey}, ${options.postId}, ${options.commentId ?? null})
        on conflict (recipient_id, group_key) where read_at is null
        do update set seq = nextval('notification_seq'), updated_at = now()
        returning id
      )
      insert into ${notificationActors} (notification_id, actor_id, comment_id)
      select id, ${actorId}, ${options.actorCommentId ?? null} from n
      on conflict (notification_id, actor_id)
      do update set comment_id = excluded.comment_id, created_at = now()`);
    await publishLive(tx, { t: "n", u: recipientId });
  }
  if (check.email) {
    await queueNotificationMail(tx, {
      recipientId,
      actorId,
      kind,
      postId: options.postId,
      commentId: options.commentId ?? options.actorCommentId ?? null,
    });
  }
  return true;
}

/** Takes `actorId` out of the recipient's notifications matching `where`; empty ones go. */
async function removeActor(
  tx: DbOrTx,
  options: { recipientId: string; actorId: string; kind?: NotificationKind; postId?: string },
): Promise<void> {
  const removed = rowsOf<{ id: string }>(
    await tx.execute(sql`
      delete from ${notificationActors} na
      using ${notifications} n
      where na.notification_id = n.id
        and n.recipient_id = ${options.recipientId}
        and na.actor_id = ${options.actorId}
        ${options.kind ? sql`and n.kind = ${options.kind}` : sql``}
        ${options.postId ? sql`and n.post_id = ${options.postId}` : sql``}
      returning n.id`),
  );
  if (removed.length === 0) return;
  await deleteEmpty(
    tx,
    removed.map((r) => r.id),
  );
  await publishLive(tx, { t: "n", u: options.recipientId });
}

async function deleteEmpty(tx: DbOrTx, ids: string[]): Promise<void> {
  await tx
    .delete(notifications)
    .where(
      and(
        inArray(notifications.id, ids),
        sql`not exists (select 1 from ${notificationActors} where ${notificationActors.notificationId} = ${notifications.id})`,
      ),
    );
}

/** The user ids of these usernames (case-insensitive), at most 20. */
async function usersNamed(tx: DbOrTx, usernames: readonly string[]): Promise<string[]> {
  const names = [...new Set(usernames.map((n) => n.toLowerCase()))].slice(0, 20);
  if (names.length === 0) return [];
  const rows = await tx
    .select({ id: profiles.userId })
    .from(profiles)
    .where(inArray(sql`lower(${profiles.username})`, names));
  return rows.map((r) => r.id);
}

export async function notifyPostCreated(
  tx: DbOrTx,
  event: { postId: string; authorId: string; mentions: readonly string[]; announce: boolean },
): Promise<void> {
  for (const recipientId of await usersNamed(tx, event.mentions)) {
    await addNotification(tx, {
      recipientId,
      actorId: event.authorId,
      kind: "mention",
      groupKey: `mention:post:${event.postId}`,
      postId: event.postId,
    });
  }
  if (event.announce) await publishLive(tx, { t: "p", p: event.postId, a: event.authorId });
}

export async function notifyPostLiked(
  tx: DbOrTx,
  event: { postId: string; authorId: string; likerId: string },
): Promise<void> {
  await addNotification(tx, {
    recipientId: event.authorId,
    actorId: event.likerId,
    kind: "like",
    groupKey: `like:${event.postId}`,
    postId: event.postId,
  });
}

export async function notifyPostUnliked(
  tx: DbOrTx,
  event: { postId: string; authorId: string; likerId: string },
): Promise<void> {
  await removeActor(tx, {
    recipientId: event.authorId,
    actorId: event.likerId,
    kind: "like",
    postId: event.postId,
  });
}

/**
 * A new comment: the author of the comment it answers hears of a reply, the post's author of a
 * comment, and anyone it mentions of a mention; one notification per person, in that order.
 */
export async function notifyCommentAdded(
  tx: DbOrTx,
  event: {
    postId: string;
    commentId: string;
    authorId: string;
    commenterId: string;
    replyToAuthorId: string | null;
    replyToId: string | null;
    mentions: readonly string[];
  },
): Promise<void> {
  const told = new Set<string>([event.commenterId]);
  if (event.replyToAuthorId && event.replyToId && !told.has(event.replyToAuthorId)) {
    told.add(event.replyToAuthorId);
    await addNotification(tx, {
      recipientId: event.replyToAuthorId,
      actorId: event.commenterId,
      kind: "reply",
      groupKey: `reply:${event.replyToId}`,
      postId: event.postId,
      actorCommentId: event.commentId,
    });
  }
  if (!told.has(event.authorId)) {
    told.add(event.authorId);
    await addNotification(tx, {
      recipientId: event.authorId,
      actorId: event.commenterId,
      kind: "comment",
      groupKey: `comment:${event.postId}`,
      postId: event.postId,
      actorCommentId: event.commentId,
    });
  }
  for (const recipientId of await usersNamed(tx, event.mentions)) {
    if (told.has(recipientId)) continue;
    told.add(recipientId);
    await addNotification(tx, {
      recipientId,
      actorId: event.commenterId,
      kind: "mention",
      groupKey: `mention:comment:${event.commentId}`,
      postId: event.postId,
      commentId: event.commentId,
    });
  }
}

/**
 * A comment is gone: its own notifications went with it (foreign keys); groups it was the
 * last part of go now, and the people concerned hear that their notifications changed.
 */
export async function notifyCommentDeleted(tx: DbOrTx, event: { postId: string }): Promise<void> {
  const [post] = await tx
    .select({ authorId: posts.authorId })
    .from(posts)
    .where(eq(posts.id, event.postId));
  const emptied = rowsOf<{ recipient_id: string }>(
    await tx.execute(sql`
      delete from ${notifications} n
      where n.post_id = ${event.postId}
        and not exists (select 1 from ${notificationActors} na where na.notification_id = n.id)
      returning n.recipient_id`),
  );
  const recipients = new Set(emptied.map((r) => r.recipient_id));
  if (post) recipients.add(post.authorId);
  for (const u of recipients) await publishLive(tx, { t: "n", u });
}

export async function notifyUserFollowed(
  tx: DbOrTx,
  event: { followerId: string; followeeId: string },
): Promise<void> {
  await addNotification(tx, {
    recipientId: event.followeeId,
    actorId: event.followerId,
    kind: "follow",
    groupKey: "follow",
    postId: null,
  });
}

export async function notifyUserUnfollowed(
  tx: DbOrTx,
  event: { followerId: string; followeeId: string },
): Promise<void> {
  await removeActor(tx, {
    recipientId: event.followeeId,
    actorId: event.followerId,
    kind: "follow",
  });
}

/** Someone asks to follow a person who approves followers; that person hears of it. */
export async function notifyFollowRequested(
  tx: DbOrTx,
  event: { requesterId: string; targetId: string },
): Promise<void> {
  await addNotification(tx, {
    recipientId: event.targetId,
    actorId: event.requesterId,
    kind: "follow_request",
    groupKey: "follow_request",
    postId: null,
  });
}

/** A request was answered or withdrawn: it no longer waits in the target's notifications. */
export async function notifyFollowRequestClosed(
  tx: DbOrTx,
  event: { requesterId: string; targetId: string },
): Promise<void> {
  await removeActor(tx, {
    recipientId: event.targetId,
    actorId: event.requesterId,
    kind: "follow_request",
  });
}

/** The requester hears that they follow the person now. */
export async function notifyFollowAccepted(
  tx: DbOrTx,
  event: { requesterId: string; targetId: string },
): Promise<void> {
  await addNotification(tx, {
    recipientId: event.requesterId,
    actorId: event.targetId,
    kind: "follow_accept",
    groupKey: "follow_accept",
    postId: null,
  });
}

/** After a block neither person keeps notifications about the other. */
export async function notifyUserBlocked(
  tx: DbOrTx,
  event: { blockerId: string; blockedId: string },
): Promise<void> {
  await removeActor(tx, { recipientId: event.blockerId, actorId: event.blockedId });
  await removeActor(tx, { recipientId: event.blockedId, actorId: event.blockerId });
}

/**
 * A person's listening-history import finished: they hear of it (the person is its own "actor",
 * so it lists and counts like every other notification; the sentence names no one). The number
 * of plays is read from the import when shown. In-app and e-mail follow the preference.
 */
export async function notifyListenImportDone(
  tx: DbOrTx,
  event: { userId: string; importId: string; added: number },
): Promise<void> {
  const kind = "listen_import" satisfies NotificationKind;
  const [pref] = await tx
    .select({ inApp: notificationPreferences.inApp, email: notificationPreferences.email })
    .from(notificationPreferences)
    .where(
      and(eq(notificationPreferences.userId, event.userId), eq(notificationPreferences.kind, kind)),
    );
  const { inApp, email } = pref ?? NOTIFICATION_DEFAULTS[kind];
  if (inApp) {
    await tx.execute(sql`select pg_advisory_xact_lock(${NOTIFICATION_SEQ_LOCK})`);
    await tx.execute(sql`
      with n as (
        insert into ${notifications} (recipient_id, kind, group_key, post_id)
        values (${event.userId}, ${kind}, ${`${kind}:${event.importId}`}, null)
        on conflict (recipient_id, group_key) where read_at is null do nothing
        returning id
      )
      insert into ${notificationActors} (notification_id, actor_id)
      select id, ${event.userId} from n
      on conflict (notification_id, actor_id) do nothing`);
    await publishLive(tx, { t: "n", u: event.userId });
  }
  if (email) await queueListenImportMail(tx, event);
}

// ---------------------------------------------------------------------------------------------
// Reading.

interface Row {
  id: string;
  seq: string | number;
  kind: string;
  updated_at: Date | string;
  read_at: Date | string | null;
  post_id: string | null;
  title: string | null;
  artist: string | null;
  post_kind: string | null;
  album: string | null;
  art_sha: string | null;
  actor_count: number;
  actors: NotificationActor[] | string | null;
  comment_content: string | null;
  imported_plays: number | null;
}

function toView(row: Row): NotificationView | null {
  if (!isNotificationKind(row.kind)) return null;
  const actors = (typeof row.actors === "string" ? JSON.parse(row.actors) : row.actors) ?? [];
  const content = row.comment_content?.replace(/\s+/g, " ").trim() ?? null;
  return {
    id: row.id,
    seq: Number(row.seq),
    kind: row.kind,
    updatedAt: new Date(row.updated_at).toISOString(),
    isRead: row.read_at !== null,
    actors: (actors as NotificationActor[]).map((a) => ({
      ...a,
      displayName: a.displayName || a.username,
    })),
    actorCount: Number(row.actor_count),
    post:
      row.post_id && row.title
        ? {
            id: row.post_id,
            title: row.title,
            artist: row.artist,
            art: postArtUrl(
              {
                kind: row.post_kind ?? "track",
                title: row.title,
                artist: row.artist,
                album: row.album,
              },
              row.art_sha ? `/art/${row.art_sha}.webp` : null,
            ),
          }
        : null,
    commentExcerpt: content ? (content.length > 140 ? `${content.slice(0, 139)}…` : content) : null,
    importedPlays: row.imported_plays === null ? null : Number(row.imported_plays),
  };
}

/**
 * Notifications with their newest three people, the post and the comment, in one statement.
 * People in a block with the recipient are left out (and so are notifications left empty).
 */
async function selectNotifications(options: {
  recipientId: string;
  where: ReturnType<typeof sql>;
  order: "asc" | "desc";
  limit: number;
}): Promise<NotificationView[]> {
  const { recipientId } = options;
  // The post and its comment are read through the one visibility rule: a post hidden or
  // renamed after the notification shows nothing of itself to people who may not see it.
  const p = alias(posts, "p");
  const rows = rowsOf<Row>(
    await getDb().execute(sql`
      select n.id, n.seq, n.kind, n.updated_at, n.read_at, n.post_id, ${p.title} as title,
        ${p.artist} as artist, ${p.kind} as post_kind, ${p.album} as album,
        (select u.artwork_sha256 from ${linkUnfurls} u
          where u.url = ${p.linkUrl} and u.status = 'done') as art_sha,
        a.actor_count, a.actors, c.content as comment_content,
        (select ${listenImports.added} from ${listenImports}
          where n.kind = 'listen_import' and ${listenImports.userId} = n.recipient_id
            and ${listenImports.id}::text = substr(n.group_key, ${"listen_import:".length + 1})
        ) as imported_plays
      from ${notifications} n
      left join ${posts} p on ${p.id} = n.post_id and ${canSeePost(recipientId, p)}
      cross join lateral (
        select count(*)::int as actor_count,
          (select json_agg(x) from (
            select pr.user_id as "id", pr.username as "username",
              pr.display_name as "displayName", pr.avatar_url as "avatarUrl"
            from ${notificationActors} na2
            join ${profiles} pr on pr.user_id = na2.actor_id
            where na2.notification_id = n.id and not ${blockedBetween(sql`na2.actor_id`, recipientId)}
            order by na2.created_at desc limit 3) x) as actors,
          (select na3.comment_id from ${notificationActors} na3
            where na3.notification_id = n.id and na3.comment_id is not null
            order by na3.created_at desc limit 1) as latest_comment_id
        from ${notificationActors} na
        where na.notification_id = n.id and not ${blockedBetween(sql`na.actor_id`, recipientId)}
      ) a
      left join ${comments} c on c.comment_id = coalesce(n.comment_id, a.latest_comment_id)
        and ${p.id} is not null
      where n.recipient_id = ${recipientId} and a.actor_count > 0 and ${options.where}
      order by n.seq ${options.order === "asc" ? sql`asc` : sql`desc`}
      limit ${options.limit}`),
  );
  return rows.map(toView).filter((v): v is NotificationView => v !== null);
}

function decodeCursor(raw: string | null | undefined): number | null {
  if (!raw || !/^\d{1,18}$/.test(raw)) return null;
  return Number(raw);
}

/** `/notifications`: newest first, keyset paged on `seq`. */
export async function listNotifications(options: {
  viewerId: string;
  cursor?: string | null;
  limit?: number;
}): Promise<NotificationPage> {
  const limit = Math.min(Math.max(options.limit ?? NOTIFICATIONS_PAGE_SIZE, 1), 50);
  const before = decodeCursor(options.cursor);
  const rows = await selectNotifications({
    recipientId: options.viewerId,
    where: before === null ? sql`true` : sql`n.seq < ${before}`,
    order: "desc",
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    notifications: page,
    nextCursor: rows.length > limit && last ? String(last.seq) : null,
  };
}

/** What changed after `afterSeq`, oldest first: what a (re)connecting browser missed. */
export async function notificationsAfter(options: {
  recipientId: string;
  afterSeq: number;
  limit?: number;
}): Promise<NotificationView[]> {
  return selectNotifications({
    recipientId: options.recipientId,
    where: sql`n.seq > ${options.afterSeq}`,
    order: "asc",
    limit: Math.min(options.limit ?? 50, 200),
  });
}

/** The newest `seq` of a person's notifications (0 when none). */
export async function latestNotificationSeq(recipientId: string): Promise<number> {
  const [row] = await getDb()
    .select({ seq: sql<string>`coalesce(max(${notifications.seq}), 0)` })
    .from(notifications)
    .where(eq(notifications.recipientId, recipientId));
  return Number(row?.seq ?? 0);
}

/** SQL for the unread badge of `userId`, capped (a scalar subquery other queries can embed). */
export function unreadCountSql(userId: ReturnType<typeof sql> | string) {
  return sql<number>`(select count(*)::int from (
    select 1 from ${notifications} n
    where n.recipient_id = ${userId} and n.read_at is null
      and exists (select 1 from ${notificationActors} na where na.notification_id = n.id
        and not ${blockedBetween(sql`na.actor_id`, userId)})
    limit ${UNREAD_CAP + 1}) unread)`;
}

export async function unreadCount(userId: string): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await getDb().execute(sql`select ${unreadCountSql(userId)} as n`),
  );
  return Number(row?.n ?? 0);
}

/** Marks every notification of the viewer read; their other tabs and devices hear of it. */
export async function markAllRead(viewerId: string): Promise<void> {
  await getDb().transaction(async (tx) => {
    const updated = await tx
      .update(notifications)
      .set({ readAt: sql`now()` })
      .where(and(eq(notifications.recipientId, viewerId), isNull(notifications.readAt)))
      .returning({ id: notifications.id });
    if (updated.length > 0) await publishLive(tx, { t: "n", u: viewerId });
  });
}

/** Marks one of the viewer's notifications read (anybody else's is left alone). */
export async function markRead(options: { viewerId: string; id: string }): Promise<void> {
  await getDb().transaction(async (tx) => {
    const updated = await tx
      .update(notifications)
      .set({ readAt: sql`now()` })
      .where(
        and(
          eq(notifications.id, options.id),
          eq(notifications.recipientId, options.viewerId),
          isNull(notifications.readAt),
        ),
      )
      .returning({ id: notifications.id });
    if (updated.length > 0) await publishLive(tx, { t: "n", u: options.viewerId });
  });
}
