import { createHash, randomUUID } from "node:crypto";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { listenTokens, user } from "~/db/schema";
import { MAX_ACTIVE_LISTEN_TOKENS } from "./schemas";

/** The SHA-256 of a token, as stored: the token itself is never kept. */
export function hashListenToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface ListenTokenSummary {
  id: string;
  name: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Revoked tokens listed under the working ones (the most recent of them). */
const REVOKED_SHOWN = 10;

/**
 * Creates a token for `userId` and returns it: the only time it is readable. A UUID, as
 * ListenBrainz's own tokens are (some players check the shape before they send anything).
 */
export async function createListenToken(options: {
  userId: string;
  name: string;
}): Promise<{ id: string; token: string; name: string }> {
  const token = randomUUID();
  return getDb().transaction(async (tx) => {
    // One person's creates run one at a time, so the limit holds against a double submit.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`listen-tokens:${options.userId}`}))`,
    );
    const [row] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(listenTokens)
      .where(and(eq(listenTokens.userId, options.userId), isNull(listenTokens.revokedAt)));
    if ((row?.count ?? 0) >= MAX_ACTIVE_LISTEN_TOKENS) {
      throw new AppError(
        "conflict",
        `You can have ${MAX_ACTIVE_LISTEN_TOKENS} tokens at once. Revoke one you no longer use first.`,
      );
    }
    const [created] = await tx
      .insert(listenTokens)
      .values({
        userId: options.userId,
        name: options.name,
        tokenHash: hashListenToken(token),
        hint: token.slice(-4),
      })
      .returning({ id: listenTokens.id });
    if (!created) throw new Error("The token was not stored");
    return { id: created.id, token, name: options.name };
  });
}

/** The person's working tokens, newest first, then the last few they revoked. */
export async function listListenTokens(options: {
  userId: string;
}): Promise<{ active: ListenTokenSummary[]; revoked: ListenTokenSummary[] }> {
  const columns = {
    id: listenTokens.id,
    name: listenTokens.name,
    hint: listenTokens.hint,
    createdAt: listenTokens.createdAt,
    lastUsedAt: listenTokens.lastUsedAt,
    revokedAt: listenTokens.revokedAt,
  };
  const [active, revoked] = await Promise.all([
    getDb()
      .select(columns)
      .from(listenTokens)
      .where(and(eq(listenTokens.userId, options.userId), isNull(listenTokens.revokedAt)))
      .orderBy(desc(listenTokens.createdAt))
      .limit(MAX_ACTIVE_LISTEN_TOKENS),
    getDb()
      .select(columns)
      .from(listenTokens)
      .where(
        and(eq(listenTokens.userId, options.userId), sql`${listenTokens.revokedAt} is not null`),
      )
      .orderBy(desc(listenTokens.revokedAt))
      .limit(REVOKED_SHOWN),
  ]);
  const summary = (row: (typeof active)[number]): ListenTokenSummary => ({
    id: row.id,
    name: row.name,
    hint: row.hint,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  });
  return { active: active.map(summary), revoked: revoked.map(summary) };
}

/** Revokes one of the person's own tokens; someone else's (or an unknown id) is not found. */
export async function revokeListenToken(options: {
  userId: string;
  tokenId: string;
}): Promise<{ name: string }> {
  const [row] = await getDb()
    .update(listenTokens)
    .set({ revokedAt: sql`coalesce(${listenTokens.revokedAt}, now())` })
    .where(and(eq(listenTokens.id, options.tokenId), eq(listenTokens.userId, options.userId)))
    .returning({ name: listenTokens.name });
  if (!row) throw new AppError("not_found", "That token does not exist.");
  return row;
}

export interface ListenTokenOwner {
  tokenId: string;
  userId: string;
  username: string;
}

/**
 * The person a token belongs to, when it is a working token of an account in good standing
 * (not revoked, not banned); marks it used. Null otherwise.
 */
export async function findListenTokenOwner(token: string): Promise<ListenTokenOwner | null> {
  if (!token || token.length > 200) return null;
  const [row] = await getDb()
    .update(listenTokens)
    .set({ lastUsedAt: sql`now()` })
    .from(user)
    .where(
      and(
        eq(listenTokens.tokenHash, hashListenToken(token)),
        isNull(listenTokens.revokedAt),
        eq(user.id, listenTokens.userId),
        sql`not (coalesce(${user.banned}, false) and (${user.banExpires} is null or ${user.banExpires} > now()))`,
      ),
    )
    .returning({ tokenId: listenTokens.id, userId: user.id, username: user.username });
  if (!row) return null;
  return { tokenId: row.tokenId, userId: row.userId, username: row.username ?? row.userId };
}
