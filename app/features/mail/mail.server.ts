import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { and, eq, inArray, sql } from "drizzle-orm";
import type SMTPConnection from "nodemailer/lib/smtp-connection";
import {
  defineJob,
  enqueueJobs,
  prepareJobForCaller,
  runOneDueJob,
  stringFields,
} from "~/core/jobs/index.server";
import { logger } from "~/core/logger.server";
import { countMailFailure } from "~/core/metrics.server";
import { type DbOrTx, getDb } from "~/db/client.server";
import { type MailStatus, mailOutbox } from "~/db/schema";
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
/**
 * How long an attempt holds its mail before another runner may take it over (renewed every
 * third of it while the attempt runs): after a crash on PostgreSQL the mail goes out again
 * within this, whoever restarts. Never sent twice either way (the attempt fence, data_end_at).
 */
const LOCK_SECONDS = 20;

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
type Queryable = DbOrTx;

/** The transport a test's explicit send uses (`transport` options), for the mails it runs here. */
const transportScope = new AsyncLocalStorage<MailTransport>();

/** A refusal or failure before the end of the message: the job tries again later. */
class MailNotSent extends Error {
  override name = "MailNotSent";
}

/**
 * Sends one outbox mail: a job (core/jobs) per mail, keyed by its id, so one runner at a time
 * holds it. What the job finds decides (see `attempt` for the window in between):
 * - sent or uncertain: nothing to do — never sent twice;
 * - `sending` with `data_end_at`: an earlier attempt stopped after the end of the message (its
 *   process died, or hung past its lease): the server may have it, so it is `uncertain`;
 * - otherwise it is claimed and sent. A refusal is retried after RETRY_DELAYS_S; after the last
 *   it is `dead` (kept, and shown to the admin).
 */
export const mailJob = defineJob<{ mailId: string }>({
  kind: "mail.send",
  priority: 0,
  concurrency: 4,
  maxAttempts: RETRY_DELAYS_S.length + 1,
  leaseSeconds: LOCK_SECONDS,
  backoffSeconds: (attempt) => RETRY_DELAYS_S[attempt - 1] ?? 3600,
  parse: stringFields("mailId"),
  async run(job) {
    const db = getDb();
    const [row] = await db.select().from(mailOutbox).where(eq(mailOutbox.id, job.payload.mailId));
    if (!row || row.status === "sent" || row.status === "uncertain" || row.status === "dead") {
      return undefined;
    }
    if (row.status === "sending" && row.dataEndAt) {
      await settleUncertain(row.id, row.attempts);
      return undefined;
    }
    const [claimed] = await db
      .update(mailOutbox)
      .set({ status: "sending", attempts: sql`${mailOutbox.attempts} + 1`, dataEndAt: null })
      .where(and(eq(mailOutbox.id, row.id), eq(mailOutbox.attempts, row.attempts)))
      .returning();
    if (!claimed) throw new MailNotSent("the mail changed while it was being claimed");
    const outcome = await attempt(
      claimed,
      transportScope.getStore() ?? getMailTransport(),
      job.attempt,
    );
    if (outcome === "failed") throw new MailNotSent(claimed.lastError ?? "not sent");
    return undefined;
  },
  async onDead({ mailId }, error) {
    await getDb()
      .update(mailOutbox)
      .set({ status: "dead", lastError: error.slice(0, 500) })
      .where(
        and(
          eq(mailOutbox.id, mailId),
          inArray(mailOutbox.status, ["pending", "failed", "sending"]),
        ),
      );
    countMailFailure("dead");
  },
});

/** Records a mail in the outbox and queues its job. Returns its id, and whether this call created it. */
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
  if (inserted[0]) {
    await mailJob.enqueue(db, { mailId: inserted[0].id }, { key: inserted[0].id });
    return { id: inserted[0].id, isNew: true };
  }
  const [existing] = await db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(eq(mailOutbox.idempotencyKey, key));
  if (!existing) throw new Error("Outbox row vanished while enqueueing");
  return { id: existing.id, isNew: false };
}

/**
 * Records many mails in the outbox in one statement (plus one read, and one for their jobs).
 * Returns, per idempotency key, the mail's id, its status, and whether this call created it.
 * Keys must be distinct. `holdSeconds` keeps the runners off new mails for a while, for a
 * caller that sends them itself right away (deliverMailNow); if that caller dies, the jobs
 * send them afterwards.
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
      })),
    )
    .onConflictDoNothing({ target: mailOutbox.idempotencyKey })
    .returning({ key: mailOutbox.idempotencyKey, id: mailOutbox.id });
  await enqueueJobs(db, {
    kind: mailJob.kind,
    items: inserted.map((row) => ({ payload: { mailId: row.id }, key: row.id })),
    delayMs: (options.holdSeconds ?? 0) * 1000,
    priority: mailJob.priority,
    maxAttempts: mailJob.maxAttempts,
  });
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

/** An SMTP error carrying the server's reply code: the server answered, and said no. */
function isRefusal(error: unknown): boolean {
  return typeof (error as { responseCode?: unknown }).responseCode === "number";
}

/** The attempt that passed the end of the message is over and nobody knows: `uncertain`. */
async function settleUncertain(id: string, attempts: number): Promise<void> {
  await getDb()
    .update(mailOutbox)
    .set({
      status: "uncertain",
      lastError:
        "The sender stopped after the end of the message: the mail server may have it, so it is not sent again.",
    })
    .where(
      and(
        eq(mailOutbox.id, id),
        eq(mailOutbox.attempts, attempts),
        eq(mailOutbox.status, "sending"),
      ),
    );
  logger.warn({ mailId: id }, "mail delivery uncertain after a stop; not sent again");
  countMailFailure("uncertain");
}

/**
 * One delivery attempt of a claimed mail. The send → mark-sent window, step by step:
 *
 * 1. The claim (status `sending`, `attempts` + 1) is committed before any byte goes to the
 *    server, by the one job that holds the mail. Every later write is fenced by that attempt
 *    number, so a sender whose claim was taken over (its job's lease ran out and another runner
 *    claimed the mail again) changes nothing.
 * 2. Right before the end of the message, `data_end_at` is committed — still fenced; if the
 *    claim was lost the transport abandons the mail before its end, so the server discards it.
 * 3. The server's "250" → `sent`. A refusal → `failed` and `data_end_at` cleared (the server
 *    said it did not take the mail), retried by the job with back-off.
 *
 * A crash (or a lost connection) between 2 and 3 is the one case nobody can decide: the server
 * may or may not have the mail. Such a mail becomes `uncertain` and is never sent again on its
 * own — at most once, and the admin sees it. A crash before 2 leaves a claim without
 * `data_end_at`: the server never got the end of the message, so sending it again is safe.
 */
async function attempt(
  row: ClaimedRow,
  via: MailTransport,
  jobAttempt: number,
): Promise<DeliveryOutcome> {
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
          lastError: `No answer after the end of the message (${message}): the mail server may have it, so it is not sent again.`,
        })
        .where(mine);
      logger.warn({ mailId: row.id, err: message }, "mail delivery uncertain; not sent again");
      countMailFailure("uncertain");
      return "uncertain";
    }
    await db
      .update(mailOutbox)
      .set({ status: "failed", lastError: message, dataEndAt: null })
      .where(mine);
    logger.warn(
      { mailId: row.id, attempts: row.attempts, err: message, jobAttempt },
      "mail delivery failed",
    );
    countMailFailure("failed");
    return "failed";
  }
  // Not fenced on the status: a sweep may have called it uncertain meanwhile; now we know.
  await db
    .update(mailOutbox)
    .set({ status: "sent", sentAt: sql`now()`, lastError: null })
    .where(mine);
  return "sent";
}

/** Each mail's status as an outcome (after its job ran, or instead of running it). */
async function outcomesOf(ids: readonly string[]): Promise<Map<string, DeliveryOutcome>> {
  const outcomes = new Map<string, DeliveryOutcome>();
  if (ids.length === 0) return outcomes;
  const rows = await getDb()
    .select({ id: mailOutbox.id, status: mailOutbox.status })
    .from(mailOutbox)
    .where(inArray(mailOutbox.id, [...ids]));
  for (const row of rows) {
    outcomes.set(row.id, row.status === "pending" ? "sending" : row.status);
  }
  return outcomes;
}

/**
 * Runs the mail jobs that are due (only those of `ids` when given, at most `limit`) here, one
 * after the other; returns the outcome per mail that was tried. (The server's job runner does
 * this on its own; tests and scripts call it.)
 */
export async function deliverDueMail(
  options: { ids?: string[]; limit?: number; transport?: MailTransport } = {},
): Promise<Map<string, DeliveryOutcome>> {
  const tried: string[] = [];
  const limit = options.limit ?? options.ids?.length ?? 50;
  const run = async () => {
    while (tried.length < limit) {
      const ran = await runOneDueJob(mailJob, { keys: options.ids });
      if (!ran) break;
      if (ran.key) tried.push(ran.key);
    }
  };
  if (options.transport) await transportScope.run(options.transport, run);
  else await run();
  return outcomesOf(tried);
}

export type ImmediateOutcome = DeliveryOutcome;

/**
 * Sends the given outbox mails now, ignoring their retry schedule (an explicit retry, a dead
 * mail included), and returns each one's outcome. A mail that was already sent is answered
 * "sent" and never sent again; one that another sender holds right now is answered "sending";
 * one the server may already have ("uncertain") is not sent again either.
 */
export async function deliverMailNow(options: {
  ids: string[];
  transport?: MailTransport;
}): Promise<Map<string, ImmediateOutcome>> {
  const db = getDb();
  const rows = await db
    .select({ id: mailOutbox.id, status: mailOutbox.status })
    .from(mailOutbox)
    .where(inArray(mailOutbox.id, options.ids));
  const toSend = rows.filter((row) => row.status !== "sent" && row.status !== "uncertain");
  // One at a time, in the order asked: each job is claimed here whatever its schedule, never
  // made due for the runners first (they would send alongside this caller).
  const run = async () => {
    for (const row of toSend) {
      if (row.status === "dead") {
        await db
          .update(mailOutbox)
          .set({ status: "failed" })
          .where(and(eq(mailOutbox.id, row.id), eq(mailOutbox.status, "dead")));
      }
      const ready = await prepareJobForCaller(db, {
        kind: mailJob.kind,
        key: row.id,
        payload: { mailId: row.id },
        priority: mailJob.priority,
        maxAttempts: mailJob.maxAttempts,
      });
      if (ready) await runOneDueJob(mailJob, { keys: [row.id], anyTime: true });
    }
  };
  if (options.transport) await transportScope.run(options.transport, run);
  else await run();
  return outcomesOf(options.ids);
}

/**
 * At the embedded database's start (one process: whatever it was sending died with it): mails
 * it was sending are settled right away instead of when their job is taken up again. One that
 * had not reached the end of its message is sent again (no server has it); one that had is
 * `uncertain`. Mails a batch request held for itself are released to the runners. On
 * PostgreSQL another instance may be sending right now: there the jobs' leases decide.
 */
export async function recoverInterruptedMail(): Promise<{ resent: number; uncertain: number }> {
  const db = getDb();
  const settled = await db
    .update(mailOutbox)
    .set({
      status: sql`case when ${mailOutbox.dataEndAt} is null then 'failed' else 'uncertain' end`,
      lastError: sql`case when ${mailOutbox.dataEndAt} is null
        then 'Interrupted before the end of the message (the mail server discards it): sent again.'
        else 'Interrupted after the end of the message: the mail server may have it, so it is not sent again.' end`,
    })
    .where(eq(mailOutbox.status, "sending"))
    .returning({ status: mailOutbox.status });
  await db.execute(sql`
    update jobs set run_at = now(),
      locked_until = case when status = 'running' then now() - interval '1 millisecond' end
    where kind = ${mailJob.kind} and (status = 'running' or (status = 'queued' and attempts = 0))`);
  const uncertain = settled.filter((row) => row.status === "uncertain").length;
  const outcome = { resent: settled.length - uncertain, uncertain };
  if (settled.length > 0) logger.warn(outcome, "mail interrupted by a restart settled");
  return outcome;
}

/**
 * The one way the app sends e-mail: record it, then try to send it right away. A failure is
 * recorded and retried by its job; it never throws for a delivery problem. A mail already
 * queued under the same idempotency key is left to its job.
 */
export async function sendMail(
  options: EnqueueMailOptions,
): Promise<{ id: string; status: "sent" | "failed" | "dead" | "uncertain" | "queued" }> {
  const { id, isNew } = await enqueueMail(options);
  if (!isNew) return { id, status: "queued" };
  const outcome = (await deliverMailNow({ ids: [id] })).get(id);
  return { id, status: outcome === undefined || outcome === "sending" ? "queued" : outcome };
}
