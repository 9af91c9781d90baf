import {
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { user } from "./auth";
import { mailOutbox } from "./mail";

/**
 * Every admin action, written in the same transaction as the change it records. The actor is
 * kept as plain text too (`actor_id` survives the account's deletion as null + `actor_label`).
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    actorId: text("actor_id").references(() => user.id, { onDelete: "set null" }),
    /** The actor's username at the time, so the log stays readable after they are deleted. */
    actorLabel: text("actor_label").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index("audit_log_created_idx").on(t.createdAt.desc(), t.id)],
);

/** A bulk e-mail (ARCHITECTURE §7): the template as written, before per-recipient placeholders. */
export const emailCampaigns = pgTable(
  "email_campaigns",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    subject: text("subject").notNull(),
    html: text("html").notNull(),
    createdBy: text("created_by").references(() => user.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index("email_campaigns_created_idx").on(t.createdAt.desc())],
);

export const CAMPAIGN_RECIPIENT_STATUSES = ["pending", "sent", "failed", "skipped"] as const;
export type CampaignRecipientStatus = (typeof CAMPAIGN_RECIPIENT_STATUSES)[number];

/**
 * Who a campaign goes to, stored when it is created so a send can resume after a crash. Each
 * recipient's mail has the outbox idempotency key `campaign:<campaignId>:<userId>`.
 */
export const emailCampaignRecipients = pgTable(
  "email_campaign_recipients",
  {
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => emailCampaigns.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    email: text("email").notNull(),
    status: text("status", { enum: CAMPAIGN_RECIPIENT_STATUSES }).notNull().default("pending"),
    error: text("error"),
    mailKey: text("mail_key").notNull(),
    mailId: uuid("mail_id").references(() => mailOutbox.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.userId] }),
    uniqueIndex("email_campaign_recipients_key_idx").on(t.mailKey),
    index("email_campaign_recipients_status_idx").on(t.campaignId, t.status),
  ],
);
