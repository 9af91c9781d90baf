import { and, desc, eq, gt, ne } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { session } from "~/db/schema";
import { getAuth, sessionsEnded } from "~/features/auth/index.server";
import { describeUserAgent } from "./user-agent";

export interface SessionSummary {
  id: string;
  browser: string;
  system: string;
  /** How this session signed in (password, email-code, oauth, totp …), when recorded. */
  method: string | null;
  ipAddress: string | null;
  createdAt: string;
  /** When the session was last renewed (sessions renew at most once a day). */
  lastSeenAt: string;
  isCurrent: boolean;
}

/** The id of the session a request carries, or null when it carries none. */
export async function getCurrentSessionId(headers: Headers): Promise<string | null> {
  const current = await getAuth().api.getSession({ headers });
  return current?.session.id ?? null;
}

/** The person's live sessions, newest first, with "this device" marked. */
export async function listSessions(options: {
  userId: string;
  currentSessionId: string | null;
}): Promise<SessionSummary[]> {
  const rows = await getDb()
    .select({
      id: session.id,
      userAgent: session.userAgent,
      method: session.authMethod,
      ipAddress: session.ipAddress,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
    })
    .from(session)
    .where(and(eq(session.userId, options.userId), gt(session.expiresAt, new Date())))
    .orderBy(desc(session.createdAt))
    .limit(100);
  return rows.map((row) => ({
    id: row.id,
    ...describeUserAgent(row.userAgent),
    method: row.method,
    ipAddress: row.ipAddress,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.updatedAt.toISOString(),
    isCurrent: row.id === options.currentSessionId,
  }));
}

/**
 * Ends one of the person's other sessions: that browser is signed out on its next request.
 * A session of someone else is "not found", never touched.
 */
export async function revokeSession(options: {
  userId: string;
  sessionId: string;
  currentSessionId: string | null;
}): Promise<void> {
  if (options.sessionId === options.currentSessionId) {
    throw new AppError("invalid", "To end this session, sign out.");
  }
  const deleted = await getDb()
    .delete(session)
    .where(and(eq(session.id, options.sessionId), eq(session.userId, options.userId)))
    .returning({ id: session.id });
  if (deleted.length === 0) {
    throw new AppError("not_found", "That session has already ended.");
  }
  // Its live stream closes too, on whichever instance holds it.
  await sessionsEnded(options.userId);
}

/** Ends every session of the person except the current one; returns how many ended. */
export async function revokeOtherSessions(options: {
  userId: string;
  currentSessionId: string | null;
}): Promise<number> {
  const deleted = await getDb()
    .delete(session)
    .where(
      options.currentSessionId
        ? and(eq(session.userId, options.userId), ne(session.id, options.currentSessionId))
        : eq(session.userId, options.userId),
    )
    .returning({ id: session.id });
  if (deleted.length > 0) await sessionsEnded(options.userId);
  return deleted.length;
}
