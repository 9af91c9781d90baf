import { index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * `uncertain`: the end of the message may have reached the mail server, but its answer never
 * came back (a crash, a dropped connection). The server may have the mail, so it is never sent
 * again on its own (see `attempt` in features/mail/mail.server.ts).
 */
export const MAIL_STATUSES = ["pending", "sending", "sent", "failed", "dead", "uncertain"] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * Every e-mail is written here before it is sent (ARCHITECTURE §7): a crash or an SMTP outage
 * loses nothing, and the idempotency key stops the same mail from being queued twice. Its
 * sending is a job (core/jobs, `mail.send`): the schedule and the lease live there.
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    idempotencyKey: text("idempotency_key").notNull().unique(),
    toAddress: text("to_address").notNull(),
    fromAddress: text("from_address").notNull(),
    subject: text("subject").notNull(),
    html: text("html").notNull(),
    text: text("text").notNull(),
    headers: jsonb("headers").$type<Record<string, string>>().notNull().default({}),
    status: text("status", { enum: MAIL_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /**
     * Set (for the current attempt) just before the end of the message is written to the mail
     * server: from here on the server may have the mail. Cleared when the server refuses it.
     */
    dataEndAt: timestamp("data_end_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
  },
  (t) => [index("mail_outbox_status_idx").on(t.status)],
);
