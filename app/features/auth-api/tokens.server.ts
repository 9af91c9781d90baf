import { createHash, createHmac, randomBytes } from "node:crypto";
import { and, eq, isNull, ne, sql } from "drizzle-orm";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import {
  authRefreshTokens,
  authTokenSessions,
  session as sessionTable,
  user as userTable,
} from "~/db/schema";
import { getAuth, sessionsEnded } from "~/features/auth/index.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { getEnv, resolveAuthSecret } from "~/lib/env.server";
import { AuthApiError } from "./errors.server";
import { getSigningKeys, JWT_ALG, keysJustLoaded } from "./keys.server";
import { type SupabaseUser, supabaseUser } from "./users.server";

/** A spent refresh token used again within this many seconds is a concurrent refresh, not a theft. */
export const REUSE_GRACE_SECONDS = 10;
export const AUDIENCE = "authenticated";

export type AmrMethod =
  | "password"
  | "otp"
  | "totp"
  | "anonymous"
  | "oauth"
  | "email/signup"
  | "recovery";
export type AmrEntry = { method: string; timestamp: number };

export function issuer(): string {
  return `${getEnv().BASE_URL.replace(/\/$/, "")}/auth/v1`;
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function newRefreshToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The signed session cookie of a better-auth session token, as better-auth itself writes it. */
async function signedSessionCookie(token: string): Promise<string> {
  const ctx = await getAuth().$context;
  const signature = createHmac("sha256", resolveAuthSecret(getEnv()))
    .update(token)
    .digest("base64");
  return `${ctx.authCookies.sessionToken.name}=${encodeURIComponent(`${token}.${signature}`)}`;
}

/**
 * Request headers that make better-auth's server API (`auth.api.*`) and our account helpers
 * see the token session's backing session — so a token request goes through the very same
 * checks as the browser. Only the client address and user agent of the real request are kept;
 * its own cookies are never read.
 */
export async function headersForSession(
  authSessionToken: string | null,
  request: Headers,
): Promise<Headers> {
  const headers = new Headers();
  const address = request.get(CLIENT_IP_HEADER);
  if (address) headers.set(CLIENT_IP_HEADER, address);
  const agent = request.get("user-agent");
  if (agent) headers.set("user-agent", agent.slice(0, 400));
  if (authSessionToken) headers.set("cookie", await signedSessionCookie(authSessionToken));
  return headers;
}

/** The better-auth session token in a response's Set-Cookie headers, if it set one. */
export async function sessionTokenFromCookies(headers: Headers): Promise<string | null> {
  const ctx = await getAuth().$context;
  const name = ctx.authCookies.sessionToken.name;
  for (const cookie of headers.getSetCookie()) {
    const [pair] = cookie.split(";");
    const at = pair?.indexOf("=") ?? -1;
    if (!pair || at < 0 || pair.slice(0, at).trim() !== name) continue;
    const value = decodeURIComponent(pair.slice(at + 1));
    if (!value) continue;
    return value.split(".")[0] ?? null;
  }
  return null;
}

async function sessionRowByToken(token: string) {
  const [row] = await getDb()
    .select({ id: sessionTable.id, userId: sessionTable.userId })
    .from(sessionTable)
    .where(eq(sessionTable.token, token));
  return row ?? null;
}

export interface SupabaseSession {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: SupabaseUser;
}

interface TokenSessionState {
  id: string;
  userId: string;
  amr: AmrEntry[];
  aal: "aal1" | "aal2";
}

async function signAccessToken(
  state: TokenSessionState,
  user: SupabaseUser,
): Promise<{ token: string; expiresAt: number; expiresIn: number }> {
  const env = getEnv();
  const keys = await getSigningKeys(env);
  const now = Math.floor(Date.now() / 1000);
  const expiresIn = env.AUTH_JWT_EXPIRY;
  const token = await new SignJWT({
    email: user.email,
    phone: user.phone,
    app_metadata: user.app_metadata,
    user_metadata: user.user_metadata,
    role: "authenticated",
    aal: state.aal,
    amr: state.amr,
    session_id: state.id,
    is_anonymous: user.is_anonymous,
  })
    .setProtectedHeader({ alg: JWT_ALG, kid: keys.current.kid, typ: "JWT" })
    .setIssuer(issuer())
    .setSubject(state.userId)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + expiresIn)
    .sign(keys.current.key);
  return { token, expiresAt: now + expiresIn, expiresIn };
}

async function sessionObject(
  state: TokenSessionState,
  refreshToken: string,
): Promise<SupabaseSession> {
  const user = await supabaseUser(state.userId);
  if (!user) throw new AuthApiError(404, "user_not_found", "User not found");
  const access = await signAccessToken(state, user);
  return {
    access_token: access.token,
    token_type: "bearer",
    expires_in: access.expiresIn,
    expires_at: access.expiresAt,
    refresh_token: refreshToken,
    user,
  };
}

function aalOf(value: string | null | undefined): "aal1" | "aal2" {
  return value === "aal2" ? "aal2" : "aal1";
}

/**
 * Starts a token session on top of a better-auth session that a sign-in just created (its token
 * from the Set-Cookie of `auth.api.*`), and returns the Supabase session object.
 */
export async function startTokenSession(options: {
  authSessionToken: string;
  method: AmrMethod;
}): Promise<SupabaseSession> {
  const backing = await sessionRowByToken(options.authSessionToken);
  if (!backing) throw new AuthApiError(500, "unexpected_failure", "The session was not created");
  // Token sessions whose backing session ended are dead for good: drop them now and then.
  await pruneEndedTokenSessions(backing.userId);
  const amr: AmrEntry[] = [{ method: options.method, timestamp: Math.floor(Date.now() / 1000) }];
  const refreshToken = newRefreshToken();
  const state = await getDb().transaction(async (tx) => {
    const [created] = await tx
      .insert(authTokenSessions)
      .values({ userId: backing.userId, authSessionId: backing.id, amr })
      .returning({ id: authTokenSessions.id });
    if (!created) throw new Error("token session not created");
    await tx
      .insert(authRefreshTokens)
      .values({ tokenSessionId: created.id, tokenHash: hashToken(refreshToken) });
    const [row] = await tx
      .select({ aal: sessionTable.aal })
      .from(sessionTable)
      .where(eq(sessionTable.id, backing.id));
    return { id: created.id, userId: backing.userId, amr, aal: aalOf(row?.aal) };
  });
  return sessionObject(state, refreshToken);
}

/**
 * Points a token session at the better-auth session that replaced its backing one (a password
 * change that signed out other devices, a first TOTP verification), optionally adding an `amr`
 * entry, and issues a fresh pair of tokens.
 */
export async function rebindTokenSession(options: {
  tokenSessionId: string;
  authSessionToken: string | null;
  addMethod?: AmrMethod;
}): Promise<SupabaseSession> {
  const db = getDb();
  const [current] = await db
    .select({ id: authTokenSessions.id, amr: authTokenSessions.amr })
    .from(authTokenSessions)
    .where(eq(authTokenSessions.id, options.tokenSessionId));
  if (!current) throw new AuthApiError(403, "session_not_found", SESSION_NOT_FOUND);
  const backing = options.authSessionToken
    ? await sessionRowByToken(options.authSessionToken)
    : null;
  let amr = current.amr;
  if (options.addMethod) {
    amr = [
      { method: options.addMethod, timestamp: Math.floor(Date.now() / 1000) },
      ...amr.filter((entry) => entry.method !== options.addMethod),
    ];
  }
  await db
    .update(authTokenSessions)
    .set({ amr, ...(backing ? { authSessionId: backing.id } : {}) })
    .where(eq(authTokenSessions.id, options.tokenSessionId));
  const live = await loadTokenSession(options.tokenSessionId);
  if (!live) throw new AuthApiError(403, "session_not_found", SESSION_NOT_FOUND);
  const refreshToken = newRefreshToken();
  await db
    .insert(authRefreshTokens)
    .values({ tokenSessionId: live.id, tokenHash: hashToken(refreshToken) });
  return sessionObject(live, refreshToken);
}

export const SESSION_NOT_FOUND = "Session from session_id claim in JWT does not exist";

export interface LiveTokenSession extends TokenSessionState {
  authSessionId: string;
  authSessionToken: string;
  twoFactorEnabled: boolean;
  createdAt: Date;
}

/** The token session with its live backing session, or null when it ended (or the person is banned). */
export async function loadTokenSession(id: string): Promise<LiveTokenSession | null> {
  const [row] = await getDb()
    .select({
      id: authTokenSessions.id,
      userId: authTokenSessions.userId,
      amr: authTokenSessions.amr,
      createdAt: authTokenSessions.createdAt,
      authSessionId: sessionTable.id,
      authSessionToken: sessionTable.token,
      aal: sessionTable.aal,
      banned: userTable.banned,
      banExpires: userTable.banExpires,
      twoFactorEnabled: userTable.twoFactorEnabled,
    })
    .from(authTokenSessions)
    .innerJoin(sessionTable, eq(sessionTable.id, authTokenSessions.authSessionId))
    .innerJoin(userTable, eq(userTable.id, authTokenSessions.userId))
    .where(and(eq(authTokenSessions.id, id), sql`${sessionTable.expiresAt} > now()`));
  if (!row || isBanned(row)) return null;
  return {
    id: row.id,
    userId: row.userId,
    amr: row.amr,
    aal: aalOf(row.aal),
    authSessionId: row.authSessionId,
    authSessionToken: row.authSessionToken,
    twoFactorEnabled: row.twoFactorEnabled === true,
    createdAt: row.createdAt,
  };
}

/** A ban holds until its end, if it has one (the service role's ban_duration). */
export function isBanned(row: { banned: boolean | null; banExpires: Date | null }): boolean {
  return row.banned === true && (!row.banExpires || row.banExpires.getTime() > Date.now());
}

export interface AccessClaims {
  sub: string;
  session_id: string;
  aal: "aal1" | "aal2";
}

/**
 * The key set to verify a token with: read again at once when the token names a key this
 * instance has not seen (another instance rotated the keys a moment ago).
 */
async function keysFor(token: string) {
  const env = getEnv();
  const keys = await getSigningKeys(env);
  const kid = kidOf(token);
  if (!kid || keys.verify.has(kid) || keysJustLoaded()) return keys;
  return getSigningKeys(env, { fresh: true });
}

function kidOf(token: string): string | null {
  try {
    const header = JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString()) as {
      kid?: unknown;
    };
    return typeof header.kid === "string" ? header.kid : null;
  } catch {
    return null;
  }
}

/** Verifies an access token's signature, issuer, audience and expiry; null when it is not valid. */
export async function verifyAccessToken(token: string): Promise<AccessClaims | null> {
  if (token.split(".").length !== 3) return null;
  try {
    const keys = await keysFor(token);
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = header.kid ? keys.verify.get(header.kid) : undefined;
        if (!key) throw new joseErrors.JWKSNoMatchingKey();
        return key;
      },
      { algorithms: [JWT_ALG], audience: AUDIENCE, issuer: issuer() },
    );
    if (typeof payload.sub !== "string" || typeof payload.session_id !== "string") return null;
    return {
      sub: payload.sub,
      session_id: payload.session_id,
      aal: payload.aal === "aal2" ? "aal2" : "aal1",
    };
  } catch {
    return null;
  }
}

/** The bearer token of an `Authorization` header, or null. */
export function bearerTokenOf(headers: Headers): string | null {
  const value = headers.get("authorization");
  if (!value?.toLowerCase().startsWith("bearer ")) return null;
  return value.slice(7).trim() || null;
}

/**
 * The token session of a request's bearer access token: 401 without one, 403 `bad_jwt` for a
 * token that does not verify, 403 `session_not_found` once the session ended (sign-out, ban,
 * reuse detection, "sign out everywhere").
 */
export async function requireTokenSession(headers: Headers): Promise<LiveTokenSession> {
  const token = bearerTokenOf(headers);
  if (!token) {
    throw new AuthApiError(401, "no_authorization", "This endpoint requires a Bearer token");
  }
  const claims = await verifyAccessToken(token);
  if (!claims) {
    throw new AuthApiError(
      403,
      "bad_jwt",
      "invalid JWT: unable to parse or verify signature, token is expired or malformed",
    );
  }
  const live = await loadTokenSession(claims.session_id);
  if (!live || live.userId !== claims.sub) {
    throw new AuthApiError(403, "session_not_found", SESSION_NOT_FOUND);
  }
  return live;
}

/** Ends a token session and its backing better-auth session (reuse detection, sign-out). */
export async function endTokenSession(id: string): Promise<void> {
  const db = getDb();
  const [row] = await db.delete(authTokenSessions).where(eq(authTokenSessions.id, id)).returning({
    userId: authTokenSessions.userId,
    authSessionId: authTokenSessions.authSessionId,
  });
  if (!row) return;
  if (row.authSessionId)
    await db.delete(sessionTable).where(eq(sessionTable.id, row.authSessionId));
  await sessionsEnded(row.userId);
}

/** Drops token sessions whose backing session is gone (they can never be used again). */
export async function pruneEndedTokenSessions(userId: string): Promise<void> {
  await getDb()
    .delete(authTokenSessions)
    .where(and(eq(authTokenSessions.userId, userId), isNull(authTokenSessions.authSessionId)));
}

const REFRESH_NOT_FOUND = "Invalid Refresh Token: Refresh Token Not Found";

/**
 * `grant_type=refresh_token`: spends the token and issues its successor. A token spent less
 * than REUSE_GRACE_SECONDS ago (two tabs refreshing at once) gets a sibling; spent longer ago
 * it means the token was copied, and the whole session ends for both holders.
 */
export async function refreshTokenSession(refreshToken: string): Promise<SupabaseSession> {
  const db = getDb();
  const hash = hashToken(refreshToken);
  const [row] = await db
    .select({
      id: authRefreshTokens.id,
      tokenSessionId: authRefreshTokens.tokenSessionId,
    })
    .from(authRefreshTokens)
    .where(eq(authRefreshTokens.tokenHash, hash));
  if (!row) throw new AuthApiError(400, "refresh_token_not_found", REFRESH_NOT_FOUND);
  const live = await loadTokenSession(row.tokenSessionId);
  if (!live) {
    await db.delete(authTokenSessions).where(eq(authTokenSessions.id, row.tokenSessionId));
    throw new AuthApiError(400, "refresh_token_not_found", REFRESH_NOT_FOUND);
  }
  // Spend it atomically: of two racing requests exactly one wins.
  const [spent] = await db
    .update(authRefreshTokens)
    .set({ usedAt: sql`now()` })
    .where(and(eq(authRefreshTokens.id, row.id), isNull(authRefreshTokens.usedAt)))
    .returning({ id: authRefreshTokens.id });
  const parentId = row.id;
  if (!spent) {
    const [recent] = await db
      .select({ id: authRefreshTokens.id })
      .from(authRefreshTokens)
      .where(
        and(
          eq(authRefreshTokens.id, row.id),
          sql`${authRefreshTokens.usedAt} > now() - make_interval(secs => ${REUSE_GRACE_SECONDS})`,
        ),
      );
    if (!recent) {
      logger.warn(
        { userId: live.userId, tokenSessionId: live.id },
        "refresh token reused: session revoked",
      );
      await endTokenSession(live.id);
      throw new AuthApiError(
        400,
        "refresh_token_already_used",
        "Invalid Refresh Token: Already Used",
      );
    }
  }
  const next = newRefreshToken();
  await db.insert(authRefreshTokens).values({
    tokenSessionId: live.id,
    tokenHash: hashToken(next),
    parentId,
  });
  await db
    .update(authTokenSessions)
    .set({ refreshedAt: sql`now()` })
    .where(eq(authTokenSessions.id, live.id));
  return sessionObject(live, next);
}

/** The token sessions of a person other than `keepId` (for `scope=others`). */
export async function endOtherTokenSessions(userId: string, keepId: string): Promise<void> {
  await getDb()
    .delete(authTokenSessions)
    .where(and(eq(authTokenSessions.userId, userId), ne(authTokenSessions.id, keepId)));
}

export async function endAllTokenSessions(userId: string): Promise<void> {
  await getDb().delete(authTokenSessions).where(eq(authTokenSessions.userId, userId));
}

/** The service-role key lives as long as Supabase's: ten years, or until its signing key is rotated out. */
const SERVICE_KEY_YEARS = 10;
export const SERVICE_ROLE = "service_role";

/** The service-role key (`npm run auth:service-key`): a JWT with `role: service_role`. */
export async function signServiceRoleKey(): Promise<string> {
  const keys = await getSigningKeys(getEnv());
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: SERVICE_ROLE })
    .setProtectedHeader({ alg: JWT_ALG, kid: keys.current.kid, typ: "JWT" })
    .setIssuer(issuer())
    .setIssuedAt(now)
    .setExpirationTime(now + SERVICE_KEY_YEARS * 365 * 24 * 3600)
    .sign(keys.current.key);
}

/** The role claim of a bearer token that verifies with the instance's keys (any audience). */
export async function verifiedRole(token: string): Promise<string | null> {
  if (token.split(".").length !== 3) return null;
  try {
    const keys = await keysFor(token);
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = header.kid ? keys.verify.get(header.kid) : undefined;
        if (!key) throw new joseErrors.JWKSNoMatchingKey();
        return key;
      },
      { algorithms: [JWT_ALG], issuer: issuer() },
    );
    return typeof payload.role === "string" ? payload.role : null;
  } catch {
    return null;
  }
}
