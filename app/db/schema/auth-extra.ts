import { index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { user } from "./auth";

/**
 * TOTP codes that were accepted, so a code is accepted once (a replay within its validity
 * window is refused). Rows older than a few periods are pruned when new codes are claimed.
 */
export const totpUsedCodes = pgTable(
  "totp_used_codes",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    code: text("code").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.code] }),
    index("totp_used_codes_used_at_idx").on(t.usedAt),
  ],
);
