import { APIError } from "better-auth/api";
import { eq, sql } from "drizzle-orm";
import { type AppErrorCode, appErrorCodeForStatus } from "~/core/errors";
import { publishLive } from "~/core/live-bus.server";
import { logger } from "~/core/logger.server";
import { shownName } from "~/core/person";
import { AUTH_LIMITS, checkRateLimits } from "~/core/rate-limit/rate-limit.server";
import { getDb } from "~/db/client.server";
import { notifications, profiles, user as userTable } from "~/db/schema";
import { unreadCountSql } from "~/features/notifications/index.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import type { Viewer } from "~/lib/context.server";
import type { FieldErrors } from "~/lib/forms";
import { getAuth } from "./better-auth.server";
import { callAuth, cookiesOf } from "./call-auth.server";
import { deviceCookieFor, knownDeviceId } from "./device-cookie.server";
import {
  type WeakPasswordReason,
  weakPasswordMessages,
  weakPasswordReasons,
} from "./password-policy.server";
import { isUsernameAvailable } from "./profiles.server";
import { sessionViewerFromCookies } from "./session-viewer.server";

export const INVALID_CREDENTIALS = "That e-mail and password do not match an account.";
export const INVALID_PHONE_CREDENTIALS = "That phone number and password do not match an account.";

/**
 * A refused account action: its AppError code (which gives the HTTP status), the spec's error
 * code for machines (`weak_password`, `invalid_code` …), and what the person reads — `message`
 * for the whole form, `fieldErrors` under the fields (ADR 023).
 */
export interface AuthFailure {
  ok: false;
  kind: AppErrorCode;
  code?: string;
  message?: string;
  fieldErrors?: FieldErrors;
  reasons?: WeakPasswordReason[];
  retryAfterSeconds?: number;
}

export type AuthResult =
  | {
      ok: true;
      headers: Headers;
      /** Signed in with a password, but a second factor is still needed (no session yet). */
      needsSecondFactor?: boolean;
    }
  | AuthFailure;

export function clientOf(headers: Headers): string {
  return headers.get(CLIENT_IP_HEADER) ?? "unknown";
}

export function rateLimited(retry: number): AuthFailure {
  const minutes = Math.max(1, Math.ceil(retry / 60));
  return {
    ok: false,
    kind: "rate_limited",
    code: "rate_limited",
    retryAfterSeconds: retry,
    message: `Too many attempts. Please wait ${minutes === 1 ? "a minute" : `${minutes} minutes`} and try again.`,
  };
}

/**
 * The refusal of a weak password (`weak_password` with its reasons, shown next to `field`), or
 * null when the password is strong enough. `related` are the person's own words (e-mail,
 * username …), which never make a good password.
 */
export function refuseWeakPassword(
  password: string,
  related: string[],
  field = "password",
): AuthFailure | null {
  const reasons = weakPasswordReasons(password, related);
  if (reasons.length === 0) return null;
  return {
    ok: false,
    kind: "invalid",
    code: "weak_password",
    reasons,
    fieldErrors: { [field]: reasons.map((r) => weakPasswordMessages[r]) },
  };
}

export interface SignUpOptions {
  email: string;
  password: string;
  username: string;
  displayName: string;
  headers: Headers;
}

/**
 * Creates an account and sends the confirmation mail. An address that already has an account
 * gets the same answer (and its owner a mail instead), so sign-up reveals nothing.
 */
/** The answer when the chosen username belongs to someone (usernames are public anyway). */
export function usernameTaken(): AuthFailure {
  return {
    ok: false,
    kind: "invalid",
    code: "username_taken",
    fieldErrors: { username: ["This username is taken."] },
  };
}

export async function signUpWithEmail(options: SignUpOptions): Promise<AuthResult> {
  const limited = await checkRateLimits([
    [`sign-up:ip:${clientOf(options.headers)}`, AUTH_LIMITS.signUpPerAddress],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const weak = refuseWeakPassword(options.password, [
    options.email,
    options.username,
    options.displayName,
  ]);
  if (weak) return weak;
  // Checked before the address is looked at, so a taken username gets the same answer whether
  // or not the e-mail has an account (better-auth answers a known address with a quiet success).
  if (!(await isUsernameAvailable(options.username))) return usernameTaken();
  const answer = await callAuth((api) =>
    api.signUpEmail({
      body: {
        email: options.email,
        password: options.password,
        name: options.displayName,
        username: options.username,
      },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (answer.ok) return { ok: true, headers: answer.headers };
  if (answer.retryAfterSeconds !== undefined) return rateLimited(answer.retryAfterSeconds);
  const { message, code, status } = answer;
  if (message === "username_taken") return usernameTaken();
  if (message === "invalid_username") {
    return {
      ok: false,
      kind: "invalid",
      code: "invalid_username",
      fieldErrors: { username: ["Use 3–30 letters, digits, “_” or “.”."] },
    };
  }
  logger.warn({ status, code, message }, "sign-up refused");
  return {
    ok: false,
    kind: appErrorCodeForStatus(status),
    code,
    message: message ?? "Sign-up failed. Please try again.",
  };
}

/** The answer to a password or code sign-in that worked (maybe pending a second factor). */
export async function signedIn(response: Response): Promise<AuthResult> {
  const headers = cookiesOf(response);
  const body = (await response
    .clone()
    .json()
    .catch(() => ({}))) as { twoFactorRedirect?: boolean };
  return { ok: true, headers, needsSecondFactor: body.twoFactorRedirect === true };
}

export interface SignInOptions {
  email?: string;
  phone?: string;
  password: string;
  headers: Headers;
}

/**
 * Signs in with e-mail or phone and password; unknown accounts and wrong passwords look the
 * same. With two-factor sign-in on, no session is created yet: `needsSecondFactor` is set and
 * the headers carry the short-lived challenge cookie.
 */
export async function signInWithEmail(options: SignInOptions): Promise<AuthResult> {
  const account = (options.email ?? options.phone ?? "").toLowerCase();
  const device = knownDeviceId(options.headers, account);
  const limited = await checkRateLimits([
    [`sign-in:ip:${clientOf(options.headers)}`, AUTH_LIMITS.signInPerAddress],
    device
      ? [`sign-in:device:${device}`, AUTH_LIMITS.signInPerDevice]
      : [`sign-in:account:${account}`, AUTH_LIMITS.signInPerAccount],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const answer = await callAuth((api) =>
    options.phone
      ? api.signInPhoneNumber({
          body: { phoneNumber: options.phone, password: options.password },
          headers: options.headers,
          asResponse: true,
        })
      : api.signInEmail({
          body: { email: options.email ?? "", password: options.password },
          headers: options.headers,
          asResponse: true,
        }),
  );
  if (answer.ok) {
    const result = await signedIn(answer.response);
    if (result.ok) result.headers.append("Set-Cookie", deviceCookieFor(account));
    return result;
  }
  if (answer.retryAfterSeconds !== undefined) return rateLimited(answer.retryAfterSeconds);
  if (answer.code === "EMAIL_NOT_VERIFIED") {
    return {
      ok: false,
      kind: "forbidden",
      code: "email_not_verified",
      message: "Confirm your e-mail first: we have sent you a new confirmation link.",
    };
  }
  return {
    ok: false,
    kind: "unauthenticated",
    code: "invalid_credentials",
    message: options.phone ? INVALID_PHONE_CREDENTIALS : INVALID_CREDENTIALS,
  };
}

/** Confirms an e-mail address from the link's token and signs the person in. */
export async function confirmEmail(options: {
  token: string;
  headers: Headers;
}): Promise<AuthResult> {
  const limited = await checkRateLimits([
    [`confirm:ip:${clientOf(options.headers)}`, AUTH_LIMITS.confirmPerAddress],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const answer = await callAuth((api) =>
    api.verifyEmail({
      query: { token: options.token },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (answer.ok) return { ok: true, headers: answer.headers };
  if (answer.retryAfterSeconds !== undefined) return rateLimited(answer.retryAfterSeconds);
  return {
    ok: false,
    kind: "invalid",
    code: "invalid_link",
    message: "This confirmation link has expired, was already used, or is not valid.",
  };
}

/** Sends a fresh confirmation link (silently does nothing for unknown or confirmed addresses). */
export async function resendConfirmation(options: {
  email: string;
  headers: Headers;
}): Promise<AuthResult> {
  const limited = await checkRateLimits([
    [`resend:ip:${clientOf(options.headers)}`, AUTH_LIMITS.resendPerAddress],
    [`resend:account:${options.email.toLowerCase()}`, AUTH_LIMITS.resendPerAddress],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const answer = await callAuth((api) =>
    api.sendVerificationEmail({
      body: { email: options.email, callbackURL: "/feed" },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!answer.ok && answer.retryAfterSeconds !== undefined) {
    return rateLimited(answer.retryAfterSeconds);
  }
  return { ok: true, headers: new Headers() };
}

/**
 * Tells every instance that some of this person's sessions ended (sign-out, password change,
 * ban, deletion): each re-checks which of its open streams still have a session and closes
 * the others. The hub also re-checks on every heartbeat, for endings nobody announced.
 */
export async function sessionsEnded(userId: string): Promise<void> {
  await publishLive(getDb(), { t: "s", u: userId });
}

/** Signs out this device, or every device when `everywhere`. */
export async function signOut(options: {
  headers: Headers;
  everywhere?: boolean;
  /** Whose live streams to close when signing out everywhere. */
  userId?: string;
}): Promise<Headers> {
  if (options.everywhere) {
    await getAuth()
      .api.revokeSessions({ headers: options.headers })
      .catch(() => {});
  }
  const answer = await callAuth((api) =>
    api.signOut({ headers: options.headers, asResponse: true }),
  );
  // The ended sessions' live streams close on every instance; their reconnects get a 401.
  if (options.userId) await sessionsEnded(options.userId);
  return cookiesOf(answer.response);
}

/**
 * The viewer of a request and any cookie the session layer wants to refresh (sliding renewal).
 * Requests without a session cookie cost no query.
 */
export async function getViewerFromHeaders(
  headers: Headers,
): Promise<{ viewer: Viewer | null; sessionId: string | null; setCookies: string[] }> {
  const cookieHeader = headers.get("Cookie") ?? "";
  if (!/(?:^|;\s*)(?:__Secure-)?soundtrail\.session_token=/.test(cookieHeader)) {
    return { viewer: null, sessionId: null, setCookies: [] };
  }
  // One statement when getSession would change nothing (session-viewer.server.ts).
  const known = await sessionViewerFromCookies(cookieHeader);
  if (known) return { ...known, setCookies: [] };
  const { headers: responseHeaders, response } = await getAuth().api.getSession({
    headers,
    returnHeaders: true,
  });
  const setCookies = responseHeaders.getSetCookie();
  if (!response) return { viewer: null, sessionId: null, setCookies };
  const viewer = await loadViewer(response.user.id);
  if (!viewer) return { viewer: null, sessionId: null, setCookies };
  return { viewer, sessionId: response.session.id, setCookies };
}

/**
 * The viewer for a signed-in person, read fresh (a ban takes effect on the very next request):
 * null for a banned account. Shared by the cookie session and the token API's bearer tokens.
 */
export async function loadViewer(userId: string): Promise<Viewer | null> {
  const [profile] = await getDb()
    .select({
      username: profiles.username,
      displayName: profiles.displayName,
      avatarUrl: profiles.avatarUrl,
      roles: profiles.roles,
      defaultAudience: profiles.defaultAudience,
      banned: userTable.banned,
      banExpires: userTable.banExpires,
      isAnonymous: userTable.isAnonymous,
      // The header's badge and where the live stream starts, in the same statement.
      unread: unreadCountSql(userId),
      notificationsSeq: sql<string>`(select coalesce(max(${notifications.seq}), 0)
        from ${notifications} where ${notifications.recipientId} = ${userId})`,
    })
    .from(profiles)
    .innerJoin(userTable, eq(userTable.id, profiles.userId))
    .where(eq(profiles.userId, userId));
  if (!profile) {
    logger.error({ userId }, "session without a profile");
    return null;
  }
  if (profile.banned && (!profile.banExpires || profile.banExpires.getTime() > Date.now())) {
    return null;
  }
  return {
    id: userId,
    username: profile.username,
    displayName: shownName(profile),
    avatarUrl: profile.avatarUrl,
    isAdmin: profile.roles.includes("admin"),
    isGuest: profile.isAnonymous === true,
    unreadNotifications: Number(profile.unread),
    notificationsSeq: Number(profile.notificationsSeq),
    defaultAudience: profile.defaultAudience,
  };
}

export { APIError };
