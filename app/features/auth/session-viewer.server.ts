import { createHmac, timingSafeEqual } from "node:crypto";
import { sql } from "drizzle-orm";
import { shownName } from "~/core/person";
import { getDb, rowsOf } from "~/db/client.server";
import type { Viewer } from "~/lib/context.server";
import { getAuth } from "./better-auth.server";

/** What `session_viewer` (drizzle/0025) returns for a session token. */
interface SessionViewerRow {
  session_id: string;
  user_id: string;
  expires_at_ms: number;
  username: string;
  display_name: string | null;
  avatar_url: string | null;
  roles: string[];
  default_audience: Viewer["defaultAudience"];
  banned: boolean | null;
  is_anonymous: boolean | null;
  unread: number;
  notifications_seq: string | number;
}

/**
 * The request's cookies as better-call (better-auth's HTTP layer) reads them: `name=value` pairs
 * split at `;`, the first of a name wins, a quoted value is unquoted and percent-decoding is
 * tried.
 */
export function parseCookieHeader(header: string): Map<string, string> {
  const cookies = new Map<string, string>();
  let index = 0;
  while (index < header.length) {
    const eq = header.indexOf("=", index);
    if (eq === -1) break;
    let end = header.indexOf(";", index);
    if (end === -1) end = header.length;
    else if (end < eq) {
      index = header.lastIndexOf(";", eq - 1) + 1;
      continue;
    }
    const name = header.slice(index, eq).trim();
    if (!cookies.has(name)) {
      let value = header.slice(eq + 1, end).trim();
      if (value.codePointAt(0) === 34) value = value.slice(1, -1);
      try {
        value = value.includes("%") ? decodeURIComponent(value) : value;
      } catch {
        // kept as sent, as better-call keeps it
      }
      cookies.set(name, value);
    }
    index = end + 1;
  }
  return cookies;
}

/**
 * The token of a signed cookie value (`token.signature`, HMAC-SHA-256 in base64 as better-call
 * signs it), or null when the signature is missing, malformed or wrong.
 */
export function verifiedToken(value: string, secret: string): string | null {
  const dot = value.lastIndexOf(".");
  if (dot < 1) return null;
  const token = value.slice(0, dot);
  const signature = value.slice(dot + 1);
  if (signature.length !== 44 || !signature.endsWith("=")) return null;
  const expected = createHmac("sha256", secret).update(token).digest();
  const given = Buffer.from(signature, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
}

/** The answer for a request: who is asking and through which session. */
export interface SessionViewer {
  viewer: Viewer | null;
  sessionId: string | null;
}

/**
 * The viewer of a browser's session cookie in one statement (issue 17: better-auth's getSession
 * and the viewer's own read cost ~7 ms of every signed-in request on PGlite, mostly planning;
 * this is one PL/pgSQL call with a kept plan). It answers only where better-auth's getSession
 * would answer the same and write nothing: a validly signed token of a session that exists, has
 * not expired and is not due for renewal, with no "don't remember me" or session-data cookie
 * (which getSession handles or clears). Anything else — and a session without a profile — is
 * `undefined`: the caller asks better-auth, which renews, clears cookies and deletes expired
 * sessions as it always did. A banned account has no viewer, as with loadViewer.
 */
export async function sessionViewerFromCookies(
  cookieHeader: string,
  now = Date.now(),
): Promise<SessionViewer | undefined> {
  const context = await getAuth().$context;
  const cookies = parseCookieHeader(cookieHeader);
  const { sessionToken, sessionData, dontRememberToken } = context.authCookies;
  if (cookies.has(sessionData.name) || cookies.has(dontRememberToken.name)) return undefined;
  const value = cookies.get(sessionToken.name);
  if (!value) return undefined;
  const token = verifiedToken(value, context.secret);
  if (!token) return undefined;
  const [row] = rowsOf<SessionViewerRow>(
    await getDb().execute(sql`select * from session_viewer(${token})`),
  );
  if (!row) return undefined;
  const { expiresIn, updateAge } = context.sessionConfig;
  const expiresAt = Number(row.expires_at_ms);
  // As getSession decides: expired, or renewed once `updateAge` has passed since the last renewal.
  if (!(expiresAt > now) || expiresAt - expiresIn * 1000 + updateAge * 1000 <= now) {
    return undefined;
  }
  if (row.banned) return { viewer: null, sessionId: null };
  return {
    sessionId: row.session_id,
    viewer: {
      id: row.user_id,
      username: row.username,
      displayName: shownName({ username: row.username, displayName: row.display_name }),
      avatarUrl: row.avatar_url,
      isAdmin: row.roles.includes("admin"),
      isGuest: row.is_anonymous === true,
      unreadNotifications: Number(row.unread),
      notificationsSeq: Number(row.notifications_seq),
      defaultAudience: row.default_audience,
    },
  };
}
