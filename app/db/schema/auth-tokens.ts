import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  index,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { session, user } from "./auth";

/**
 * A sign-in through the token API (`/auth/v1`, the Supabase Auth protocol). Each one is backed
 * by a better-auth session row (`authSessionId`): whatever ends that session — signing out, a
 * ban, "sign out everywhere", a password change that signs out other devices — ends this one
 * too, and its assurance level (`aal`) is the session's. The id is the access token's
 * `session_id` and stays the same when the backing session is replaced (a password change or a
 * first TOTP verification give the current device a new session row).
 */
export const authTokenSessions = pgTable(
  "auth_token_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** Null once the backing session is gone: then this one is over too. */
    authSessionId: text("auth_session_id").references(() => session.id, { onDelete: "set null" }),
    /** How the person signed in, as `amr` entries: `[{ method, timestamp }]`. */
    amr: jsonb("amr").$type<{ method: string; timestamp: number }[]>().notNull().default([]),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    refreshedAt: timestamp("refreshed_at", { withTimezone: true }),
  },
  (t) => [
    index("auth_token_sessions_user_idx").on(t.userId),
    index("auth_token_sessions_auth_session_idx").on(t.authSessionId),
  ],
);

/**
 * Refresh tokens, stored as SHA-256 hashes (the token itself is 32 random bytes, so a plain hash
 * is enough). Each use spends the token (`usedAt`) and issues its child; a spent token used
 * again after the grace window ends the whole session (reuse detection).
 */
export const authRefreshTokens = pgTable(
  "auth_refresh_tokens",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tokenSessionId: uuid("token_session_id")
      .notNull()
      .references(() => authTokenSessions.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    parentId: bigint("parent_id", { mode: "number" }),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("auth_refresh_tokens_hash_idx").on(t.tokenHash),
    index("auth_refresh_tokens_session_idx").on(t.tokenSessionId),
    index("auth_refresh_tokens_unused_idx").on(t.tokenSessionId).where(sql`${t.usedAt} is null`),
  ],
);
