import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { user } from "./auth";

/** Spec §3 profiles: one per account, created together with it. */
export const profiles = pgTable(
  "profiles",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    email: text("email"),
    displayName: text("display_name"),
    username: text("username").notNull(),
    avatarUrl: text("avatar_url"),
    bio: text("bio").notNull().default(""),
    roles: text("roles").array().notNull().default(sql`'{}'::text[]`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("profiles_username_lower_idx").on(sql`lower(${t.username})`),
    index("profiles_created_at_idx").on(t.createdAt),
  ],
);
