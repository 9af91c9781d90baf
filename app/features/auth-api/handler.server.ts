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
  isUsernameAvailable,
  PLACEHOLDER_EMAIL_DOMAIN,
  qrCodeOf,
  refuseWeakPassword,
  releaseTotpCode,
  requestPasswordReset,
  requestPhoneChange,
  requestSignInCode,
  resendConfirmation,
  resendPhoneChangeCode,
  resendPhoneSignUpCode,
  resetPassword,
  sessionsEnded,
  signInWithCode,
  signInWithEmail,
  signUpWithEmail,
  signUpWithPhone,
  startOAuth,
  startTotpEnrollment,
  startTotpEnrollmentForRecentSession,
  usernameTaken,
} from "~/features/auth/index.server";
import { renderEmail } from "~/features/mail";
import { sendMail } from "~/features/mail/index.server";
import { startLinkOAuth, unlinkSignInMethod } from "~/features/settings/index.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { getEnv } from "~/lib/env.server";
import {
  adminCreateUser,
  adminDeleteFactor,
  adminDeleteUser,
  adminGenerateLink,
  adminGetUser,
  adminInvite,
  adminListFactors,
  adminListUsers,
  adminUpdateUser,
  auditServiceSignOut,
  isServiceRoleKey,
  redeemLink,
  requireServiceRole,
} from "./admin.server";
import {
  applyEmailChange,
  confirmEmailChange,
  forgetPhoneChange,
  hasPassword,
  type Metadata,
  pendingPhoneChange,
  phoneChangeOwner,
  rememberPhoneChange,
  requestEmailChange,
  resendEmailChange,
  setFirstPassword,
  updateMetadata,
} from "./changes.server";
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
import { supabasePhone, supabaseUser, TOTP_FRIENDLY_NAME } from "./users.server";

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

const emailField = z.string().trim().toLowerCase().max(255).pipe(z.email());
const phoneField = z
  .string()
  .transform((v) => v.trim().replace(/^\+/, "").replaceAll(" ", ""))
  .pipe(z.string().regex(/^[1-9][0-9]{1,14}$/))
  .transform((v) => `+${v}`);

/** An address as GoTrue's validateEmail takes it (lower case), with its messages. */
function emailOf(value: string | null | undefined): string {
  if (!value) throw validationFailed("An email address is required");
  if (value.length > 255) throw validationFailed("An email address is too long");
  const parsed = emailField.safeParse(value);
  if (!parsed.success) throw validationFailed("Unable to validate email address: invalid format");
  return parsed.data;
}

/** A number as GoTrue's validatePhone takes it ("+" and spaces dropped); kept here with "+". */
function phoneOf(value: string | null | undefined): string {
  const parsed = phoneField.safeParse(value ?? "");
  if (!parsed.success) throw validationFailed("Invalid phone number format (E.164 required)");
  return parsed.data;
}

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
    mailer_autoconfirm: getEnv().AUTH_AUTOCONFIRM,
    phone_autoconfirm: getEnv().AUTH_AUTOCONFIRM,
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
  const metadata = input.data ?? null;
  if (!input.email && !input.phone) {
    if (input.password) throw validationFailed(MISSING_CREDENTIALS);
    // An empty body is an anonymous sign-up: a guest, exactly as "Continue as guest".
    const guest = must(await continueAsGuest({ headers }));
    const token = await sessionTokenFromCookies(guest.headers);
    const owner = token ? await sessionOwner(token) : null;
    if (owner && metadata) await updateMetadata(owner, { userMetadata: metadata });
    return json(await sessionFrom(guest.headers, "anonymous"));
  }
  if (input.email && input.phone) {
    throw validationFailed("Only an email address or phone number should be provided on signup.");
  }
  if (!input.password) throw validationFailed(MISSING_CREDENTIALS);
  const data = profileData.parse(input.data ?? {});
  const displayName = (data.display_name ?? data.full_name ?? data.name ?? "").trim();
  if (getEnv().AUTH_AUTOCONFIRM) {
    return json(
      await autoconfirmedSignUp(request, {
        email: input.email ? emailOf(input.email) : null,
        phone: input.email ? null : phoneOf(input.phone),
        password: input.password,
        username: data.username,
        displayName,
        metadata,
      }),
    );
  }
  if (input.email) {
    const email = emailOf(input.email);
    const local = email.split("@")[0] ?? "listener";
    const existing = await accountByContact(email, undefined);
    must(
      await signUpWithEmail({
        email,
        password: input.password,
        username: data.username || suggestedUsername(local),
        displayName: displayName || local,
        headers,
      }),
    );
    // The metadata of a new account only: an address that had one is left as it is.
    const created = existing ? null : await accountByContact(email, undefined);
    if (created && metadata) await updateMetadata(created, { userMetadata: metadata });
    return json(pendingUser({ email, phone: "", data: metadata ?? {} }));
  }
  const phone = phoneOf(input.phone);
  must(
    await signUpWithPhone({
      phone,
      password: input.password,
      username: data.username || suggestedUsername("listener"),
      displayName: displayName || "Listener",
      headers,
    }),
  );
  // The account is made by the texted code (POST /verify): its metadata waits with it.
  if (metadata) await rememberSignUpMetadata(phone, metadata);
  return json(pendingUser({ email: "", phone: supabasePhone(phone), data: metadata ?? {} }));
}

const SIGNUP_METADATA = "auth-api-signup-metadata";

async function rememberSignUpMetadata(phone: string, metadata: Record<string, unknown>) {
  const db = getDb();
  await db.delete(verification).where(eq(verification.identifier, `${SIGNUP_METADATA}:${phone}`));
  await db.insert(verification).values({
    id: randomUUID(),
    identifier: `${SIGNUP_METADATA}:${phone}`,
    value: JSON.stringify(metadata),
    expiresAt: new Date(Date.now() + 24 * 60 * 60 * 1000),
  });
}

async function applySignUpMetadata(phone: string, userId: string): Promise<void> {
  const [row] = await getDb()
    .delete(verification)
    .where(eq(verification.identifier, `${SIGNUP_METADATA}:${phone}`))
    .returning({ value: verification.value });
  if (row) await updateMetadata(userId, { userMetadata: JSON.parse(row.value) as Metadata });
}

async function sessionOwner(sessionToken: string): Promise<string | null> {
  const [row] = await getDb()
    .select({ userId: sessionTable.userId })
    .from(sessionTable)
    .where(eq(sessionTable.token, sessionToken));
  return row?.userId ?? null;
}

/**
 * AUTH_AUTOCONFIRM: the account is made confirmed and signed in at once, as GoTrue with
 * mailer/SMS autoconfirm — and, as there, an address or number that has an account is told so
 * (`user_already_exists`), since the answer is a session either way.
 */
async function autoconfirmedSignUp(
  request: Request,
  options: {
    email: string | null;
    phone: string | null;
    password: string;
    username: string | undefined;
    displayName: string;
    metadata: Record<string, unknown> | null;
  },
): Promise<SupabaseSession> {
  const headers = await cleanHeaders(request);
  const limited = await checkRateLimits([
    [`sign-up:ip:${headers.get(CLIENT_IP_HEADER) ?? "unknown"}`, AUTH_LIMITS.signUpPerAddress],
  ]);
  if (limited) throw rateLimitedError(limited.retryAfterSeconds);
  if (await accountByContact(options.email ?? undefined, options.phone ?? undefined)) {
    throw new AuthApiError(422, "user_already_exists", "User already registered");
  }
  const local = options.email?.split("@")[0] ?? "listener";
  const username = options.username || suggestedUsername(local);
  const displayName = (options.displayName || (options.email ? local : "Listener")).slice(0, 50);
  const weak = refuseWeakPassword(options.password, [
    options.email ?? options.phone ?? "",
    username,
    displayName,
  ]);
  if (weak) throw fromAuthResult(weak);
  if (!(await isUsernameAvailable(username))) throw fromAuthResult(usernameTaken());
  const ctx = await getAuth().$context;
  const created = await ctx.internalAdapter.createUser(
    {
      email:
        options.email ??
        `phone-${(options.phone ?? "").replace(/\D/g, "")}@${PLACEHOLDER_EMAIL_DOMAIN}`,
      emailVerified: Boolean(options.email),
      name: displayName,
      username,
      ...(options.phone ? { phoneNumber: options.phone, phoneNumberVerified: true } : {}),
    },
    { method: options.phone ? "phone-number" : "email-password" },
  );
  if (!created) throw new AuthApiError(500, "unexpected_failure", "Database error saving new user");
  await setFirstPassword(created.id, options.password);
  if (options.metadata) await updateMetadata(created.id, { userMetadata: options.metadata });
  const session = await ctx.internalAdapter.createSession(created.id, false, {
    ipAddress: headers.get(CLIENT_IP_HEADER) ?? "",
    userAgent: headers.get("user-agent") ?? "",
    aal: "aal1",
    authMethod: "password",
  });
  if (!session) throw new AuthApiError(500, "unexpected_failure", "No session was created");
  return startTokenSession({ authSessionToken: session.token, method: "password" });
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
  throw new AuthApiError(400, "invalid_credentials", "unsupported_grant_type");
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
  const [owner] = await getDb()
    .select({
      email: userTable.email,
      phone: userTable.phoneNumber,
      isAnonymous: userTable.isAnonymous,
    })
    .from(userTable)
    .where(eq(userTable.id, live.userId));
  if (!owner) throw new AuthApiError(404, "user_not_found", "User not found");
  const email = input.email ? emailOf(input.email) : null;
  const phone = input.phone ? phoneOf(input.phone) : null;
  const newEmail = email && email !== owner.email.toLowerCase() ? email : null;
  const newPhone = phone && phone !== owner.phone ? phone : null;
  if (live.twoFactorEnabled && live.aal !== "aal2" && (input.password || newEmail || newPhone)) {
    throw new AuthApiError(
      401,
      "insufficient_aal",
      "AAL2 session is required to update email or password when MFA is enabled.",
    );
  }
  if (owner.isAnonymous && input.password && !email && !phone) {
    throw new AuthApiError(
      422,
      "validation_failed",
      "Updating password of an anonymous user without an email or phone is not allowed",
    );
  }
  if (input.password && !(await hasPassword(live.userId))) {
    // A guest or a code sign-up: there is no password to re-enter, as GoTrue has it.
    const weak = refuseWeakPassword(input.password, [email ?? owner.email]);
    if (weak) throw fromAuthResult(weak);
    await setFirstPassword(live.userId, input.password);
  } else if (input.password && !input.current_password && isFreshRecovery(live.amr)) {
    await setPasswordWithoutCurrent(request, live, input.password, "recovery");
  } else if (input.password && !input.current_password && input.nonce) {
    await consumeReauthNonce(live.userId, input.nonce);
    await setPasswordWithoutCurrent(request, live, input.password, "otp");
  } else if (input.password) {
    if (!input.current_password) {
      throw new AuthApiError(
        400,
        "reauthentication_needed",
        "Password update requires reauthentication",
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
  if (newEmail) {
    if (owner.isAnonymous && getEnv().AUTH_AUTOCONFIRM) {
      // As GoTrue with autoconfirm: a guest's address is taken as given.
      await applyEmailChange(live.userId, newEmail, { pendingOnly: false });
    } else {
      // A link and a code to the new address; POST /verify with type "email_change" finishes it.
      await requestEmailChange(live.userId, newEmail);
    }
  }
  if (newPhone) {
    // Texts a code to the new number; POST /verify with type "phone_change" finishes it.
    must(await requestPhoneChange({ headers, phone: newPhone }));
    await rememberPhoneChange(live.userId, newPhone);
  }
  if (input.data) {
    await updateMetadata(live.userId, { userMetadata: input.data });
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
    throw validationFailed(`Unsupported logout scope ${JSON.stringify(scope)}`);
  }
  const headers = await headersForSession(live.authSessionToken, request.headers);
  // auth.admin.signOut(jwt): the app's server signs a person out with their token.
  if (await isServiceRoleKey(request.headers)) await auditServiceSignOut(live.userId, scope);
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
  if (!input.email) throw validationFailed("Password recovery requires an email");
  const email = emailOf(input.email);
  must(await requestPasswordReset({ email, headers: await cleanHeaders(request) }));
  return json({});
}

async function otp(request: Request, body: Body): Promise<Response> {
  const input = parse(
    z.object({
      email: z.string().optional().nullable(),
      phone: z.string().optional().nullable(),
      // GoTrue's default: a code to an unknown address or number makes the account.
      create_user: z.boolean().optional().default(true),
      data: z.record(z.string(), z.unknown()).optional().nullable(),
    }),
    body,
  );
  if (input.email && input.phone) {
    throw validationFailed("Only an email address or phone number should be provided");
  }
  if (!input.email && !input.phone) throw validationFailed(MISSING_CONTACT);
  const headers = await cleanHeaders(request);
  const email = input.email ? emailOf(input.email) : undefined;
  const phone = email ? undefined : phoneOf(input.phone);
  const known = await accountByContact(email, phone);
  if (!known && !input.create_user) {
    throw new AuthApiError(422, "otp_disabled", "Signups not allowed for otp");
  }
  if (email) {
    if (!known) {
      // The account, unconfirmed and without a password, as GoTrue makes it; the code confirms it.
      const local = email.split("@")[0] ?? "listener";
      const ctx = await getAuth().$context;
      const created = await ctx.internalAdapter.createUser(
        {
          email,
          emailVerified: false,
          name: local.slice(0, 50),
          username: suggestedUsername(local),
        },
        { method: "email-otp" },
      );
      if (created && input.data) await updateMetadata(created.id, { userMetadata: input.data });
    }
    must(await requestSignInCode({ channel: "email", to: email, headers }));
    return json({});
  }
  const number = phone ?? "";
  // An unknown number gets a code that makes its account when verified (POST /verify, sms).
  if (!known && input.data) await rememberSignUpMetadata(number, input.data);
  must(await requestSignInCode({ channel: "sms", to: number, headers, createUser: !known }));
  return json({ message_id: null });
}

const VERIFY_TYPES = [
  "email",
  "magiclink",
  "signup",
  "sms",
  "phone_change",
  "recovery",
  "invite",
  "email_change",
] as const;

const verifySchema = z.object({
  type: z.string().optional().nullable(),
  email: z.string().optional().nullable(),
  phone: z.string().optional().nullable(),
  token: z.string().max(500).optional().nullable(),
  token_hash: z.string().max(2000).optional().nullable(),
  redirect_to: z.string().max(2000).optional().nullable(),
});

type VerifyInput = z.infer<typeof verifySchema> & { type: (typeof VERIFY_TYPES)[number] };

const EXPIRED_LINK = "Email link is invalid or has expired";
const EXPIRED_TOKEN = "Token has expired or is invalid";

/** GoTrue's checks of a verify request, in its order and words. */
function verifyInput(body: Body): VerifyInput {
  const input = parse(verifySchema, body);
  if (!input.type) throw validationFailed("Verify requires a verification type");
  if (!VERIFY_TYPES.includes(input.type as VerifyInput["type"])) {
    throw validationFailed("Unsupported verification type");
  }
  if (Boolean(input.token) === Boolean(input.token_hash)) {
    throw validationFailed("Verify requires either a token or a token hash");
  }
  if (input.token_hash && (input.email || input.phone)) {
    throw validationFailed("Only the token_hash and type should be provided");
  }
  if (input.token && !input.email && !input.phone) {
    throw validationFailed("Only an email address or phone number should be provided on verify");
  }
  return input as VerifyInput;
}

async function verify(request: Request, body: Body): Promise<Response> {
  return json(await verifyToSession(request, verifyInput(body)));
}

async function verifyToSession(request: Request, input: VerifyInput): Promise<SupabaseSession> {
  const headers = await cleanHeaders(request);
  // A link or code made by the admin API (generate_link, invite).
  const linked = await redeemLink(
    input.type,
    input.token_hash
      ? { tokenHash: input.token_hash }
      : { email: input.email ? emailOf(input.email) : "", code: input.token ?? "" },
  );
  if (linked) {
    return sessionForUser(request, linked.userId, linked.type === "recovery" ? "recovery" : "otp");
  }
  if (input.type === "recovery") return verifyRecovery(request, input, headers);
  if (input.type === "email_change") {
    const userId = await confirmEmailChange(
      input.token_hash
        ? { tokenHash: input.token_hash }
        : { email: emailOf(input.email), code: input.token ?? "" },
    );
    return sessionForUser(request, userId, "otp");
  }
  if (input.token_hash) {
    if (input.type !== "signup" && input.type !== "email" && input.type !== "invite") {
      throw new AuthApiError(403, "otp_expired", EXPIRED_LINK);
    }
    // The confirmation link's token, as mailed by sign-up. A used or expired one is refused
    // as GoTrue refuses it (it gives no session a second time).
    const confirmed = await confirmEmail({ token: input.token_hash, headers });
    if (!confirmed.ok) {
      if (confirmed.code === "rate_limited") throw fromAuthResult(confirmed);
      throw new AuthApiError(403, "otp_expired", EXPIRED_LINK);
    }
    const token = await sessionTokenFromCookies(confirmed.headers);
    if (!token) throw new AuthApiError(403, "otp_expired", EXPIRED_LINK);
    return startTokenSession({ authSessionToken: token, method: "otp" });
  }
  const code = input.token ?? "";
  if (input.type === "phone_change") return verifyPhoneChange(request, input);
  if (input.type === "sms") {
    const phone = phoneOf(input.phone);
    // A pending phone sign-up is finished by its code; otherwise the code signs in (and makes
    // the account of a number that asked for a code with create_user).
    const signUp = await confirmPhoneSignUp({ phone, code, headers });
    const result = signUp.ok
      ? signUp
      : must(await signInWithCode({ channel: "sms", to: phone, code, headers }));
    const owner = await accountByContact(undefined, phone);
    if (owner) await applySignUpMetadata(phone, owner);
    return sessionFrom(result.headers, "otp");
  }
  if (input.type === "email" || input.type === "magiclink" || input.type === "signup") {
    const email = emailOf(input.email);
    const result = must(await signInWithCode({ channel: "email", to: email, code, headers }));
    return sessionFrom(result.headers, "otp");
  }
  throw new AuthApiError(403, "otp_expired", EXPIRED_TOKEN);
}

/** A new session of an account that proved itself by a mailed link or code. */
async function sessionForUser(
  request: Request,
  userId: string,
  method: AmrMethod,
): Promise<SupabaseSession> {
  const ctx = await getAuth().$context;
  const created = await ctx.internalAdapter.createSession(userId, false, {
    ipAddress: request.headers.get(CLIENT_IP_HEADER) ?? "",
    userAgent: request.headers.get("user-agent") ?? "",
    aal: "aal1",
    authMethod: method,
  });
  if (!created) throw new AuthApiError(403, "user_banned", "User is banned");
  return startTokenSession({ authSessionToken: created.token, method });
}

/**
 * `GET /verify?token=…&type=…&redirect_to=…`: the link in a mail. As GoTrue, it redirects to
 * `redirect_to` (an allowed one) with the session in the fragment, or the error there.
 */
async function verifyLink(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const target = new URL(allowedRedirect(url.searchParams.get("redirect_to")));
  const fragment = new URLSearchParams();
  try {
    const token = url.searchParams.get("token");
    if (!url.searchParams.get("type"))
      throw validationFailed("Verify requires a verification type");
    if (!token) throw validationFailed("Verify requires a token or a token hash");
    const input = verifyInput({ type: url.searchParams.get("type"), token_hash: token });
    const session = await verifyToSession(request, input);
    fragment.set("access_token", session.access_token);
    fragment.set("expires_at", String(session.expires_at));
    fragment.set("expires_in", String(session.expires_in));
    fragment.set("refresh_token", session.refresh_token);
    fragment.set("token_type", "bearer");
    fragment.set("type", input.type);
  } catch (error) {
    if (!(error instanceof AuthApiError)) throw error;
    fragment.set("error", error.status === 403 ? "access_denied" : "invalid_request");
    fragment.set("error_code", error.errorCode);
    fragment.set("error_description", error.message);
  }
  target.hash = fragment.toString();
  return new Response(null, {
    status: 303,
    headers: { Location: target.toString(), "Cache-Control": "no-store" },
  });
}

/**
 * The code texted by `PUT /user` with `phone`: the number becomes the account's. As GoTrue,
 * no bearer is needed: the number and its code say whose change it is.
 */
async function verifyPhoneChange(request: Request, input: VerifyInput): Promise<SupabaseSession> {
  const phone = phoneOf(input.phone);
  const code = input.token ?? "";
  const userId = await phoneChangeOwner(phone);
  if (!userId) throw new AuthApiError(403, "otp_expired", EXPIRED_TOKEN);
  const ctx = await getAuth().$context;
  const created = await ctx.internalAdapter.createSession(userId, false, {
    ipAddress: request.headers.get(CLIENT_IP_HEADER) ?? "",
    userAgent: request.headers.get("user-agent") ?? "",
    aal: "aal1",
    authMethod: "otp",
  });
  if (!created) throw new AuthApiError(403, "user_banned", "User is banned");
  const headers = await headersForSession(created.token, request.headers);
  const changed = await confirmPhoneChange({ headers, phone, code });
  if (!changed.ok) {
    await getDb().delete(sessionTable).where(eq(sessionTable.id, created.id));
    throw new AuthApiError(403, "otp_expired", EXPIRED_TOKEN);
  }
  await forgetPhoneChange(userId);
  return startTokenSession({
    authSessionToken: (await sessionTokenFromCookies(changed.headers)) ?? created.token,
    method: "otp",
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
  input: VerifyInput,
  headers: Headers,
): Promise<SupabaseSession> {
  const token = input.token_hash ?? input.token;
  if (!token) throw validationFailed("Verify requires either a token or a token hash");
  const ctx = await getAuth().$context;
  // Consumed atomically: two requests with the same link cannot both get a session.
  const found = await ctx.internalAdapter.consumeVerificationValue(`reset-password:${token}`);
  if (!found) {
    throw new AuthApiError(403, "otp_expired", input.token_hash ? EXPIRED_LINK : EXPIRED_TOKEN);
  }
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

const RESEND_TYPES = ["signup", "email_change", "sms", "phone_change"] as const;

/** GoTrue's resend: the same answer whether or not there is anything to send again. */
async function resend(request: Request, body: Body): Promise<Response> {
  const input = parse(
    z.object({
      type: z.string().optional().nullable(),
      email: z.string().optional().nullable(),
      phone: z.string().optional().nullable(),
    }),
    body,
  );
  const type = input.type as (typeof RESEND_TYPES)[number];
  if (!RESEND_TYPES.includes(type)) {
    throw validationFailed("Missing one of these types: signup, email_change, sms, phone_change");
  }
  if (!input.email && type === "signup") {
    throw validationFailed("Type provided requires an email address");
  }
  if (!input.phone && type === "sms") {
    throw validationFailed("Type provided requires a phone number");
  }
  if (input.email && input.phone) {
    throw validationFailed("Only an email address or phone number should be provided.");
  }
  if (!input.email && !input.phone) throw validationFailed(MISSING_CONTACT);
  const headers = await cleanHeaders(request);
  const email = input.email ? emailOf(input.email) : undefined;
  const phone = email ? undefined : phoneOf(input.phone);
  if (type === "signup") {
    must(await resendConfirmation({ email: email ?? "", headers }));
    return json({});
  }
  if (type === "sms") {
    must(await resendPhoneSignUpCode({ phone: phone ?? "", headers }));
    return json({});
  }
  if (type === "email_change") {
    const limited = await checkRateLimits([
      [`code-send:to:${(email ?? phone ?? "").toLowerCase()}`, AUTH_LIMITS.sendCodePerRecipient],
    ]);
    if (limited) throw rateLimitedError(limited.retryAfterSeconds);
    const owner = await accountByContact(email, phone);
    if (owner) await resendEmailChange(owner);
    return json({});
  }
  // phone_change: the account whose number this is, or whose pending number it is.
  const owner = (await accountByContact(undefined, phone)) ?? (await phoneChangeOwner(phone ?? ""));
  const pending = owner ? await pendingPhoneChange(owner) : null;
  if (pending) must(await resendPhoneChangeCode({ phone: pending, headers }));
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
  // As a GoTrue with phone and WebAuthn (passkey) factors turned off.
  if (input.factor_type === "phone") {
    throw new AuthApiError(422, "mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone");
  }
  if (input.factor_type === "webauthn") {
    throw new AuthApiError(
      422,
      "mfa_webauthn_enroll_not_enabled",
      "MFA enroll is disabled for WebAuthn",
    );
  }
  if (input.factor_type !== "totp") {
    throw validationFailed("factor_type needs to be totp, phone, or webauthn");
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

// Identity linking --------------------------------------------------------------------------

const LINK_FLOW = "auth-api-link-identity";

/**
 * `GET /user/identities/authorize?provider=…` (supabase-js `linkIdentity`): answers
 * `{ url }`, a page of ours that the app opens in a browser. That page starts the provider's
 * sign-in for this person (as Settings → "Link" does) and the provider comes back to the
 * person's `redirect_to`. Only configured providers.
 */
async function linkIdentityStart(request: Request): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  const url = new URL(request.url);
  const provider = url.searchParams.get("provider") ?? "";
  if (!configuredProviders().includes(provider as never)) {
    throw validationFailed("Unsupported provider: provider is not enabled");
  }
  const flowId = randomUUID();
  await getDb()
    .insert(verification)
    .values({
      id: randomUUID(),
      identifier: `${LINK_FLOW}:${flowId}`,
      value: JSON.stringify({
        provider,
        sessionToken: live.authSessionToken,
        redirectTo: allowedRedirect(url.searchParams.get("redirect_to")),
      }),
      expiresAt: new Date(Date.now() + 10 * 60 * 1000),
    });
  const base = getEnv().BASE_URL.replace(/\/$/, "");
  const target = `${base}${AUTH_API_PREFIX}/user/identities/link?flow=${flowId}`;
  if (url.searchParams.get("skip_http_redirect") === "true") return json({ url: target });
  return new Response(null, { status: 302, headers: { Location: target, ...CORS_HEADERS } });
}

/** The browser opens this: on to the provider, with the state cookie of the link flow. */
async function linkIdentityRedirect(request: Request): Promise<Response> {
  const flowId = new URL(request.url).searchParams.get("flow") ?? "";
  const [flow] = await getDb()
    .delete(verification)
    .where(eq(verification.identifier, `${LINK_FLOW}:${flowId}`))
    .returning({ value: verification.value, expiresAt: verification.expiresAt });
  if (!flow || flow.expiresAt.getTime() < Date.now()) {
    throw new AuthApiError(
      400,
      "flow_state_not_found",
      "invalid flow state, no valid flow state found",
    );
  }
  const stored = JSON.parse(flow.value) as {
    provider: string;
    sessionToken: string;
    redirectTo: string;
  };
  const back = `${AUTH_API_PREFIX}/user/identities/linked?to=${encodeURIComponent(stored.redirectTo)}`;
  const started = await startLinkOAuth({
    provider: stored.provider,
    headers: await headersForSession(stored.sessionToken, request.headers),
    callbackURL: back,
    errorCallbackURL: `${back}&error=link_failed`,
  });
  if (!started.ok) throw fromAuthResult(started);
  const headers = new Headers({ Location: started.url, "Cache-Control": "no-store" });
  for (const cookie of started.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 302, headers });
}

/** Where the provider's callback lands after linking: on to the app's allowed address. */
async function linkIdentityDone(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const target = new URL(allowedRedirect(url.searchParams.get("to")));
  if (url.searchParams.get("error")) {
    target.hash = new URLSearchParams({
      error: "server_error",
      error_code: "identity_link_failed",
      error_description: "The identity could not be linked",
    }).toString();
  }
  return new Response(null, {
    status: 302,
    headers: { Location: target.toString(), "Cache-Control": "no-store" },
  });
}

/**
 * `DELETE /user/identities/{identity_id}` (supabase-js `unlinkIdentity`): removes a linked
 * provider, never the last way in (the same rule and lock as Settings).
 */
async function unlinkIdentity(request: Request, identityId: string): Promise<Response> {
  const live = await requireTokenSession(request.headers);
  const user = await supabaseUser(live.userId);
  const identity = user?.identities.find((i) => i.identity_id === identityId);
  if (!identity) throw new AuthApiError(422, "identity_not_found", "Identity doesn't exist");
  if ((user?.identities.length ?? 0) <= 1) {
    throw new AuthApiError(
      422,
      "single_identity_not_deletable",
      "User must have at least 1 identity after unlinking",
    );
  }
  if (identity.provider === "email" || identity.provider === "phone") {
    throw validationFailed("The email or phone identity cannot be unlinked");
  }
  const result = await unlinkSignInMethod({
    headers: await headersForSession(live.authSessionToken, request.headers),
    userId: live.userId,
    methodId: identityId,
  });
  if (!result.ok) {
    if (result.code === "last_way_in") {
      throw new AuthApiError(
        422,
        "single_identity_not_deletable",
        "User must have at least 1 identity after unlinking",
      );
    }
    throw fromAuthResult(result);
  }
  return json({});
}

/** A response made elsewhere, with the token API's CORS headers. */
function withCors(response: Response): Response {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  return response;
}

/** supabase-js passes `redirectTo` as the `redirect_to` query parameter. */
function redirectParam(request: Request): string | null {
  const value = new URL(request.url).searchParams.get("redirect_to");
  return value ? allowedRedirect(value) : null;
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
  { method: "GET", pattern: /^\/verify$/, handler: (r) => verifyLink(r) },
  { method: "POST", pattern: /^\/resend$/, handler: (r, b) => resend(r, b) },
  { method: "GET", pattern: /^\/reauthenticate$/, handler: (r) => reauthenticate(r) },
  { method: "GET", pattern: /^\/authorize$/, handler: (r) => authorize(r) },
  {
    method: "GET",
    pattern: /^\/user\/identities\/authorize$/,
    handler: (r) => linkIdentityStart(r),
  },
  { method: "GET", pattern: /^\/user\/identities\/link$/, handler: (r) => linkIdentityRedirect(r) },
  { method: "GET", pattern: /^\/user\/identities\/linked$/, handler: (r) => linkIdentityDone(r) },
  {
    method: "DELETE",
    pattern: /^\/user\/identities\/([^/]+)$/,
    handler: (r, _b, p) => unlinkIdentity(r, p[0] ?? ""),
  },
  {
    method: "GET",
    pattern: /^\/admin\/users$/,
    handler: async (r) => {
      await requireServiceRole(r.headers);
      return withCors(await adminListUsers(new URL(r.url)));
    },
  },
  {
    method: "POST",
    pattern: /^\/admin\/users$/,
    handler: async (r, b) => {
      await requireServiceRole(r.headers);
      return json(await adminCreateUser(b));
    },
  },
  {
    method: "GET",
    pattern: /^\/admin\/users\/([^/]+)$/,
    handler: async (r, _b, p) => {
      await requireServiceRole(r.headers);
      return json(await adminGetUser(p[0] ?? ""));
    },
  },
  {
    method: "PUT",
    pattern: /^\/admin\/users\/([^/]+)$/,
    handler: async (r, b, p) => {
      await requireServiceRole(r.headers);
      return json(await adminUpdateUser(p[0] ?? "", b));
    },
  },
  {
    method: "DELETE",
    pattern: /^\/admin\/users\/([^/]+)$/,
    handler: async (r, b, p) => {
      await requireServiceRole(r.headers);
      return json(await adminDeleteUser(p[0] ?? "", b));
    },
  },
  {
    method: "GET",
    pattern: /^\/admin\/users\/([^/]+)\/factors$/,
    handler: async (r, _b, p) => {
      await requireServiceRole(r.headers);
      return json(await adminListFactors(p[0] ?? ""));
    },
  },
  {
    method: "DELETE",
    pattern: /^\/admin\/users\/([^/]+)\/factors\/([^/]+)$/,
    handler: async (r, _b, p) => {
      await requireServiceRole(r.headers);
      return json(await adminDeleteFactor(p[0] ?? "", p[1] ?? ""));
    },
  },
  {
    method: "POST",
    pattern: /^\/admin\/generate_link$/,
    handler: async (r, b) => {
      await requireServiceRole(r.headers);
      return json(await adminGenerateLink(b, redirectParam(r)));
    },
  },
  {
    method: "POST",
    pattern: /^\/invite$/,
    handler: async (r, b) => {
      await requireServiceRole(r.headers);
      return json(await adminInvite(b, redirectParam(r)));
    },
  },
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
