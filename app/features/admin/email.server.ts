import { createHash } from "node:crypto";
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { AppError } from "~/core/errors";
import { logger } from "~/core/logger.server";
import { type Database, type DbOrTx, getDb } from "~/db/client.server";
import {
  emailCampaignRecipients,
  emailCampaigns,
  emailPreferences,
  mailOutbox,
  profiles,
  user,
} from "~/db/schema";
import {
  deliverMailNow,
  enqueueMails,
  unsubscribeHeaders,
  unsubscribeUrl,
} from "~/features/mail/index.server";
import { getEnv } from "~/lib/env.server";
import { assertAdmin } from "./access.server";
import { recordAudit } from "./audit.server";
import { senderAddress, withUnsubscribeFooter } from "./email-content";
import { type Paged, pageInfo, pageOffset } from "./paging";
import { applyPlaceholders, applyTextPlaceholders } from "./placeholders";
import type {
  BatchEmailResult,
  CampaignInput,
  SendEmailBatchInput,
  SendEmailBatchResponse,
} from "./schemas";

/** Someone a bulk mail can go to (spec §7: the full user list). */
export interface BulkRecipient {
  userId: string;
  email: string;
  displayName: string | null;
  username: string | null;
}

export interface AudienceMember extends BulkRecipient {
  /** Why this person will not get bulk mail, if they will not. */
  excludedBecause: "unsubscribed" | "unconfirmed" | "banned" | null;
}

/** Joins a person's "announcements" mail preference (bulk mail) to `userId`. */
function announcementsPreferenceOf(userId: AnyPgColumn) {
  return and(eq(emailPreferences.userId, userId), eq(emailPreferences.kind, "announcements"));
}

const recipientEmail = sql<string>`coalesce(${profiles.email}, ${user.email})`;
const unsubscribed = sql<boolean>`coalesce(${emailPreferences.isSubscribed}, true) = false`;
const exclusion = sql<AudienceMember["excludedBecause"]>`case
  when coalesce(${user.banned}, false) then 'banned'
  when not ${user.emailVerified} then 'unconfirmed'
  when ${unsubscribed} then 'unsubscribed'
  else null end`;

/** The full user list for the bulk e-mail tool, newest first, with who is left out and why. */
export async function listAllUsers(options: { actorId: string }): Promise<AudienceMember[]> {
  await assertAdmin(options.actorId);
  return getDb()
    .select({
      userId: profiles.userId,
      email: recipientEmail,
      displayName: profiles.displayName,
      username: profiles.username,
      excludedBecause: exclusion,
    })
    .from(profiles)
    .innerJoin(user, eq(user.id, profiles.userId))
    .leftJoin(emailPreferences, announcementsPreferenceOf(profiles.userId))
    .orderBy(desc(profiles.createdAt), desc(profiles.userId));
}

/** The sender bulk mail must use: the configured MAIL_FROM. */
export function bulkSender(): string {
  return getEnv().MAIL_FROM;
}

export interface CampaignForSending {
  id: string;
  subject: string;
  html: string;
  from: string;
  /** Recipients not sent yet (all of them for a new campaign), newest account first. */
  recipients: BulkRecipient[];
}

/**
 * Stores a bulk mail and its recipients (everyone, or the chosen people) in one transaction,
 * leaving out people who unsubscribed from announcements, have not confirmed their address or
 * are banned. Nothing is sent yet: the browser sends it in batches to /api/send-email-batch.
 */
export async function createCampaign(
  options: { actorId: string } & CampaignInput,
): Promise<CampaignForSending> {
  const actor = await assertAdmin(options.actorId);
  const chosen =
    options.audience === "selected"
      ? sql`and ${profiles.userId} in (select jsonb_array_elements_text(${JSON.stringify(options.userIds)}::jsonb))`
      : sql``;
  return getDb().transaction(async (tx) => {
    const [campaign] = await tx
      .insert(emailCampaigns)
      .values({ subject: options.subject, html: options.html, createdBy: actor.id })
      .returning({ id: emailCampaigns.id });
    if (!campaign) throw new Error("campaign insert returned nothing");
    await tx.execute(sql`
      insert into ${emailCampaignRecipients} (campaign_id, user_id, email, mail_key)
      select ${campaign.id}, ${profiles.userId}, ${recipientEmail},
             ${`campaign:${campaign.id}:`} || ${profiles.userId}
      from ${profiles}
      join ${user} on ${user.id} = ${profiles.userId}
      left join ${emailPreferences} on ${emailPreferences.userId} = ${profiles.userId}
        and ${emailPreferences.kind} = 'announcements'
      where (${exclusion}) is null ${chosen}`);
    const recipients = await unsentRecipients(tx, campaign.id);
    if (recipients.length === 0) {
      throw new AppError(
        "invalid",
        "Nobody to send to: everyone you chose has unsubscribed, is banned or has not confirmed their e-mail.",
      );
    }
    await recordAudit(tx, actor, {
      action: "campaign.create",
      targetType: "campaign",
      targetId: campaign.id,
      details: { subject: options.subject, recipients: recipients.length },
    });
    return {
      id: campaign.id,
      subject: options.subject,
      html: options.html,
      from: bulkSender(),
      recipients,
    };
  });
}

async function unsentRecipients(db: DbOrTx, campaignId: string): Promise<BulkRecipient[]> {
  return db
    .select({
      userId: emailCampaignRecipients.userId,
      email: emailCampaignRecipients.email,
      displayName: profiles.displayName,
      username: profiles.username,
    })
    .from(emailCampaignRecipients)
    .leftJoin(profiles, eq(profiles.userId, emailCampaignRecipients.userId))
    .leftJoin(mailOutbox, eq(mailOutbox.id, emailCampaignRecipients.mailId))
    .where(
      and(
        eq(emailCampaignRecipients.campaignId, campaignId),
        // Not linked yet: the recipient's own status; linked: the outbox's. Never one that was
        // sent, nor one the mail server may already have (uncertain).
        sql`case when ${emailCampaignRecipients.mailId} is null
          then ${emailCampaignRecipients.status} in ('pending', 'failed')
          else ${mailOutbox.status} not in ('sent', 'uncertain') end`,
      ),
    )
    .orderBy(desc(profiles.createdAt), desc(emailCampaignRecipients.userId));
}

/** A stored campaign with the recipients still to send (to resume or retry it). */
export async function getCampaignForSending(options: {
  actorId: string;
  campaignId: string;
}): Promise<CampaignForSending> {
  await assertAdmin(options.actorId);
  const db = getDb();
  const [campaign] = await db
    .select({ id: emailCampaigns.id, subject: emailCampaigns.subject, html: emailCampaigns.html })
    .from(emailCampaigns)
    .where(eq(emailCampaigns.id, options.campaignId));
  if (!campaign) throw new AppError("not_found", "That bulk e-mail does not exist.");
  return {
    ...campaign,
    from: bulkSender(),
    recipients: await unsentRecipients(db, campaign.id),
  };
}

export interface CampaignSummary {
  id: string;
  subject: string;
  createdAt: Date;
  createdBy: string | null;
  total: number;
  sent: number;
  failed: number;
  pending: number;
  skipped: number;
  /**
   * Interrupted after the end of the message (a crash, a lost connection): the mail server may
   * have them, so they are never sent again on their own.
   */
  uncertain: number;
}

/** Bulk mails newest first, 12 a page, with how many went out. */
export async function listCampaigns(options: {
  actorId: string;
  page: number;
}): Promise<Paged<CampaignSummary>> {
  await assertAdmin(options.actorId);
  const db = getDb();
  const [totals] = await db.select({ total: count() }).from(emailCampaigns);
  const info = pageInfo(totals?.total ?? 0, options.page);
  // Once a recipient's mail is in the outbox (linked in the transaction that queued it), the
  // outbox row is the truth: a crash between sending and recording the batch changes nothing.
  const effective = sql`case
    when ${emailCampaignRecipients.mailId} is null then ${emailCampaignRecipients.status}
    when ${mailOutbox.status} = 'sent' then 'sent'
    when ${mailOutbox.status} = 'uncertain' then 'uncertain'
    when ${mailOutbox.status} in ('failed', 'dead') then 'failed'
    else 'pending' end`;
  const rows = await db
    .select({
      id: emailCampaigns.id,
      subject: emailCampaigns.subject,
      createdAt: emailCampaigns.createdAt,
      createdBy: profiles.username,
      total: sql<number>`count(${emailCampaignRecipients.userId})::int`,
      sent: sql<number>`(count(*) filter (where ${effective} = 'sent'))::int`,
      failed: sql<number>`(count(*) filter (where ${effective} = 'failed'))::int`,
      pending: sql<number>`(count(*) filter (where ${effective} = 'pending'))::int`,
      skipped: sql<number>`(count(*) filter (where ${effective} = 'skipped'))::int`,
      uncertain: sql<number>`(count(*) filter (where ${effective} = 'uncertain'))::int`,
    })
    .from(emailCampaigns)
    .leftJoin(profiles, eq(profiles.userId, emailCampaigns.createdBy))
    .leftJoin(emailCampaignRecipients, eq(emailCampaignRecipients.campaignId, emailCampaigns.id))
    .leftJoin(mailOutbox, eq(mailOutbox.id, emailCampaignRecipients.mailId))
    .groupBy(emailCampaigns.id, profiles.username)
    .orderBy(desc(emailCampaigns.createdAt), desc(emailCampaigns.id))
    .limit(info.pageSize)
    .offset(pageOffset(info));
  return { ...info, items: rows };
}

interface RecipientRow {
  userId: string;
  email: string;
  mailKey: string;
  username: string | null;
  displayName: string | null;
  /** Why this person gets no bulk mail now, if they do not. */
  excludedBecause: AudienceMember["excludedBecause"];
}

/** How long a retried request without `Idempotency-Key` is recognised by its content. */
export const BATCH_DEDUPE_WINDOW_HOURS = 24;

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/**
 * Idempotency keys for mails sent without a campaign. With an `Idempotency-Key` header the key
 * is that header (per admin) and the address; without one it is the mail's content (address,
 * subject, body), recognised for {@link BATCH_DEDUPE_WINDOW_HOURS} hours: a key made in the
 * previous window is reused when that mail is younger than the window.
 */
async function adHocMailKeys(
  db: Database,
  actorId: string,
  requestKey: string | null,
  mails: readonly { to: string; subject: string; html: string }[],
): Promise<string[]> {
  if (requestKey) {
    return mails.map(
      (mail) => `batch:key:${sha256(`${actorId}\n${requestKey}\n${mail.to.toLowerCase()}`)}`,
    );
  }
  const windowMs = BATCH_DEDUPE_WINDOW_HOURS * 3_600_000;
  const bucket = Math.floor(Date.now() / windowMs);
  const hashes = mails.map((mail) =>
    sha256(`${mail.to.toLowerCase()}\n${mail.subject}\n${mail.html}`),
  );
  const previous = hashes.map((hash) => `batch:auto:${hash}:${bucket - 1}`);
  const recent = await db
    .select({ key: mailOutbox.idempotencyKey })
    .from(mailOutbox)
    .where(
      and(
        inArray(mailOutbox.idempotencyKey, previous),
        sql`${mailOutbox.createdAt} > now() - make_interval(hours => ${BATCH_DEDUPE_WINDOW_HOURS})`,
      ),
    );
  const reuse = new Set(recent.map((row) => row.key));
  return hashes.map((hash, index) => {
    const earlier = previous[index] as string;
    return reuse.has(earlier) ? earlier : `batch:auto:${hash}:${bucket}`;
  });
}

/** The campaign's recipients among `addresses`, keyed by lower-case address. */
async function campaignRecipients(
  db: Database,
  campaignId: string,
  addresses: string[],
): Promise<Map<string, RecipientRow>> {
  const [campaign] = await db
    .select({ id: emailCampaigns.id })
    .from(emailCampaigns)
    .where(eq(emailCampaigns.id, campaignId));
  if (!campaign) throw new AppError("not_found", "That bulk e-mail does not exist.");
  const rows = await db
    .select({
      userId: emailCampaignRecipients.userId,
      email: emailCampaignRecipients.email,
      mailKey: emailCampaignRecipients.mailKey,
      username: profiles.username,
      displayName: profiles.displayName,
      // Chosen when the campaign was made; only an unsubscribe since then leaves someone out.
      excludedBecause: sql<
        AudienceMember["excludedBecause"]
      >`case when ${unsubscribed} then 'unsubscribed' else null end`,
    })
    .from(emailCampaignRecipients)
    .leftJoin(profiles, eq(profiles.userId, emailCampaignRecipients.userId))
    .leftJoin(emailPreferences, announcementsPreferenceOf(emailCampaignRecipients.userId))
    .where(
      and(
        eq(emailCampaignRecipients.campaignId, campaign.id),
        sql`lower(${emailCampaignRecipients.email}) in (select jsonb_array_elements_text(${JSON.stringify(addresses)}::jsonb))`,
      ),
    );
  return new Map(rows.map((row) => [row.email.toLowerCase(), row]));
}

/** The accounts behind `addresses` (bulk mail goes to people who have one), by address. */
async function accountRecipients(
  db: Database,
  addresses: string[],
): Promise<Map<string, Omit<RecipientRow, "mailKey">>> {
  const rows = await db
    .select({
      userId: profiles.userId,
      email: recipientEmail,
      username: profiles.username,
      displayName: profiles.displayName,
      excludedBecause: exclusion,
    })
    .from(profiles)
    .innerJoin(user, eq(user.id, profiles.userId))
    .leftJoin(emailPreferences, announcementsPreferenceOf(profiles.userId))
    .where(
      sql`lower(${recipientEmail}) in (select jsonb_array_elements_text(${JSON.stringify(addresses)}::jsonb))`,
    );
  return new Map(rows.map((row) => [row.email.toLowerCase(), row]));
}

const EXCLUSION_MESSAGES: Record<NonNullable<AudienceMember["excludedBecause"]>, string> = {
  unsubscribed: "Unsubscribed from announcements.",
  unconfirmed: "Has not confirmed this e-mail address.",
  banned: "This account is banned.",
};

/**
 * `POST /api/send-email-batch` (spec §7): records every accepted mail in the outbox before
 * sending any, then sends them at once and answers per mail. Mails go to people with an
 * account; `{{username}}` and `{{display_name}}` are replaced per recipient in the subject and
 * body (a no-op when the admin screen already did). Idempotency: with `campaignId`, the key is
 * `campaign:<id>:<userId>`; without, see {@link adHocMailKeys}. A retry of a mail that already
 * went out answers "sent" without sending it again; a failed mail stays in the outbox for the
 * worker and for a retry.
 */
export async function sendEmailBatch(
  options: { actorId: string; idempotencyKey?: string | null } & SendEmailBatchInput,
): Promise<SendEmailBatchResponse> {
  const actor = await assertAdmin(options.actorId);
  const allowed = senderAddress(bulkSender());
  const badSender = options.emails.findIndex((mail) => senderAddress(mail.from) !== allowed);
  if (badSender >= 0) {
    throw new AppError(
      "invalid",
      `emails.${badSender}.from: Bulk mail must be sent from ${allowed}.`,
    );
  }
  const db = getDb();
  const addresses = options.emails.map((mail) => (mail.to[0] ?? "").toLowerCase());
  const campaignId = options.campaignId ?? null;
  let byAddress: Map<string, RecipientRow>;
  if (campaignId) {
    byAddress = await campaignRecipients(db, campaignId, addresses);
  } else {
    const accounts = await accountRecipients(db, addresses);
    const keys = await adHocMailKeys(
      db,
      actor.id,
      options.idempotencyKey ?? null,
      options.emails.map((mail) => ({
        to: mail.to[0] ?? "",
        subject: mail.subject,
        html: mail.html,
      })),
    );
    byAddress = new Map();
    addresses.forEach((address, index) => {
      const account = accounts.get(address);
      if (account && !byAddress.has(address)) {
        byAddress.set(address, { ...account, mailKey: keys[index] as string });
      }
    });
  }

  const results: BatchEmailResult[] = new Array(options.emails.length);
  const toSend: { index: number; row: RecipientRow }[] = [];
  const skipped: RecipientRow[] = [];
  const seen = new Set<string>();
  options.emails.forEach((mail, index) => {
    const to = mail.to[0] ?? "";
    const address = to.toLowerCase();
    const row = byAddress.get(address);
    if (seen.has(address)) {
      results[index] = { to, ok: false, status: "rejected", error: "Listed twice in this batch." };
    } else if (!row) {
      results[index] = {
        to,
        ok: false,
        status: "rejected",
        error: campaignId
          ? "Not a recipient of this bulk e-mail."
          : "No account on this Soundtrail has this address.",
      };
    } else if (row.excludedBecause) {
      results[index] = {
        to,
        ok: false,
        status: "skipped",
        error: EXCLUSION_MESSAGES[row.excludedBecause],
      };
      skipped.push(row);
    } else {
      toSend.push({ index, row });
    }
    seen.add(address);
  });

  // 1. Durable first: every accepted mail is in the outbox before any is sent, and — in the
  // same transaction — each campaign recipient points at its outbox row, so the campaign's
  // status is read from the outbox whatever happens next (a crash included).
  const queued = await db.transaction(async (tx) => {
    const rows = await enqueueMails(
      toSend.map(({ index, row }) => {
        const mail = options.emails[index];
        if (!mail) throw new Error("batch index out of range");
        const link = unsubscribeUrl({ userId: row.userId, kind: "announcements" });
        return {
          idempotencyKey: row.mailKey,
          to: row.email,
          from: mail.from,
          subject: applyTextPlaceholders(mail.subject, row),
          ...withUnsubscribeFooter(applyPlaceholders(mail.html, row), link),
          headers: unsubscribeHeaders(link),
        };
      }),
      // This request sends them next; the runners step in for what it has not reached in 15 s
      // (a long batch goes out in parallel; a request that died, soon after — on PostgreSQL
      // nobody can tell a dead request from a slow one). A mail is claimed before it is sent,
      // by whichever comes first, so none goes twice.
      { holdSeconds: 15 },
      tx,
    );
    if (campaignId && rows.size > 0) {
      const links = [...rows].map(([key, mail]) => ({ key, id: mail.id }));
      await tx.execute(sql`
        update ${emailCampaignRecipients} as r
        set mail_id = v.id::uuid, updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(links)}::jsonb) as v(key text, id text)
        where r.campaign_id = ${campaignId} and r.mail_key = v.key
          and r.mail_id is distinct from v.id::uuid`);
    }
    return rows;
  });
  // 2. Send now; the outcome of each is what the admin sees.
  const outcomes = await deliverMailNow({
    ids: [...queued.values()].map((mail) => mail.id),
  });
  const errors = await lastErrors(
    [...outcomes].filter(
      ([, outcome]) => outcome === "failed" || outcome === "dead" || outcome === "uncertain",
    ),
  );
  const updates: { userId: string; mailId: string; status: string; error: string | null }[] = [];
  for (const { index, row } of toSend) {
    const to = options.emails[index]?.to[0] ?? row.email;
    const mail = queued.get(row.mailKey);
    if (!mail) {
      results[index] = { to, ok: false, status: "failed", error: "Could not record the mail." };
      continue;
    }
    const outcome = outcomes.get(mail.id);
    if (outcome === "sent" || outcome === "sending") {
      results[index] = {
        to,
        ok: true,
        id: mail.id,
        status: outcome === "sent" ? "sent" : "queued",
      };
      updates.push({
        userId: row.userId,
        mailId: mail.id,
        status: outcome === "sent" ? "sent" : "pending",
        error: null,
      });
    } else {
      const error = errors.get(mail.id) ?? "The mail server did not accept the mail.";
      results[index] = { to, ok: false, id: mail.id, status: "failed", error };
      updates.push({ userId: row.userId, mailId: mail.id, status: "failed", error });
    }
  }
  for (const row of skipped) {
    updates.push({ userId: row.userId, mailId: "", status: "skipped", error: "unsubscribed" });
  }

  const sent = results.filter((result) => result.ok && result.status === "sent").length;
  const failed = results.filter((result) => !result.ok && result.status === "failed").length;
  // 3. Record the outcome per recipient (of a campaign) and the batch in the audit log.
  await db.transaction(async (tx) => {
    if (campaignId && updates.length > 0) {
      await tx.execute(sql`
        update ${emailCampaignRecipients} as r
        set status = v.status, error = v.error, mail_id = nullif(v.mail_id, '')::uuid,
            updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(updates.map((u) => ({ user_id: u.userId, mail_id: u.mailId, status: u.status, error: u.error })))}::jsonb)
          as v(user_id text, mail_id text, status text, error text)
        where r.campaign_id = ${campaignId} and r.user_id = v.user_id
          and r.status <> 'sent'`);
    }
    await recordAudit(tx, actor, {
      action: campaignId ? "campaign.send_batch" : "email.send_batch",
      targetType: campaignId ? "campaign" : "email",
      targetId: campaignId,
      details: { mails: options.emails.length, sent, failed },
    });
  });
  if (failed > 0) {
    logger.warn({ campaignId, failed, sent }, "bulk e-mail batch had failures");
  }
  return { results, sent, failed };
}

async function lastErrors(failed: [string, unknown][]): Promise<Map<string, string>> {
  if (failed.length === 0) return new Map();
  const rows = await getDb()
    .select({ id: mailOutbox.id, error: mailOutbox.lastError })
    .from(mailOutbox)
    .where(
      sql`${mailOutbox.id} in (select (jsonb_array_elements_text(${JSON.stringify(failed.map(([id]) => id))}::jsonb))::uuid)`,
    );
  return new Map(rows.map((row) => [row.id, row.error ?? "Delivery failed."]));
}
