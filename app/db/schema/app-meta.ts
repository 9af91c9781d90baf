import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Facts about this instance (e.g. when it was first started); one row per key. */
export const appMeta = pgTable("app_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
