import { and, eq, inArray, sql } from "drizzle-orm";
import { publishLive } from "~/core/live-bus.server";
import { blockedBetween, canSeePost } from "~/core/visibility.server";
import { type DbOrTx, rowsOf } from "~/db/client.server";
import {
  notificationActors,
  notificationPreferences,
  notifications,
  posts,
  profiles,
} from "~/db/schema";
import { queueListenImportMail, queueNotificationMail } from "./email.server";
import { NOTIFICATION_DEFAULTS, type NotificationKind } from "./kinds";

/*
 * Creating notifications: who hears about what, as the social events of other features happen
 * (recordSocialEvent in social-events.server.ts calls these inside the change's transaction).
 * Reading them is inbox.server.ts.
 */

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
