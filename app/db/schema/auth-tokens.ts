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

/**
 * The token API's signing keys (ES256, private JWKs), shared by every instance on the database:
 * each signs with the newest live key and publishes every key not retired longer ago than a
 * token lives, so a rotation (`npm run auth:rotate-key`) never cuts off a token already handed
 * out. Backups carry them like any other row. `AUTH_JWT_KEYS` overrides the table.
 */
export const authJwtKeys = pgTable("auth_jwt_keys", {
  kid: text("kid").primaryKey(),
  privateJwk: jsonb("private_jwk").$type<Record<string, unknown>>().notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  /** Set by a rotation: from then on the key only verifies, until its last token expired. */
  retiredAt: timestamp("retired_at", { withTimezone: true }),
});

/**
 * Supabase's free-form metadata of an account: `user_metadata` (what the app's user sets with
 * `signUp({ options: { data } })` or `updateUser({ data })`) and `app_metadata` (what only the
 * service role sets). Profile fields (username, display name) stay in `profiles`.
 */
export const authUserMetadata = pgTable("auth_user_metadata", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  userMetadata: jsonb("user_metadata").$type<Record<string, unknown>>().notNull().default({}),
  appMetadata: jsonb("app_metadata").$type<Record<string, unknown>>().notNull().default({}),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
