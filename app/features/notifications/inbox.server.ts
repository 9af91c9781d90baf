import { and, eq, isNull, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { publishLive } from "~/core/live-bus.server";
import { withShownName } from "~/core/person";
import { blockedBetween, canSeePost } from "~/core/visibility.server";
import { getDb, rowsOf } from "~/db/client.server";
import {
  comments,
  linkUnfurls,
  listenImports,
  notificationActors,
  notifications,
  posts,
  profiles,
} from "~/db/schema";
import { postArtUrl } from "~/features/artwork";
import { isNotificationKind } from "./kinds";
import type { NotificationActor, NotificationPage, NotificationView } from "./types";

/* Reading notifications: the inbox, the badge, marking read. Creating them is notify.server.ts. */

export type { NotificationActor, NotificationPage, NotificationView };

/** Notifications per page on `/notifications`. */
export const NOTIFICATIONS_PAGE_SIZE = 20;
/** The badge stops counting here ("99+"). */
export const UNREAD_CAP = 99;

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
    actors: (actors as NotificationActor[]).map(withShownName),
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
