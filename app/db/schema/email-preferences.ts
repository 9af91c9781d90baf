import { boolean, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { user } from "./auth";

/** Kinds of optional mail a person can turn off (account mail is not optional). */
export const EMAIL_KINDS = ["announcements"] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/** A person's choice for one kind of mail; no row means the default (subscribed). */
export const emailPreferences = pgTable(
  "email_preferences",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: EMAIL_KINDS }).notNull(),
    isSubscribed: boolean("is_subscribed").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.kind] })],
);
