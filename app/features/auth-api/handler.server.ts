import { createHash, randomBytes, randomInt, randomUUID } from "node:crypto";
import { and, eq, like, sql } from "drizzle-orm";
import { z } from "zod";
import { statusForAppError } from "~/core/errors";
import { logger } from "~/core/logger.server";
import { AUTH_LIMITS, checkRateLimits } from "~/core/rate-limit/rate-limit.server";
import { getDb } from "~/db/client.server";
import {
  profiles,
  session as sessionTable,
  twoFactor,
  user as userTable,
  verification,
} from "~/db/schema";
import { isDatabaseUnavailable } from "~/db/unavailable.server";
import {
  type AuthFailure,
  type AuthResult,
  changeEmail,
  changePassword,
  claimTotpCode,
  configuredProviders,
  confirmEmail,
  confirmPhoneChange,
  confirmPhoneSignUp,
  confirmTotpEnrollment,
  continueAsGuest,
  disableTwoFactor,
  disableTwoFactorForRecentSession,
  getAuth,
  getSecurityOverview,
  qrCodeOf,
  releaseTotpCode,
  requestPasswordReset,
  requestPhoneChange,
  requestSignInCode,
  resendConfirmation,
  resetPassword,
  sessionsEnded,
  signInWithCode,
  signInWithEmail,
  signUpWithEmail,
  signUpWithPhone,
  startOAuth,
  startTotpEnrollment,
  startTotpEnrollmentForRecentSession,
} from "~/features/auth/index.server";
import { renderEmail } from "~/features/mail";
import { sendMail } from "~/features/mail/index.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { getEnv } from "~/lib/env.server";
import {
  API_VERSION_HEADER,
  AuthApiError,
  errorBody,
  INVALID_LOGIN,
  MISSING_CONTACT,
  MISSING_CREDENTIALS,
  rateLimitedError,
  requestedApiVersion,
  validationFailed,
} from "./errors.server";
import { getSigningKeys } from "./keys.server";
import {
  type AmrMethod,
  endAllTokenSessions,
  endOtherTokenSessions,
  endTokenSession,
  headersForSession,
  rebindTokenSession,
  refreshTokenSession,
  requireTokenSession,
  type SupabaseSession,
  sessionTokenFromCookies,
  startTokenSession,
} from "./tokens.server";
import { supabaseUser, TOTP_FRIENDLY_NAME } from "./users.server";

/** The path prefix of the token API. */
export const AUTH_API_PREFIX = "/auth/v1";

/** Apps call from anywhere; no cookie is ever read or set here, so `*` is safe. */
const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "x-sb-error-code, x-supabase-api-version, retry-after",
};

const PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  "Access-Control-Allow-Methods": "GET, POST, PUT, DELETE, OPTIONS",
  "Access-Control-Allow-Headers":
    "authorization, apikey, content-type, x-client-info, x-supabase-api-version",
  "Access-Control-Max-Age": "86400",
};

type Body = Record<string, unknown>;

function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}) {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      ...CORS_HEADERS,
      ...init.headers,
    },
  });
}

async function readBody(request: Request): Promise<Body> {
  if (request.method === "GET" || request.method === "HEAD") return {};
  const text = await request.text();
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Body;
  } catch {
    // answered below
  }
  throw new AuthApiError(400, "bad_json", "Could not parse request body as JSON");
}

function parse<T extends z.ZodType>(schema: T, body: Body): z.infer<T> {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw validationFailed(
      issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "Invalid request",
    );
  }
  return result.data;
}

const emailField = z.string().trim().toLowerCase().max(320).pipe(z.email());
const phoneField = z
  .string()
  .trim()
  .transform((v) => (v.startsWith("+") ? v : `+${v}`))
  .pipe(z.string().regex(/^\+[1-9]\d{6,14}$/, "must be a phone number in E.164 form"));
const optionalText = z.string().max(1000).optional().nullable();

function firstMessage(result: AuthFailure): string {
  return (
    result.message ??
    Object.values(result.fieldErrors ?? {}).flat()[0] ??
    "The request was refused."
  );
}

/** An account helper's refusal, in Supabase's codes and messages. */
function fromAuthResult(result: AuthFailure): AuthApiError {
  const message = firstMessage(result);
  switch (result.code) {
    case "rate_limited":
      return rateLimitedError(result.retryAfterSeconds);
    case "weak_password":
      return new AuthApiError(422, "weak_password", `Password is too weak: ${message}`, {
        weak_password: { reasons: result.reasons ?? [], message },
      });
    case "invalid_credentials":
      return new AuthApiError(400, "invalid_credentials", INVALID_LOGIN);
    case "email_not_verified":
      return new AuthApiError(400, "email_not_confirmed", "Email not confirmed");
    case "invalid_code":
    case "invalid_link":
      return new AuthApiError(403, "otp_expired", "Token has expired or is invalid");
    case "account_banned":
      return new AuthApiError(403, "user_banned", "User is banned");
    case "second_factor_required":
      return new AuthApiError(403, "insufficient_aal", message);
    case "reauthentication_required":
      return new AuthApiError(401, "reauthentication_needed", message);
    case "replayed_code":
      return new AuthApiError(422, "mfa_verification_rejected", message);
    case "challenge_over":
      return new AuthApiError(422, "mfa_challenge_expired", message);
    case "username_taken":
    case "invalid_username":
      return new AuthApiError(422, "validation_failed", message);
    default:
      return new AuthApiError(
        statusForAppError(result.kind) < 500 ? statusForAppError(result.kind) : 400,
        "validation_failed",
        message,
      );
  }
}

function must(result: AuthResult): Extract<AuthResult, { ok: true }> {
  if (!result.ok) throw fromAuthResult(result);
  return result;
}

/** A session from a sign-in helper's cookies: the better-auth session becomes a token session. */
async function sessionFrom(headers: Headers, method: AmrMethod): Promise<SupabaseSession> {
  const token = await sessionTokenFromCookies(headers);
  if (!token) throw new AuthApiError(500, "unexpected_failure", "No session was created");
  return startTokenSession({ authSessionToken: token, method });
}

/** The request's facts that the account helpers need — never its cookies. */
async function cleanHeaders(request: Request): Promise<Headers> {
  return headersForSession(null, request.headers);
}

function suggestedUsername(seed: string): string {
  const base = seed
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, "")
    .slice(0, 20);
  return `${base.length >= 3 ? base : "listener"}_${randomBytes(3).toString("hex")}`;
}

const profileData = z
  .object({
    username: z.string().max(30).optional(),
    display_name: optionalText,
    full_name: optionalText,
    name: optionalText,
  })
  .partial()
  .catch({});

// ---------------------------------------------------------------------------------------------
// Endpoints

async function settings(): Promise<Response> {
  const providers = configuredProviders();
  return json({
    external: {
      email: true,
      phone: true,
      anonymous_users: true,
      spotify: providers.includes("spotify"),
      google: providers.includes("google"),
      github: providers.includes("github"),
    },
    disable_signup: false,
    mailer_autoconfirm: false,
    phone_autoconfirm: false,
    sms_provider: "webhook",
    mfa_enabled: true,
    saml_enabled: false,
  });
}

async function jwks(): Promise<Response> {
  // Read from the table each time: every instance publishes the same set, at once after a rotation.
  const keys = await getSigningKeys(getEnv(), { fresh: true });
  return json(keys.jwks, { headers: { "Cache-Control": "public, max-age=600" } });
}

const signupSchema = z.object({
  email: z.string().optional().nullable(),
  phone: z.string().optional().nullable(),
  password: z.string().max(1000).optional().nullable(),
  data: z.record(z.string(), z.unknown()).optional().nullable(),
});

async function signup(request: Request, body: Body): Promise<Response> {
  const input = parse(signupSchema, body);
  const headers = await cleanHeaders(request);
  if (!input.email && !input.phone) {
    if (input.password) throw validationFailed(MISSING_CREDENTIALS);
    // An empty body is an anonymous sign-up: a guest, exactly as "Continue as guest".
    const guest = must(await continueAsGuest({ headers }));
    return json(await sessionFrom(guest.headers, "anonymous"));
  }
  if (!input.password) throw validationFailed(MISSING_CREDENTIALS);
  const data = profileData.parse(input.data ?? {});
  const displayName = (data.display_name ?? data.full_name ?? data.name ?? "").trim();
  if (input.email) {
    const email = parse(z.object({ email: emailField }), { email: input.email }).email;
    const local = email.split("@")[0] ?? "listener";
    must(
      await signUpWithEmail({
        email,
        password: input.password,
        username: data.username || suggestedUsername(local),
        displayName: displayName || local,
        headers,
      }),
    );
    return json(pendingUser({ email, phone: "", data: input.data ?? {} }));
  }
  const phone = parse(z.object({ phone: phoneField }), { phone: input.phone }).phone;
  must(
    await signUpWithPhone({
      phone,
      password: input.password,
      username: data.username || suggestedUsername("listener"),
      displayName: displayName || "Listener",
      headers,
    }),
  );
  return json(pendingUser({ email: "", phone, data: input.data ?? {} }));
}

/**
 * The answer to a sign-up that waits for confirmation. It is the same whether or not the
 * address already had an account (whose owner is mailed instead), so it reveals nothing.
 */
function pendingUser(options: { email: string; phone: string; data: Record<string, unknown> }) {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    aud: "authenticated",
    role: "authenticated",
    email: options.email,
    phone: options.phone,
    confirmation_sent_at: now,
    app_metadata: {
      provider: options.email ? "email" : "phone",
      providers: [options.email ? "email" : "phone"],
    },
    user_metadata: options.data,
    identities: [],
    is_anonymous: false,
    created_at: now,
    updated_at: now,
  };
}

const passwordGrant = z.object({
  email: z.string().optional().nullable(),
  phone: z.string().optional().nullable(),
  password: z.string().max(1000).optional().nullable(),
});

async function token(request: Request, body: Body): Promise<Response> {
  const grant = new URL(request.url).searchParams.get("grant_type");
  if (grant === "password") {
    const input = parse(passwordGrant, body);
    if ((!input.email && !input.phone) || !input.password) {
      throw validationFailed(MISSING_CREDENTIALS);
    }
    const headers = await cleanHeaders(request);
    const email = input.email ? emailField.safeParse(input.email) : null;
    const phone = !input.email && input.phone ? phoneField.safeParse(input.phone) : null;
    if ((email && !email.success) || (phone && !phone.success)) {
      throw new AuthApiError(400, "invalid_credentials", INVALID_LOGIN);
    }
    const result = must(
      await signInWithEmail({
        email: email?.data,
        phone: phone?.data,
        password: input.password,
        headers,
      }),
    );
    if (!result.needsSecondFactor) return json(await sessionFrom(result.headers, "password"));
    // Two-step accounts: the password was right, and like Supabase the answer is an `aal1`
    // session whose only use is to reach `aal2` (factors/{id}/verify). Data routes refuse it.
    const owner = await accountByContact(email?.data, phone?.data);
    if (!owner) throw new AuthApiError(400, "invalid_credentials", INVALID_LOGIN);
    const ctx = await getAuth().$context;
    const created = await ctx.internalAdapter.createSession(owner, false, {
      ipAddress: headers.get(CLIENT_IP_HEADER) ?? "",
      userAgent: headers.get("user-agent") ?? "",
      aal: "aal1",
      authMethod: "password",
    });
    if (!created) throw new AuthApiError(500, "unexpected_failure", "No session was created");
    return json(await startTokenSession({ authSessionToken: created.token, method: "password" }));
  }
  if (grant === "refresh_token") {
    const input = parse(z.object({ refresh_token: z.string().min(1).max(200) }), body);
    const limited = await checkRateLimits([
      [`token-refresh:ip:${request.headers.get(CLIENT_IP_HEADER) ?? "unknown"}`, REFRESH_LIMIT],
    ]);
    if (limited) throw rateLimitedError(limited.retryAfterSeconds);
    return json(await refreshTokenSession(input.refresh_token));
  }
  if (grant === "pkce") {
    const input = parse(
      z.object({
        auth_code: z.string().min(1).max(200),
        code_verifier: z.string().min(43).max(128),
      }),
      body,
    );
    return json(await redeemAuthCode(input.auth_code, input.code_verifier));
  }
  throw validationFailed(
    "unsupported_grant_type: grant_type must be password, refresh_token or pkce",
  );
}

/** Refreshes per client address: generous (every open app refreshes hourly), but bounded. */
const REFRESH_LIMIT = { limit: 60, windowSeconds: 60 };

async function accountByContact(
  email: string | undefined,
  phone: string | undefined,
): Promise<string | null> {
  const [row] = await getDb()
    .select({ id: userTable.id })
    .from(userTable)
    .where(
      email
        ? sql`lower(${userTable.email}) = ${email.toLowerCase()}`
        : eq(userTable.phoneNumber, phone ?? ""),
    );
  return row?.id ?? null;
}

async function getUser(request: Request): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  const user = await supabaseUser(live.userId);
  if (!user) throw new AuthApiError(404, "user_not_found", "User not found");
  return json(user);
}

const updateUserSchema = z.object({
  email: z.string().optional().nullable(),
  phone: z.string().optional().nullable(),
  password: z.string().max(1000).optional().nullable(),
  current_password: z.string().max(1000).optional().nullable(),
  nonce: z.string().optional().nullable(),
  data: z.record(z.string(), z.unknown()).optional().nullable(),
});

async function updateUser(request: Request, body: Body): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  const input = parse(updateUserSchema, body);
  const headers = await headersForSession(live.authSessionToken, request.headers);
  if (input.password && !input.current_password && isFreshRecovery(live.amr)) {
    await setPasswordWithoutCurrent(request, live, input.password, "recovery");
  } else if (input.password && !input.current_password && input.nonce) {
    await consumeReauthNonce(live.userId, input.nonce);
    await setPasswordWithoutCurrent(request, live, input.password, "otp");
  } else if (input.password) {
    if (!input.current_password) {
      throw new AuthApiError(
        401,
        "reauthentication_needed",
        "Password update requires the current password (current_password)",
      );
    }
    if (input.password === input.current_password) {
      throw new AuthApiError(
        422,
        "same_password",
        "New password should be different from the old password.",
      );
    }
    const changed = must(
      await changePassword({
        headers,
        currentPassword: input.current_password,
        newPassword: input.password,
        signOutOthers: true,
      }),
    );
    // The other devices were signed out; this one continues on the new session row.
    await endOtherTokenSessions(live.userId, live.id);
    await rebindTokenSession({
      tokenSessionId: live.id,
      authSessionToken: await sessionTokenFromCookies(changed.headers),
    });
  }
  if (input.email) {
    const email = parse(z.object({ email: emailField }), { email: input.email }).email;
    must(await changeEmail({ headers, newEmail: email }));
  }
  if (input.phone) {
    // Texts a code to the new number; POST /verify with type "phone_change" finishes it.
    const phone = parse(z.object({ phone: phoneField }), { phone: input.phone }).phone;
    must(await requestPhoneChange({ headers, phone }));
  }
  if (input.data) {
    const data = profileData.parse(input.data);
    const displayName = (data.display_name ?? data.full_name ?? data.name)?.trim();
    if (displayName) {
      const name = displayName.slice(0, 50);
      await getDb().transaction(async (tx) => {
        await tx.update(userTable).set({ name }).where(eq(userTable.id, live.userId));
        await tx
          .update(profiles)
          .set({ displayName: name })
          .where(eq(profiles.userId, live.userId));
      });
    }
  }
  const user = await supabaseUser(live.userId);
  return json(user);
}

async function logout(request: Request): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  const scope = new URL(request.url).searchParams.get("scope") ?? "global";
  if (!["global", "local", "others"].includes(scope)) {
    throw validationFailed("scope must be global, local or others");
  }
  const headers = await headersForSession(live.authSessionToken, request.headers);
  const auth = getAuth();
  if (scope === "local") {
    await endTokenSession(live.id);
  } else if (scope === "others") {
    // The same better-auth call as Settings → "sign out other sessions".
    await auth.api.revokeOtherSessions({ headers });
    await endOtherTokenSessions(live.userId, live.id);
    await sessionsEnded(live.userId);
  } else {
    await auth.api.revokeSessions({ headers });
    await endAllTokenSessions(live.userId);
    await sessionsEnded(live.userId);
  }
  return new Response(null, { status: 204, headers: CORS_HEADERS });
}

async function recover(request: Request, body: Body): Promise<Response> {
  const input = parse(z.object({ email: z.string().optional().nullable() }), body);
  if (!input.email) throw validationFailed(MISSING_CONTACT);
  const email = parse(z.object({ email: emailField }), { email: input.email }).email;
  must(await requestPasswordReset({ email, headers: await cleanHeaders(request) }));
  return json({});
}

async function otp(request: Request, body: Body): Promise<Response> {
  const input = parse(
    z.object({
      email: z.string().optional().nullable(),
      phone: z.string().optional().nullable(),
      create_user: z.boolean().optional(),
    }),
    body,
  );
  if (!input.email && !input.phone) throw validationFailed(MISSING_CONTACT);
  const headers = await cleanHeaders(request);
  if (input.email) {
    const email = parse(z.object({ email: emailField }), { email: input.email }).email;
    must(await requestSignInCode({ channel: "email", to: email, headers }));
    return json({});
  }
  const phone = parse(z.object({ phone: phoneField }), { phone: input.phone }).phone;
  must(await requestSignInCode({ channel: "sms", to: phone, headers }));
  return json({ message_id: null });
}

const verifySchema = z.object({
  type: z.enum(["email", "magiclink", "signup", "sms", "phone_change", "recovery", "invite"]),
  email: z.string().optional().nullable(),
  phone: z.string().optional().nullable(),
  token: z.string().max(500).optional().nullable(),
  token_hash: z.string().max(2000).optional().nullable(),
});

async function verify(request: Request, body: Body): Promise<Response> {
  const input = parse(verifySchema, body);
  const headers = await cleanHeaders(request);
  if (input.token_hash && (input.type === "signup" || input.type === "email")) {
    // The confirmation link's token, as mailed by sign-up.
    const confirmed = must(await confirmEmail({ token: input.token_hash, headers }));
    return json(await sessionFrom(confirmed.headers, "otp"));
  }
  if (input.type === "recovery") return json(await verifyRecovery(request, input, headers));
  if (input.type === "phone_change") return json(await verifyPhoneChange(request, input));
  if (!input.token) throw validationFailed("Verify requires a token or a token hash");
  if (input.type === "sms") {
    if (!input.phone) throw validationFailed(MISSING_CONTACT);
    const phone = parse(z.object({ phone: phoneField }), { phone: input.phone }).phone;
    // A pending phone sign-up is finished by its code; otherwise the code signs in.
    const signUp = await confirmPhoneSignUp({ phone, code: input.token, headers });
    const result = signUp.ok
      ? signUp
      : must(await signInWithCode({ channel: "sms", to: phone, code: input.token, headers }));
    return json(await sessionFrom(result.headers, "otp"));
  }
  if (input.type === "email" || input.type === "magiclink") {
    if (!input.email) throw validationFailed(MISSING_CONTACT);
    const email = parse(z.object({ email: emailField }), { email: input.email }).email;
    const result = must(
      await signInWithCode({ channel: "email", to: email, code: input.token, headers }),
    );
    return json(await sessionFrom(result.headers, "otp"));
  }
  throw new AuthApiError(403, "otp_expired", "Token has expired or is invalid");
}

/** The code texted by `PUT /user` with `phone`: the number becomes the account's. */
async function verifyPhoneChange(
  request: Request,
  input: z.infer<typeof verifySchema>,
): Promise<SupabaseSession> {
  const live = await requireTokenSession(request.headers);
  if (!input.phone) throw validationFailed(MISSING_CONTACT);
  if (!input.token) throw validationFailed("Verify requires a token or a token hash");
  const phone = parse(z.object({ phone: phoneField }), { phone: input.phone }).phone;
  const headers = await headersForSession(live.authSessionToken, request.headers);
  const changed = await confirmPhoneChange({ headers, phone, code: input.token });
  if (!changed.ok) throw new AuthApiError(403, "otp_expired", "Token has expired or is invalid");
  return rebindTokenSession({
    tokenSessionId: live.id,
    authSessionToken: await sessionTokenFromCookies(changed.headers),
  });
}

/** How long a recovery session may set a new password without the old one. */
const RECOVERY_WINDOW_S = 10 * 60;

/**
 * The reset link's token (`/auth/reset-password?token=…`, what POST /recover mails) as
 * Supabase's recovery token: used once, it gives an aal1 session whose first use is to set a
 * new password (PUT /user with `password` alone, within RECOVERY_WINDOW_S).
 */
async function verifyRecovery(
  request: Request,
  input: z.infer<typeof verifySchema>,
  headers: Headers,
): Promise<SupabaseSession> {
  const token = input.token_hash ?? input.token;
  if (!token) throw validationFailed("Verify requires a token or a token hash");
  const ctx = await getAuth().$context;
  // Consumed atomically: two requests with the same link cannot both get a session.
  const found = await ctx.internalAdapter.consumeVerificationValue(`reset-password:${token}`);
  if (!found) throw new AuthApiError(403, "otp_expired", "Token has expired or is invalid");
  const [owner] = await getDb()
    .select({ id: userTable.id, banned: userTable.banned })
    .from(userTable)
    .where(eq(userTable.id, found.value));
  if (!owner) throw new AuthApiError(403, "otp_expired", "Token has expired or is invalid");
  if (owner.banned) throw new AuthApiError(403, "user_banned", "User is banned");
  const created = await ctx.internalAdapter.createSession(owner.id, false, {
    ipAddress: headers.get(CLIENT_IP_HEADER) ?? "",
    userAgent: request.headers.get("user-agent") ?? "",
    aal: "aal1",
    authMethod: "recovery",
  });
  if (!created) throw new AuthApiError(500, "unexpected_failure", "No session was created");
  return startTokenSession({ authSessionToken: created.token, method: "recovery" });
}

/** True when this token session began with a recovery link less than RECOVERY_WINDOW_S ago. */
function isFreshRecovery(amr: { method: string; timestamp: number }[]): boolean {
  const now = Math.floor(Date.now() / 1000);
  return amr.some(
    (entry) => entry.method === "recovery" && now - entry.timestamp < RECOVERY_WINDOW_S,
  );
}

/**
 * Sets the password of a recovery session, or of one that gave the mailed reauthentication
 * code, through the same path as the reset page
 * (`resetPassword`: the weak-password check, every session of the account signed out), with
 * a one-time reset token minted for this call; then this session continues on a new one.
 */
async function setPasswordWithoutCurrent(
  request: Request,
  live: { id: string; userId: string },
  password: string,
  method: AmrMethod,
): Promise<void> {
  const ctx = await getAuth().$context;
  const token = randomBytes(24).toString("base64url");
  await ctx.internalAdapter.createVerificationValue({
    identifier: `reset-password:${token}`,
    value: live.userId,
    expiresAt: new Date(Date.now() + 60_000),
  });
  const headers = await cleanHeaders(request);
  must(await resetPassword({ token, password, headers }));
  const created = await ctx.internalAdapter.createSession(live.userId, false, {
    ipAddress: headers.get(CLIENT_IP_HEADER) ?? "",
    userAgent: request.headers.get("user-agent") ?? "",
    aal: "aal1",
    authMethod: method,
  });
  if (!created) throw new AuthApiError(500, "unexpected_failure", "No session was created");
  await endOtherTokenSessions(live.userId, live.id);
  await rebindTokenSession({ tokenSessionId: live.id, authSessionToken: created.token });
}

async function resend(request: Request, body: Body): Promise<Response> {
  const input = parse(
    z.object({
      type: z.enum(["signup", "email_change", "sms", "phone_change"]),
      email: z.string().optional().nullable(),
      phone: z.string().optional().nullable(),
    }),
    body,
  );
  if (input.type !== "signup" || !input.email) {
    if (!input.email && !input.phone) throw validationFailed(MISSING_CONTACT);
    throw validationFailed("Only sign-up confirmations can be sent again here");
  }
  const email = parse(z.object({ email: emailField }), { email: input.email }).email;
  must(await resendConfirmation({ email, headers: await cleanHeaders(request) }));
  return json({});
}

/** How long the code GET /reauthenticate mails may be used (PUT /user with `nonce`). */
const REAUTH_NONCE_TTL_S = 10 * 60;

function reauthIdentifier(userId: string, nonce: string): string {
  return `auth-api-reauth:${userId}:${createHash("sha256").update(nonce).digest("hex")}`;
}

/**
 * Supabase's secure password change: mails a six-digit code that `PUT /user` takes as `nonce`
 * instead of the current password. One code at a time; it works once, for 10 minutes.
 */
async function reauthenticate(request: Request): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  const [owner] = await getDb()
    .select({
      email: userTable.email,
      verified: userTable.emailVerified,
      isAnonymous: userTable.isAnonymous,
    })
    .from(userTable)
    .where(eq(userTable.id, live.userId));
  if (!owner?.email || !owner.verified || owner.isAnonymous) {
    throw validationFailed("Reauthentication requires a confirmed e-mail address");
  }
  const limited = await checkRateLimits([
    [`code-send:to:${owner.email.toLowerCase()}`, AUTH_LIMITS.sendCodePerRecipient],
  ]);
  if (limited) throw rateLimitedError(limited.retryAfterSeconds);
  const nonce = String(randomInt(0, 1_000_000)).padStart(6, "0");
  await getDb()
    .delete(verification)
    .where(like(verification.identifier, `auth-api-reauth:${live.userId}:%`));
  const ctx = await getAuth().$context;
  await ctx.internalAdapter.createVerificationValue({
    identifier: reauthIdentifier(live.userId, nonce),
    value: live.userId,
    expiresAt: new Date(Date.now() + REAUTH_NONCE_TTL_S * 1000),
  });
  await sendMail({
    to: owner.email,
    subject: `${nonce} is your Soundtrail code`,
    ...renderEmail({
      title: "Confirm it is you",
      paragraphs: [
        `Use this code to confirm a change to your account: ${nonce}`,
        "It works once, for 10 minutes. If you did not ask for it, change your password.",
      ],
    }),
  });
  return json({});
}

/** Takes the mailed reauthentication code once; guesses use the account's re-check budget. */
async function consumeReauthNonce(userId: string, nonce: string): Promise<void> {
  const limited = await checkRateLimits([
    [`reauth:account:${userId}`, AUTH_LIMITS.reauthPerAccount],
  ]);
  if (limited) throw rateLimitedError(limited.retryAfterSeconds);
  const ctx = await getAuth().$context;
  const found = await ctx.internalAdapter.consumeVerificationValue(
    reauthIdentifier(userId, nonce.trim()),
  );
  if (!found) {
    throw new AuthApiError(
      400,
      "reauthentication_not_valid",
      "Verification code not found or has expired",
    );
  }
}

// MFA ------------------------------------------------------------------------------------------

const CHALLENGE_TTL_S = 5 * 60;

async function factorOf(userId: string, factorId: string) {
  const [row] = await getDb()
    .select({ id: twoFactor.id, verified: twoFactor.verified })
    .from(twoFactor)
    .where(and(eq(twoFactor.id, factorId), eq(twoFactor.userId, userId)));
  if (!row) throw new AuthApiError(404, "mfa_factor_not_found", "Factor not found");
  const overview = await getSecurityOverview(userId);
  return { id: row.id, isVerified: overview.isTwoFactorOn };
}

function qrSvg(uri: string): string {
  const { size, path } = qrCodeOf(uri);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}

async function enrollFactor(request: Request, body: Body): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  const input = parse(
    z.object({
      factor_type: z.string(),
      friendly_name: z.string().max(100).optional().nullable(),
      issuer: z.string().max(100).optional().nullable(),
      password: z.string().max(1000).optional().nullable(),
    }),
    body,
  );
  if (input.factor_type !== "totp") {
    throw new AuthApiError(
      422,
      "mfa_phone_enroll_not_enabled",
      "Only TOTP factors can be enrolled here",
    );
  }
  const overview = await getSecurityOverview(live.userId);
  if (overview.isTwoFactorOn) {
    throw new AuthApiError(
      422,
      "too_many_enrolled_mfa_factors",
      "An authenticator app is already enrolled; unenroll it first",
    );
  }
  const headers = await headersForSession(live.authSessionToken, request.headers);
  // With the password, exactly as Settings; without it (supabase-js sends none), only for a
  // session that signed in less than 10 minutes ago.
  const started = input.password
    ? await startTotpEnrollment({ headers, password: input.password })
    : await startTotpEnrollmentForRecentSession({ headers });
  if (!started.ok) throw fromAuthResult(started);
  const [factor] = await getDb()
    .select({ id: twoFactor.id })
    .from(twoFactor)
    .where(eq(twoFactor.userId, live.userId));
  if (!factor) throw new AuthApiError(500, "unexpected_failure", "The factor was not stored");
  return json({
    id: factor.id,
    type: "totp",
    friendly_name: input.friendly_name ?? TOTP_FRIENDLY_NAME,
    totp: { qr_code: qrSvg(started.uri), secret: started.secret, uri: started.uri },
  });
}

function challengeKey(id: string): string {
  return `mfa-challenge:${id}`;
}

async function challengeFactor(request: Request, factorId: string): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  await factorOf(live.userId, factorId);
  const id = randomUUID();
  const expiresAt = new Date(Date.now() + CHALLENGE_TTL_S * 1000);
  await getDb()
    .insert(verification)
    .values({
      id: randomUUID(),
      identifier: challengeKey(id),
      value: JSON.stringify({ factorId, tokenSessionId: live.id }),
      expiresAt,
    });
  return json({ id, type: "totp", expires_at: Math.floor(expiresAt.getTime() / 1000) });
}

async function verifyFactor(request: Request, factorId: string, body: Body): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  const input = parse(
    z.object({ challenge_id: z.string().max(100), code: z.string().trim().max(20) }),
    body,
  );
  const factor = await factorOf(live.userId, factorId);
  const limited = await checkRateLimits([
    [
      `code-verify:ip:${request.headers.get(CLIENT_IP_HEADER) ?? "unknown"}`,
      AUTH_LIMITS.verifyCodePerAddress,
    ],
    [`reauth:account:${live.userId}`, AUTH_LIMITS.reauthPerAccount],
  ]);
  if (limited) throw rateLimitedError(limited.retryAfterSeconds);
  const [challenge] = await getDb()
    .select({ value: verification.value, expiresAt: verification.expiresAt })
    .from(verification)
    .where(eq(verification.identifier, challengeKey(input.challenge_id)));
  const stored = challenge
    ? (JSON.parse(challenge.value) as { factorId: string; tokenSessionId: string })
    : null;
  if (!challenge || !stored || stored.factorId !== factorId || stored.tokenSessionId !== live.id) {
    throw new AuthApiError(404, "mfa_factor_not_found", "Challenge and verify IDs do not match");
  }
  if (challenge.expiresAt.getTime() < Date.now()) {
    throw new AuthApiError(
      422,
      "mfa_challenge_expired",
      "MFA challenge has expired, verify against another challenge or create a new challenge.",
    );
  }
  const headers = await headersForSession(live.authSessionToken, request.headers);
  let session: SupabaseSession;
  if (!factor.isVerified) {
    // First code of a new factor: the same call as Settings → Security (replay guard included).
    const confirmed = await confirmTotpEnrollment({
      userId: live.userId,
      code: input.code,
      headers,
    });
    if (!confirmed.ok) throw mfaFailure(confirmed);
    session = await rebindTokenSession({
      tokenSessionId: live.id,
      authSessionToken: await sessionTokenFromCookies(confirmed.headers),
      addMethod: "totp",
    });
  } else {
    if (!(await claimTotpCode(live.userId, input.code))) {
      throw new AuthApiError(
        422,
        "mfa_verification_rejected",
        "That code was already used. Wait for the next one and try again.",
      );
    }
    const response = await getAuth().api.verifyTOTP({
      body: { code: input.code },
      headers,
      asResponse: true,
    });
    if (!response.ok) {
      await releaseTotpCode(live.userId, input.code);
      throw new AuthApiError(422, "mfa_verification_failed", "Invalid TOTP code entered");
    }
    await getDb()
      .update(sessionTable)
      .set({ aal: "aal2" })
      .where(eq(sessionTable.id, live.authSessionId));
    session = await rebindTokenSession({
      tokenSessionId: live.id,
      authSessionToken: null,
      addMethod: "totp",
    });
  }
  await getDb()
    .delete(verification)
    .where(eq(verification.identifier, challengeKey(input.challenge_id)));
  return json(session);
}

function mfaFailure(result: AuthFailure): AuthApiError {
  if (result.code === "invalid_code") {
    return new AuthApiError(422, "mfa_verification_failed", "Invalid TOTP code entered");
  }
  return fromAuthResult(result);
}

async function unenrollFactor(request: Request, factorId: string, body: Body): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  await factorOf(live.userId, factorId);
  const input = parse(z.object({ password: z.string().max(1000).optional().nullable() }), body);
  if (live.aal !== "aal2") {
    throw new AuthApiError(403, "insufficient_aal", "AAL2 required to unenroll verified factor");
  }
  const headers = await headersForSession(live.authSessionToken, request.headers);
  // As Supabase: an aal2 session may unenrol (supabase-js sends no password). A session that
  // signed in long ago proves it again with the password, as the settings page asks.
  must(
    input.password
      ? await disableTwoFactor({ headers, userId: live.userId, password: input.password })
      : await disableTwoFactorForRecentSession({ headers, userId: live.userId }),
  );
  return json({ id: factorId });
}

// OAuth with PKCE ------------------------------------------------------------------------------

const AUTH_CODE_TTL_S = 5 * 60;

/**
 * Where the one-time code may go: BASE_URL's origin or a prefix listed in AUTH_REDIRECT_URLS.
 * Anything else falls back to BASE_URL, so a flow started by someone else cannot carry a
 * person's code to an address of theirs.
 */
function allowedRedirect(requested: string | null): string {
  const env = getEnv();
  if (!requested) return env.BASE_URL;
  try {
    const target = new URL(requested, env.BASE_URL);
    if (target.origin === new URL(env.BASE_URL).origin) return target.toString();
    const text = target.toString();
    if (env.AUTH_REDIRECT_URLS.some((prefix) => text.startsWith(prefix))) return text;
  } catch {
    // not a URL: the default below
  }
  return env.BASE_URL;
}

function codeChallengeOf(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

async function authorize(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const provider = url.searchParams.get("provider") ?? "";
  if (!configuredProviders().includes(provider as never)) {
    throw validationFailed(`Unsupported provider: provider is not enabled`);
  }
  const challenge = url.searchParams.get("code_challenge");
  const method = (url.searchParams.get("code_challenge_method") ?? "s256").toLowerCase();
  if (!challenge || method !== "s256" || !/^[A-Za-z0-9_-]{43,128}$/.test(challenge)) {
    throw validationFailed("PKCE is required: code_challenge with code_challenge_method=s256");
  }
  const redirectTo = allowedRedirect(url.searchParams.get("redirect_to"));
  const flowId = randomUUID();
  await getDb()
    .insert(verification)
    .values({
      id: randomUUID(),
      identifier: `oauth-flow:${flowId}`,
      value: JSON.stringify({ challenge, redirectTo }),
      expiresAt: new Date(Date.now() + 10 * 60 * 1000),
    });
  const started = await startOAuth({
    provider,
    redirectTo: `${AUTH_API_PREFIX}/callback?flow=${flowId}`,
    headers: await cleanHeaders(request),
  });
  if (!started.ok) throw fromAuthResult(started);
  const headers = new Headers({ Location: started.url, "Cache-Control": "no-store" });
  for (const cookie of started.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 302, headers });
}

/**
 * Where better-auth's OAuth callback lands (a browser, with the cookie session the provider
 * sign-in just made): that session is handed over as a one-time code for `grant_type=pkce`,
 * and the browser keeps no session of its own.
 */
async function oauthCallback(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const flowId = url.searchParams.get("flow") ?? "";
  const [flow] = await getDb()
    .delete(verification)
    .where(eq(verification.identifier, `oauth-flow:${flowId}`))
    .returning({ value: verification.value, expiresAt: verification.expiresAt });
  const sessionToken = await cookieSessionToken(request.headers);
  if (!flow || flow.expiresAt.getTime() < Date.now() || !sessionToken) {
    throw new AuthApiError(
      400,
      "flow_state_not_found",
      "invalid flow state, no valid flow state found",
    );
  }
  const { challenge, redirectTo } = JSON.parse(flow.value) as {
    challenge: string;
    redirectTo: string;
  };
  const code = randomUUID();
  await getDb()
    .insert(verification)
    .values({
      id: randomUUID(),
      identifier: `oauth-code:${code}`,
      value: JSON.stringify({ challenge, sessionToken }),
      expiresAt: new Date(Date.now() + AUTH_CODE_TTL_S * 1000),
    });
  const target = new URL(allowedRedirect(redirectTo));
  target.searchParams.set("code", code);
  const ctx = await getAuth().$context;
  const headers = new Headers({ Location: target.toString(), "Cache-Control": "no-store" });
  headers.append(
    "Set-Cookie",
    `${ctx.authCookies.sessionToken.name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
  );
  return new Response(null, { status: 302, headers });
}

/** The OAuth callback reads the browser's session cookie: the one place here that does. */
async function cookieSessionToken(headers: Headers): Promise<string | null> {
  const current = await getAuth().api.getSession({ headers });
  return current?.session.token ?? null;
}

async function redeemAuthCode(code: string, verifier: string): Promise<SupabaseSession> {
  const [row] = await getDb()
    .delete(verification)
    .where(eq(verification.identifier, `oauth-code:${code}`))
    .returning({ value: verification.value, expiresAt: verification.expiresAt });
  if (!row || row.expiresAt.getTime() < Date.now()) {
    throw new AuthApiError(
      404,
      "flow_state_not_found",
      "invalid flow state, no valid flow state found",
    );
  }
  const stored = JSON.parse(row.value) as { challenge: string; sessionToken: string };
  if (codeChallengeOf(verifier) !== stored.challenge) {
    throw new AuthApiError(
      400,
      "bad_code_verifier",
      "code challenge does not match previously saved code verifier",
    );
  }
  return startTokenSession({ authSessionToken: stored.sessionToken, method: "oauth" });
}

type Handler = (request: Request, body: Body, params: string[]) => Promise<Response>;

const ROUTES: { method: string; pattern: RegExp; handler: Handler }[] = [
  { method: "GET", pattern: /^\/settings$/, handler: () => settings() },
  { method: "GET", pattern: /^\/\.well-known\/jwks\.json$/, handler: () => jwks() },
  { method: "POST", pattern: /^\/signup$/, handler: (r, b) => signup(r, b) },
  { method: "POST", pattern: /^\/token$/, handler: (r, b) => token(r, b) },
  { method: "GET", pattern: /^\/user$/, handler: (r) => getUser(r) },
  { method: "PUT", pattern: /^\/user$/, handler: (r, b) => updateUser(r, b) },
  { method: "POST", pattern: /^\/logout$/, handler: (r) => logout(r) },
  { method: "POST", pattern: /^\/recover$/, handler: (r, b) => recover(r, b) },
  { method: "POST", pattern: /^\/otp$/, handler: (r, b) => otp(r, b) },
  { method: "POST", pattern: /^\/verify$/, handler: (r, b) => verify(r, b) },
  { method: "POST", pattern: /^\/resend$/, handler: (r, b) => resend(r, b) },
  { method: "GET", pattern: /^\/reauthenticate$/, handler: (r) => reauthenticate(r) },
  { method: "GET", pattern: /^\/authorize$/, handler: (r) => authorize(r) },
  { method: "GET", pattern: /^\/callback$/, handler: (r) => oauthCallback(r) },
  { method: "POST", pattern: /^\/factors$/, handler: (r, b) => enrollFactor(r, b) },
  {
    method: "POST",
    pattern: /^\/factors\/([^/]+)\/challenge$/,
    handler: (r, _b, p) => challengeFactor(r, p[0] ?? ""),
  },
  {
    method: "POST",
    pattern: /^\/factors\/([^/]+)\/verify$/,
    handler: (r, b, p) => verifyFactor(r, p[0] ?? "", b),
  },
  {
    method: "DELETE",
    pattern: /^\/factors\/([^/]+)$/,
    handler: (r, b, p) => unenrollFactor(r, p[0] ?? "", b),
  },
];

/** Answers one request under `/auth/v1`. Never throws: every failure is an error body. */
export async function handleAuthApi(request: Request): Promise<Response> {
  const apiVersion = requestedApiVersion(request.headers);
  const versionHeaders: Record<string, string> = apiVersion
    ? { [API_VERSION_HEADER]: apiVersion }
    : {};
  if (request.method === "OPTIONS") {
    return new Response(null, { status: 204, headers: PREFLIGHT_HEADERS });
  }
  const url = new URL(request.url);
  const path = url.pathname.slice(AUTH_API_PREFIX.length).replace(/\/+$/, "") || "/";
  try {
    const method = request.method === "HEAD" ? "GET" : request.method;
    const matching = ROUTES.filter((r) => r.pattern.test(path));
    if (matching.length === 0) throw new AuthApiError(404, "not_found", "Not Found");
    const route = matching.find((r) => r.method === method);
    if (!route) throw new AuthApiError(405, "method_not_allowed", "Method Not Allowed");
    const params = (route.pattern.exec(path) ?? []).slice(1).map((p) => decodeURIComponent(p));
    const body = await readBody(request);
    const response = await route.handler(request, body, params);
    for (const [name, value] of Object.entries(versionHeaders)) response.headers.set(name, value);
    return response;
  } catch (error) {
    // An outage is the server's 503 with Retry-After, as for every other route.
    if (isDatabaseUnavailable(error)) throw error;
    const known =
      error instanceof AuthApiError
        ? error
        : (() => {
            logger.error({ err: error, path }, "auth api request failed");
            return new AuthApiError(
              500,
              "unexpected_failure",
              "Unexpected failure, please try again",
            );
          })();
    return json(errorBody(known, apiVersion), {
      status: known.status,
      headers: { ...versionHeaders, "x-sb-error-code": known.errorCode, ...known.headers },
    });
  }
}
