import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import {
  and,
  eq,
  inArray,
  isNotNull,
  isNull,
  lte,
  notInArray,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type SMTPConnection from "nodemailer/lib/smtp-connection";
import { logger } from "~/core/logger.server";
import { countMailFailure } from "~/core/metrics.server";
import { getDb } from "~/db/client.server";
import { type MailStatus, mailOutbox } from "~/db/schema";
import { logOutageOr } from "~/db/unavailable.server";
import { getEnv } from "~/lib/env.server";
import { lazyModule } from "~/lib/lazy-module.server";

/** nodemailer's parts, imported when the first mail goes out. */
const loadNodemailer = lazyModule(async () => {
  const [nodemailer, composer, shared, connection] = await Promise.all([
    import("nodemailer"),
    import("nodemailer/lib/mail-composer"),
    import("nodemailer/lib/shared"),
    import("nodemailer/lib/smtp-connection"),
  ]);
  return {
    createTransport: nodemailer.default.createTransport,
    MailComposer: composer.default,
    parseConnectionUrl: shared.parseConnectionUrl,
    SMTPConnection: connection.default,
  };
});

export interface OutgoingMail {
  to: string;
  from: string;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  messageId: string;
}

/**
 * Called by a transport right before the point of no return: the moment after which the
 * receiving side may have the mail (SMTP: before the end-of-data dot; files: before writing).
 * If it rejects, the transport must abandon the mail without passing that point.
 */
export type BeforeCommit = () => Promise<void>;

/** Where mail goes: an SMTP server, or .eml files when none is configured. */
export interface MailTransport {
  kind: "smtp" | "file";
  send(mail: OutgoingMail, beforeCommit?: BeforeCommit): Promise<void>;
  close(): void;
}

export interface CreateMailTransportOptions {
  smtpUrl?: string;
  /** Directory for .eml files when there is no SMTP server. */
  mailDir: string;
}

function toNodemailer(mail: OutgoingMail) {
  return {
    to: mail.to,
    from: mail.from,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    headers: mail.headers,
    messageId: mail.messageId,
  };
}

/**
 * One SMTP conversation for one mail. We talk to the server through nodemailer's connection
 * rather than its transport so that the end of the message waits for `beforeCommit`: the
 * message body streams only after the server answered DATA, and the terminating "." is written
 * only once `beforeCommit` has resolved. A server discards a message whose connection closes
 * before that dot (RFC 5321 §4.1.1.4), so a crash before it never leaves a delivered mail.
 */
async function sendOverSmtp(
  smtpUrl: string,
  mail: OutgoingMail,
  beforeCommit: BeforeCommit,
): Promise<void> {
  const { MailComposer, parseConnectionUrl, SMTPConnection } = await loadNodemailer();
  const options = parseConnectionUrl(smtpUrl);
  const composed = new MailComposer(toNodemailer(mail)).compile();
  const envelope = composed.getEnvelope();
  const raw = await composed.build();
  // parseConnectionUrl puts user:pass of the URL under `auth` (its type does not say so).
  const { auth, ...connectionOptions } = options as SMTPConnection.Options & {
    auth?: SMTPConnection.Credentials;
  };
  const connection = new SMTPConnection({
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
    ...connectionOptions,
  });
  let failure: Error | undefined;
  connection.on("error", (error) => {
    failure ??= error;
  });
  try {
    await new Promise<void>((resolve, reject) =>
      connection.connect((error) => (error ? reject(error) : resolve())),
    );
    if (auth?.user) {
      await new Promise<void>((resolve, reject) =>
        connection.login(auth, (error) => (error ? reject(error) : resolve())),
      );
    }
    let started = false;
    const body = new Readable({
      // Read for the first time when the server has answered DATA and the body starts to flow.
      read() {
        if (started) return;
        started = true;
        this.push(raw);
        beforeCommit().then(
          () => this.push(null),
          (error: unknown) => this.destroy(error as Error),
        );
      },
    });
    await new Promise<void>((resolve, reject) =>
      connection.send(envelope, body, (error) => (error ? reject(error) : resolve())),
    );
    connection.quit();
  } catch (error) {
    connection.close();
    throw failure ?? error;
  }
}

export function createMailTransport({
  smtpUrl,
  mailDir,
}: CreateMailTransportOptions): MailTransport {
  if (smtpUrl) {
    return {
      kind: "smtp",
      send: (mail, beforeCommit = async () => {}) => sendOverSmtp(smtpUrl, mail, beforeCommit),
      close: () => {},
    };
  }
  const loadStream = lazyModule(async () =>
    (await loadNodemailer()).createTransport({
      streamTransport: true,
      buffer: true,
      newline: "unix",
    }),
  );
  let stream: Awaited<ReturnType<typeof loadStream>> | undefined;
  return {
    kind: "file",
    send: async (mail, beforeCommit) => {
      stream ??= await loadStream();
      const info = await stream.sendMail(toNodemailer(mail));
      await mkdir(mailDir, { recursive: true });
      const stamp = new Date().toISOString().replaceAll(":", "-");
      const safeTo = mail.to.replace(/[^a-zA-Z0-9@._-]/g, "_");
      await beforeCommit?.();
      await writeFile(path.join(mailDir, `${stamp}-${safeTo}.eml`), info.message as Buffer);
    },
    close: () => stream?.close(),
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
  db: Queryable = getDb(),
): Promise<Map<string, { id: string; status: MailStatus; isNew: boolean }>> {
  const out = new Map<string, { id: string; status: MailStatus; isNew: boolean }>();
  if (mails.length === 0) return out;
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

/**
 * What became of one attempt. `sending`: another sender holds the mail (this one lost its
 * claim); `uncertain`: the server may have it, see {@link MAIL_STATUSES}.
 */
export type DeliveryOutcome = "sent" | "failed" | "dead" | "uncertain" | "sending";

/**
 * Due for the worker: scheduled and not sent, or claimed by a sender whose lease ran out before
 * it reached the end of the message (so no server has it). A claim that passed the end of the
 * message is never taken over: {@link markUncertainMail} settles it.
 */
const isDue = () =>
  or(
    and(
      inArray(mailOutbox.status, ["pending", "failed"]),
      lte(mailOutbox.nextAttemptAt, sql`now()`),
    ),
    and(
      eq(mailOutbox.status, "sending"),
      lte(mailOutbox.lockedUntil, sql`now()`),
      isNull(mailOutbox.dataEndAt),
    ),
  );

/** An SMTP error carrying the server's reply code: the server answered, and said no. */
function isRefusal(error: unknown): boolean {
  return typeof (error as { responseCode?: unknown }).responseCode === "number";
}

/**
 * One delivery attempt of a claimed mail. The send → mark-sent window, step by step:
 *
 * 1. The claim (status `sending`, `attempts` + 1, a lease) is committed before any byte goes
 *    to the server. Every later write is fenced by that attempt number, so a sender whose claim
 *    was taken over (lease ran out, or a restart released it) changes nothing.
 * 2. Right before the end of the message, `data_end_at` is committed — still fenced; if the
 *    claim was lost the transport abandons the mail before its end, so the server discards it.
 * 3. The server's "250" → `sent`. A refusal → `failed` and `data_end_at` cleared (the server
 *    said it did not take the mail), retried with backoff.
 *
 * A crash (or a lost connection) between 2 and 3 is the one case nobody can decide: the server
 * may or may not have the mail. Such a mail becomes `uncertain` and is never sent again on its
 * own — at most once, and the admin sees it. A crash before 2 leaves a claim without
 * `data_end_at`: the server never got the end of the message, so sending it again is safe.
 */
async function attempt(row: ClaimedRow, via: MailTransport): Promise<DeliveryOutcome> {
  const db = getDb();
  const mine = and(eq(mailOutbox.id, row.id), eq(mailOutbox.attempts, row.attempts));
  let reachedEnd = false;
  let lostClaim = false;
  try {
    await via.send(
      {
        to: row.toAddress,
        from: row.fromAddress,
        subject: row.subject,
        html: row.html,
        text: row.text,
        headers: row.headers,
        // A stable Message-ID lets receiving servers drop a duplicate after a crash mid-send.
        messageId: `<${row.id}@soundtrail>`,
      },
      async () => {
        const marked = await db
          .update(mailOutbox)
          .set({ dataEndAt: sql`now()` })
          .where(and(mine, eq(mailOutbox.status, "sending")))
          .returning({ id: mailOutbox.id });
        if (marked.length === 0) {
          lostClaim = true;
          throw new Error("another sender took this mail over");
        }
        reachedEnd = true;
      },
    );
  } catch (error) {
    const message = (error as Error).message.slice(0, 500);
    if (lostClaim) {
      logger.warn({ mailId: row.id, attempts: row.attempts }, "mail taken over by another sender");
      return "sending";
    }
    if (reachedEnd && !isRefusal(error)) {
      await db
        .update(mailOutbox)
        .set({
          status: "uncertain",
          lockedUntil: null,
          lastError: `No answer after the end of the message (${message}): the mail server may have it, so it is not sent again.`,
        })
        .where(mine);
      logger.warn({ mailId: row.id, err: message }, "mail delivery uncertain; not sent again");
      countMailFailure("uncertain");
      return "uncertain";
    }
    const delay = RETRY_DELAYS_S[row.attempts - 1];
    const status = delay === undefined ? "dead" : "failed";
    await db
      .update(mailOutbox)
      .set({
        status,
        lastError: message,
        lockedUntil: null,
        dataEndAt: null,
        nextAttemptAt: sql`now() + make_interval(secs => ${delay ?? 0})`,
      })
      .where(mine);
    logger.warn(
      { mailId: row.id, attempts: row.attempts, err: message, status },
      "mail delivery failed",
    );
    countMailFailure(status);
    return status;
  }
  // Not fenced on the status: a sweep may have called it uncertain meanwhile; now we know.
  await db
    .update(mailOutbox)
    .set({ status: "sent", sentAt: sql`now()`, lockedUntil: null, lastError: null })
    .where(mine);
  return "sent";
}

/**
 * Claims due mails (this one, or up to `limit`) so no other instance sends them at the same
 * time, then sends them. Returns the outcome per mail id.
 */
export async function deliverDueMail(
  options: { ids?: string[]; limit?: number; transport?: MailTransport } = {},
): Promise<Map<string, DeliveryOutcome>> {
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
    and(
      eq(mailOutbox.status, "sending"),
      lte(mailOutbox.lockedUntil, sql`now()`),
      isNull(mailOutbox.dataEndAt),
    ),
  );

export type ImmediateOutcome = DeliveryOutcome;

/**
 * Sends the given outbox mails now, ignoring their retry schedule (an explicit retry), and
 * returns each one's outcome. A mail that was already sent is answered "sent" and never sent
 * again; one that another sender holds right now is answered "sending"; one the server may
 * already have ("uncertain") is not sent again either.
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
      outcomes.set(
        row.id,
        row.status === "sent" || row.status === "uncertain" ? row.status : "sending",
      );
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
): Promise<Map<string, DeliveryOutcome>> {
  const db = getDb();
  const via = transport ?? getMailTransport();
  const outcomes = new Map<string, DeliveryOutcome>();
  while (outcomes.size < limit) {
    const chunk = Math.min(CLAIM_CHUNK, limit - outcomes.size);
    const attempted = [...outcomes.keys()];
    const candidates = db
      .select({ id: mailOutbox.id })
      .from(mailOutbox)
      // deliverMailNow ignores the retry schedule, so a mail that just failed in this call is
      // claimable again: never take one twice in one call.
      .where(attempted.length ? and(where, notInArray(mailOutbox.id, attempted)) : where)
      .orderBy(mailOutbox.nextAttemptAt, mailOutbox.createdAt, mailOutbox.id)
      .limit(chunk)
      .for("update", { skipLocked: true });
    const claimed = await db
      .update(mailOutbox)
      .set({
        status: "sending",
        attempts: sql`${mailOutbox.attempts} + 1`,
        lockedUntil: sql`now() + make_interval(secs => ${LOCK_SECONDS})`,
        dataEndAt: null,
      })
      .where(inArray(mailOutbox.id, candidates))
      .returning();
    for (const row of claimed) outcomes.set(row.id, await attempt(row, via));
    if (claimed.length < chunk) break;
  }
  return outcomes;
}

/**
 * A sender whose lease ran out after the end of the message (it hangs, or died on another
 * instance): the server may have the mail, so it is `uncertain`, never sent again on its own.
 */
async function markUncertainMail(): Promise<void> {
  await getDb()
    .update(mailOutbox)
    .set({
      status: "uncertain",
      lockedUntil: null,
      lastError:
        "The sender stopped after the end of the message: the mail server may have it, so it is not sent again.",
    })
    .where(
      and(
        eq(mailOutbox.status, "sending"),
        lte(mailOutbox.lockedUntil, sql`now()`),
        isNotNull(mailOutbox.dataEndAt),
      ),
    );
}

/**
 * At start: mails a previous process was sending when it died (kill -9, power loss) are
 * settled right away instead of after their lease. One that had not reached the end of its
 * message is sent again (no server has it); one that had is `uncertain`. Mails a batch request
 * held for itself are released to the worker. Safe even if another instance on the same
 * PostgreSQL is alive and holds one of these: its fenced writes then match nothing and it
 * abandons the mail before the end of the message (see `attempt`).
 */
export async function recoverInterruptedMail(): Promise<{ resent: number; uncertain: number }> {
  const db = getDb();
  const settled = await db
    .update(mailOutbox)
    .set({
      status: sql`case when ${mailOutbox.dataEndAt} is null then 'failed' else 'uncertain' end`,
      lockedUntil: null,
      nextAttemptAt: sql`now()`,
      lastError: sql`case when ${mailOutbox.dataEndAt} is null
        then 'Interrupted before the end of the message (the mail server discards it): sent again.'
        else 'Interrupted after the end of the message: the mail server may have it, so it is not sent again.' end`,
    })
    .where(eq(mailOutbox.status, "sending"))
    .returning({ status: mailOutbox.status });
  await db
    .update(mailOutbox)
    .set({ nextAttemptAt: sql`now()` })
    .where(
      and(
        eq(mailOutbox.status, "pending"),
        eq(mailOutbox.attempts, 0),
        sql`${mailOutbox.nextAttemptAt} > now()`,
      ),
    );
  const uncertain = settled.filter((row) => row.status === "uncertain").length;
  const outcome = { resent: settled.length - uncertain, uncertain };
  if (settled.length > 0) logger.warn(outcome, "mail interrupted by a restart settled");
  return outcome;
}

/**
 * The one way the app sends e-mail: record it, then try to send it right away. A failure is
 * recorded and retried by the outbox worker; it never throws for a delivery problem.
 */
export async function sendMail(
  options: EnqueueMailOptions,
): Promise<{ id: string; status: "sent" | "failed" | "dead" | "uncertain" | "queued" }> {
  const { id } = await enqueueMail(options);
  const outcome = (await deliverDueMail({ ids: [id] })).get(id);
  return { id, status: outcome === undefined || outcome === "sending" ? "queued" : outcome };
}

let workerTimer: NodeJS.Timeout | undefined;
let workerRunning: Promise<unknown> | undefined;

/**
 * Retries failed and interrupted mail every `intervalMs` until stopped. The first run settles
 * what a previous process left half-sent ({@link recoverInterruptedMail}).
 */
export function startMailWorker(intervalMs = 15_000): void {
  if (workerTimer) return;
  let recovered = false;
  const tick = () => {
    if (workerRunning) return;
    workerRunning = (async () => {
      if (!recovered) {
        await recoverInterruptedMail();
        recovered = true;
      }
      await markUncertainMail();
      await deliverDueMail();
    })()
      .catch((error: unknown) =>
        logOutageOr("mail worker", error, () => logger.error({ err: error }, "mail worker failed")),
      )
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
  await workerRunning;
}
