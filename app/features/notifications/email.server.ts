import { eq, sql } from "drizzle-orm";
import { type DbOrTx, rowsOf } from "~/db/client.server";
import { comments, listenImports, posts, profiles, user } from "~/db/schema";
import { renderEmail } from "~/features/mail";
import { enqueueMail, unsubscribeHeaders, unsubscribeUrl } from "~/features/mail/index.server";
import { getEnv } from "~/lib/env.server";
import { describeNotification, notificationHref } from "./describe";
import { NOTIFICATION_KIND_LABELS, type NotificationKind } from "./kinds";

interface Facts {
  email: string | null;
  email_verified: boolean;
  is_anonymous: boolean | null;
  banned: boolean | null;
  actor_username: string | null;
  actor_display_name: string | null;
  post_title: string | null;
  comment: string | null;
}

/**
 * Queues the e-mail for one notification event, in the transaction that caused it: it exists
 * only if the change commits, and the outbox sends it (retries included). One mail per person,
 * event and thing: liking, unliking and liking again does not mail twice. Guests, unconfirmed
 * addresses and banned accounts get none.
 */
export async function queueNotificationMail(
  tx: DbOrTx,
  options: {
    recipientId: string;
    actorId: string;
    kind: NotificationKind;
    postId: string | null;
    commentId: string | null;
  },
): Promise<void> {
  const { recipientId, actorId, kind, postId, commentId } = options;
  const [facts] = rowsOf<Facts>(
    await tx.execute(sql`select u.email, u.email_verified, u.is_anonymous, u.banned,
      a.username as actor_username, a.display_name as actor_display_name,
      ${postId ? sql`(select ${posts.title} from ${posts} where ${posts.id} = ${postId})` : sql`null`} as post_title,
      ${commentId ? sql`(select ${comments.content} from ${comments} where ${comments.commentId} = ${commentId})` : sql`null`} as comment
      from ${user} u
      left join ${profiles} a on ${eq(sql`a.user_id`, actorId)}
      where u.id = ${recipientId}`),
  );
  if (!facts?.email || !facts.email_verified || facts.is_anonymous || facts.banned) return;
  if (!facts.actor_username) return;
  const actor = {
    displayName: facts.actor_display_name || facts.actor_username,
    username: facts.actor_username,
  };
  const described = {
    kind,
    actors: [actor],
    actorCount: 1,
    post: postId && facts.post_title ? { id: postId, title: facts.post_title } : null,
  };
  const sentence = describeNotification(described);
  const base = getEnv().BASE_URL;
  const link = new URL(notificationHref(described), base).toString();
  const unsubscribe = unsubscribeUrl({ userId: recipientId, kind });
  const quote = facts.comment?.replace(/\s+/g, " ").trim();
  const { html, text } = renderEmail({
    title: sentence,
    paragraphs: quote ? [`“${quote.length > 300 ? `${quote.slice(0, 299)}…` : quote}”`] : [],
    action: { label: postId ? "Open the post" : `See @${actor.username}`, url: link },
    footer: `You get this because e-mails about ${NOTIFICATION_KIND_LABELS[kind].toLowerCase()} are on. Turn them off: ${unsubscribe}`,
  });
  await enqueueMail(
    {
      to: facts.email,
      subject: sentence,
      html,
      text,
      headers: unsubscribeHeaders(unsubscribe),
      idempotencyKey: `notify:${kind}:${recipientId}:${actorId}:${commentId ?? postId ?? "-"}`,
    },
    tx,
  );
}

/** The mail for a finished listening-history import, when the person wants those by e-mail. */
export async function queueListenImportMail(
  tx: DbOrTx,
  options: { userId: string; importId: string; added: number },
): Promise<void> {
  const [facts] = await tx
    .select({
      email: user.email,
      emailVerified: user.emailVerified,
      isAnonymous: user.isAnonymous,
      banned: user.banned,
      added: listenImports.added,
    })
    .from(user)
    .innerJoin(listenImports, eq(listenImports.id, options.importId))
    .where(eq(user.id, options.userId));
  if (!facts?.email || !facts.emailVerified || facts.isAnonymous || facts.banned) return;
  const kind: NotificationKind = "listen_import";
  const described = {
    kind,
    actors: [],
    actorCount: 0,
    post: null,
    importedPlays: facts.added,
  };
  const sentence = describeNotification(described);
  const link = new URL(notificationHref(described), getEnv().BASE_URL).toString();
  const unsubscribe = unsubscribeUrl({ userId: options.userId, kind });
  const { html, text } = renderEmail({
    title: sentence,
    paragraphs: ["Your journey on Soundtrail now includes the plays from your files."],
    action: { label: "See your imports", url: link },
    footer: `You get this because e-mails about ${NOTIFICATION_KIND_LABELS[kind].toLowerCase()} are on. Turn them off: ${unsubscribe}`,
  });
  await enqueueMail(
    {
      to: facts.email,
      subject: sentence,
      html,
      text,
      headers: unsubscribeHeaders(unsubscribe),
      idempotencyKey: `notify:${kind}:${options.userId}:${options.importId}`,
    },
    tx,
  );
}
