import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { and, eq, inArray, lte, notInArray, or, type SQL, sql } from "drizzle-orm";
import nodemailer from "nodemailer";
import { getDb } from "~/db/client.server";
import { type MailStatus, mailOutbox } from "~/db/schema";
import { getEnv } from "~/lib/env.server";
import { logger } from "~/lib/logger.server";

export interface OutgoingMail {
  to: string;
  from: string;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  messageId: string;
}

/** Where mail goes: an SMTP server, or .eml files when none is configured. */
export interface MailTransport {
  kind: "smtp" | "file";
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export interface CreateMailTransportOptions {
  smtpUrl?: string;
  /** Directory for .eml files when there is no SMTP server. */
  mailDir: string;
}

export function createMailTransport({
  smtpUrl,
  mailDir,
}: CreateMailTransportOptions): MailTransport {
  const toNodemailer = (mail: OutgoingMail) => ({
    to: mail.to,
    from: mail.from,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    headers: mail.headers,
    messageId: mail.messageId,
  });
  if (smtpUrl) {
    const smtp = nodemailer.createTransport(smtpUrl);
    return {
      kind: "smtp",
      send: async (mail) => {
        await smtp.sendMail(toNodemailer(mail));
      },
      close: () => smtp.close(),
    };
  }
  const stream = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: "unix",
  });
  return {
    kind: "file",
    send: async (mail) => {
      const info = await stream.sendMail(toNodemailer(mail));
      await mkdir(mailDir, { recursive: true });
      const stamp = new Date().toISOString().replaceAll(":", "-");
      const safeTo = mail.to.replace(/[^a-zA-Z0-9@._-]/g, "_");
      await writeFile(path.join(mailDir, `${stamp}-${safeTo}.eml`), info.message as Buffer);
    },
    close: () => stream.close(),
  };
}

let transport: MailTransport | undefined;

/** The process's transport (from SMTP_URL, else DATA_DIR/mail). */
export function getMailTransport(): MailTransport {
  if (!transport) {
    const env = getEnv();
    transport = createMailTransport({
      smtpUrl: env.SMTP_URL,
      mailDir: path.join(env.DATA_DIR, "mail"),
    });
  }
  return transport;
}

/** Replaces the process's transport (tests point it at their SMTP sink). */
export function setMailTransport(next: MailTransport | undefined): void {
  transport?.close();
  transport = next;
}

/** Retry schedule after failed attempts: 30 s, 2 min, 10 min, 30 min, 1 h, … then give up. */
export const RETRY_DELAYS_S = [30, 120, 600, 1800, 3600, 3600, 3600];
const LOCK_SECONDS = 120;

export interface EnqueueMailOptions {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Defaults to MAIL_FROM. */
  from?: string;
  headers?: Record<string, string>;
  /** The same key never queues a second mail; defaults to a random one. */
  idempotencyKey?: string;
}

/** The database or an open transaction (a mail queued in a transaction exists only if it commits). */
type Queryable = Pick<ReturnType<typeof getDb>, "insert" | "select">;

/** Records a mail in the outbox. Returns its id, and whether this call created it. */
export async function enqueueMail(
  options: EnqueueMailOptions,
  db: Queryable = getDb(),
): Promise<{ id: string; isNew: boolean }> {
  const key = options.idempotencyKey ?? randomUUID();
  const inserted = await db
    .insert(mailOutbox)
    .values({
      idempotencyKey: key,
      toAddress: options.to,
      fromAddress: options.from ?? getEnv().MAIL_FROM,
      subject: options.subject,
      html: options.html,
      text: options.text,
      headers: options.headers ?? {},
    })
    .onConflictDoNothing({ target: mailOutbox.idempotencyKey })
    .returning({ id: mailOutbox.id });
  if (inserted[0]) return { id: inserted[0].id, isNew: true };
  const [existing] = await db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(eq(mailOutbox.idempotencyKey, key));
  if (!existing) throw new Error("Outbox row vanished while enqueueing");
  return { id: existing.id, isNew: false };
}

/**
 * Records many mails in the outbox in one statement (plus one read). Returns, per idempotency
 * key, the mail's id, its status, and whether this call created it. Keys must be distinct.
 * `holdSeconds` keeps the worker off new mails for a while, for a caller that sends them
 * itself right away (deliverMailNow); if that caller dies, the worker sends them afterwards.
 */
export async function enqueueMails(
  mails: readonly (EnqueueMailOptions & { idempotencyKey: string })[],
  options: { holdSeconds?: number } = {},
): Promise<Map<string, { id: string; status: MailStatus; isNew: boolean }>> {
  const out = new Map<string, { id: string; status: MailStatus; isNew: boolean }>();
  if (mails.length === 0) return out;
  const db = getDb();
  const defaultFrom = getEnv().MAIL_FROM;
  const inserted = await db
    .insert(mailOutbox)
    .values(
      mails.map((mail) => ({
        idempotencyKey: mail.idempotencyKey,
        toAddress: mail.to,
        fromAddress: mail.from ?? defaultFrom,
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
        headers: mail.headers ?? {},
        ...(options.holdSeconds
          ? { nextAttemptAt: sql`now() + make_interval(secs => ${options.holdSeconds})` }
          : {}),
      })),
    )
    .onConflictDoNothing({ target: mailOutbox.idempotencyKey })
    .returning({ key: mailOutbox.idempotencyKey });
  const created = new Set(inserted.map((row) => row.key));
  const rows = await db
    .select({ id: mailOutbox.id, key: mailOutbox.idempotencyKey, status: mailOutbox.status })
    .from(mailOutbox)
    .where(
      inArray(
        mailOutbox.idempotencyKey,
        mails.map((mail) => mail.idempotencyKey),
      ),
    );
  for (const row of rows) {
    out.set(row.key, { id: row.id, status: row.status, isNew: created.has(row.key) });
  }
  return out;
}

type ClaimedRow = typeof mailOutbox.$inferSelect;

const isDue = () =>
  or(
    and(
      inArray(mailOutbox.status, ["pending", "failed"]),
      lte(mailOutbox.nextAttemptAt, sql`now()`),
    ),
    and(eq(mailOutbox.status, "sending"), lte(mailOutbox.lockedUntil, sql`now()`)),
  );

async function attempt(row: ClaimedRow, via: MailTransport): Promise<"sent" | "failed" | "dead"> {
  const db = getDb();
  try {
    await via.send({
      to: row.toAddress,
      from: row.fromAddress,
      subject: row.subject,
      html: row.html,
      text: row.text,
      headers: row.headers,
      // A stable Message-ID lets receiving servers drop a duplicate after a crash mid-send.
      messageId: `<${row.id}@soundtrail>`,
    });
    await db
      .update(mailOutbox)
      .set({ status: "sent", sentAt: sql`now()`, lockedUntil: null, lastError: null })
      .where(eq(mailOutbox.id, row.id));
    return "sent";
  } catch (error) {
    const message = (error as Error).message.slice(0, 500);
    const delay = RETRY_DELAYS_S[row.attempts - 1];
    const status = delay === undefined ? "dead" : "failed";
    await db
      .update(mailOutbox)
      .set({
        status,
        lastError: message,
        lockedUntil: null,
        nextAttemptAt: sql`now() + make_interval(secs => ${delay ?? 0})`,
      })
      .where(eq(mailOutbox.id, row.id));
    logger.warn(
      { mailId: row.id, attempts: row.attempts, err: message, status },
      "mail delivery failed",
    );
    return status;
  }
}

/**
 * Claims due mails (this one, or up to `limit`) so no other instance sends them at the same
 * time, then sends them. Returns the outcome per mail id.
 */
export async function deliverDueMail(
  options: { ids?: string[]; limit?: number; transport?: MailTransport } = {},
): Promise<Map<string, "sent" | "failed" | "dead">> {
  return claimAndSend(
    options.ids ? and(isDue(), inArray(mailOutbox.id, options.ids)) : isDue(),
    options.limit ?? options.ids?.length ?? 50,
    options.transport,
  );
}

/** Not sent yet and not being sent by someone else right now (whatever its retry schedule). */
const isUnsent = () =>
  or(
    inArray(mailOutbox.status, ["pending", "failed", "dead"]),
    and(eq(mailOutbox.status, "sending"), lte(mailOutbox.lockedUntil, sql`now()`)),
  );

export type ImmediateOutcome = "sent" | "failed" | "dead" | "sending";

/**
 * Sends the given outbox mails now, ignoring their retry schedule (an explicit retry), and
 * returns each one's outcome. A mail that was already sent is answered "sent" and never sent
 * again; one that another sender holds right now is answered "sending".
 */
export async function deliverMailNow(options: {
  ids: string[];
  transport?: MailTransport;
}): Promise<Map<string, ImmediateOutcome>> {
  const outcomes = new Map<string, ImmediateOutcome>();
  if (options.ids.length === 0) return outcomes;
  const attempted = await claimAndSend(
    and(isUnsent(), inArray(mailOutbox.id, options.ids)),
    options.ids.length,
    options.transport,
  );
  for (const [id, outcome] of attempted) outcomes.set(id, outcome);
  const others = options.ids.filter((id) => !outcomes.has(id));
  if (others.length > 0) {
    const rows = await getDb()
      .select({ id: mailOutbox.id, status: mailOutbox.status })
      .from(mailOutbox)
      .where(inArray(mailOutbox.id, others));
    for (const row of rows) {
      outcomes.set(row.id, row.status === "sent" ? "sent" : "sending");
    }
  }
  return outcomes;
}

/**
 * Mails claimed at once. Small, so each claimed mail is sent well before its lock (LOCK_SECONDS)
 * runs out even on a slow SMTP server; otherwise another sender could take it over mid-batch.
 */
const CLAIM_CHUNK = 10;

async function claimAndSend(
  where: SQL | undefined,
  limit: number,
  transport: MailTransport | undefined,
): Promise<Map<string, "sent" | "failed" | "dead">> {
  const db = getDb();
  const via = transport ?? getMailTransport();
  const outcomes = new Map<string, "sent" | "failed" | "dead">();
  while (outcomes.size < limit) {
    const chunk = Math.min(CLAIM_CHUNK, limit - outcomes.size);
    const attempted = [...outcomes.keys()];
    const candidates = db
      .select({ id: mailOutbox.id })
      .from(mailOutbox)
      // deliverMailNow ignores the retry schedule, so a mail that just failed in this call is
      // claimable again: never take one twice in one call.
      .where(attempted.length ? and(where, notInArray(mailOutbox.id, attempted)) : where)
      .orderBy(mailOutbox.nextAttemptAt)
      .limit(chunk)
      .for("update", { skipLocked: true });
    const claimed = await db
      .update(mailOutbox)
      .set({
        status: "sending",
        attempts: sql`${mailOutbox.attempts} + 1`,
        lockedUntil: sql`now() + make_interval(secs => ${LOCK_SECONDS})`,
      })
      .where(inArray(mailOutbox.id, candidates))
      .returning();
    for (const row of claimed) outcomes.set(row.id, await attempt(row, via));
    if (claimed.length < chunk) break;
  }
  return outcomes;
}

/**
 * The one way the app sends e-mail: record it, then try to send it right away. A failure is
 * recorded and retried by the outbox worker; it never throws for a delivery problem.
 */
export async function sendMail(
  options: EnqueueMailOptions,
): Promise<{ id: string; status: "sent" | "failed" | "dead" | "queued" }> {
  const { id } = await enqueueMail(options);
  const outcome = (await deliverDueMail({ ids: [id] })).get(id);
  return { id, status: outcome ?? "queued" };
}

const inBackground = new Set<Promise<unknown>>();

/**
 * Records the mail in the outbox (durable) and delivers it after the caller has answered. For
 * answers that must not reveal whether an account exists: the SMTP conversation with a known
 * address used to make its answer several times slower than an unknown one's.
 */
export async function queueMail(options: EnqueueMailOptions): Promise<{ id: string }> {
  const { id } = await enqueueMail(options);
  const delivery: Promise<unknown> = deliverDueMail({ ids: [id] })
    .catch((error: unknown) => logger.warn({ err: error, id }, "background mail delivery failed"))
    .finally(() => inBackground.delete(delivery));
  inBackground.add(delivery);
  return { id };
}

/** Waits for the deliveries `queueMail` started (tests, and shutdown). */
export async function settleBackgroundMail(): Promise<void> {
  while (inBackground.size > 0) await Promise.allSettled([...inBackground]);
}

let workerTimer: NodeJS.Timeout | undefined;
let workerRunning: Promise<unknown> | undefined;

/** Retries failed and interrupted mail every `intervalMs` until stopped. */
export function startMailWorker(intervalMs = 15_000): void {
  if (workerTimer) return;
  const tick = () => {
    if (workerRunning) return;
    workerRunning = deliverDueMail()
      .catch((error: unknown) => logger.error({ err: error }, "mail worker failed"))
      .finally(() => {
        workerRunning = undefined;
      });
  };
  workerTimer = setInterval(tick, intervalMs);
  workerTimer.unref();
  tick();
}

export async function stopMailWorker(): Promise<void> {
  clearInterval(workerTimer);
  workerTimer = undefined;
  await settleBackgroundMail();
  await workerRunning;
}
