import { eq, sql } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { AUTH_LIMITS, checkRateLimits } from "~/core/rate-limit/rate-limit.server";
import { getDb } from "~/db/client.server";
import { profiles, user as userTable, verification } from "~/db/schema";
import { sendSms } from "~/features/sms/index.server";
import { afterResponse } from "~/lib/after-response.server";
import {
  type AuthFailure,
  type AuthResult,
  clientOf,
  rateLimited,
  refuseWeakPassword,
  signedIn,
  usernameTaken,
} from "./accounts.server";
import { getAuth } from "./better-auth.server";
import { callAuth } from "./call-auth.server";
import { CODE_TTL_S, issueCode } from "./one-time-codes.server";
import { hashPassword } from "./password.server";

import { isUsernameAvailable } from "./profiles.server";

export type CodeChannel = "email" | "sms";

export const INVALID_CODE =
  "That code is not right, or it has expired. Check it, or ask for a new one.";
export const TWO_FACTOR_ACCOUNT =
  "This account uses two-step sign-in: sign in with your password, then your authenticator code.";

async function limitSending(headers: Headers, recipient: string) {
  return checkRateLimits([
    [`code-send:ip:${clientOf(headers)}`, AUTH_LIMITS.sendCodePerAddress],
    [`code-send:to:${recipient.toLowerCase()}`, AUTH_LIMITS.sendCodePerRecipient],
  ]);
}

async function limitVerifying(headers: Headers) {
  return checkRateLimits([
    [`code-verify:ip:${clientOf(headers)}`, AUTH_LIMITS.verifyCodePerAddress],
  ]);
}

export const ACCOUNT_BANNED = "This account has been suspended and cannot sign in.";

/** The account behind an address or number, with what decides whether a code may sign it in. */
async function accountFor(channel: CodeChannel, to: string) {
  const [row] = await getDb()
    .select({
      id: userTable.id,
      twoFactorEnabled: userTable.twoFactorEnabled,
      banned: userTable.banned,
    })
    .from(userTable)
    .where(
      channel === "sms"
        ? eq(userTable.phoneNumber, to)
        : sql`lower(${userTable.email}) = ${to.trim().toLowerCase()}`,
    );
  return row ?? null;
}

/** A code alone never signs in a banned or two-step account; such accounts are sent none. */
function canSignInWithCode(account: { banned: boolean | null; twoFactorEnabled: boolean | null }) {
  return !account.banned && !account.twoFactorEnabled;
}

function codeSms(code: string, purpose: string): string {
  return `${code} is your Soundtrail code to ${purpose}. It works once, for ${CODE_TTL_S / 60} minutes.`;
}

/**
 * Sends a sign-in code by e-mail or SMS. The answer is the same whether or not an account
 * exists, so nobody can probe addresses or numbers with it — and so is its timing: before the
 * answer only the rate limits run; the account lookup, the code and the mail or text come after.
 */
export async function requestSignInCode(options: {
  channel: CodeChannel;
  to: string;
  headers: Headers;
  /** A number without an account gets a code too: verifying it makes the account (token API). */
  createUser?: boolean;
}): Promise<AuthResult> {
  const limited = await limitSending(options.headers, options.to);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  // Everything that depends on the account happens after the answer (see afterResponse).
  const headers = new Headers(options.headers);
  afterResponse(`sign-in code by ${options.channel}`, () =>
    sendSignInCode({
      channel: options.channel,
      to: options.to,
      headers,
      createUser: options.createUser === true,
    }),
  );
  return { ok: true, headers: new Headers() };
}

async function sendSignInCode(options: {
  channel: CodeChannel;
  to: string;
  headers: Headers;
  createUser: boolean;
}): Promise<void> {
  const account = await accountFor(options.channel, options.to);
  if (account && !canSignInWithCode(account)) return;
  if (options.channel === "email") {
    const answer = await callAuth((api) =>
      api.sendVerificationOTP({
        body: { email: options.to, type: "sign-in" },
        headers: options.headers,
        asResponse: true,
      }),
    );
    if (!answer.ok) logger.warn({ status: answer.status }, "sign-in code mail refused");
    return;
  }
  if (account || options.createUser) {
    const code = await issueCode({ purpose: "phone-sign-in", subject: options.to });
    await sendSms({ to: options.to, body: codeSms(code, "sign in") });
  }
}

function codeFailure(): AuthFailure {
  return {
    ok: false,
    kind: "invalid",
    code: "invalid_code",
    fieldErrors: { code: [INVALID_CODE] },
  };
}

/**
 * The answer for a banned or two-step account: the generic "wrong code" unless the code is
 * right (a code mailed before the ban or before two-step sign-in was turned on), and then a
 * clear refusal. Nothing here creates a session.
 */
async function refuseCodeSignIn(
  options: { channel: CodeChannel; to: string; code: string; headers: Headers },
  account: { banned: boolean | null },
): Promise<AuthResult> {
  if (options.channel === "sms") return codeFailure();
  const check = await callAuth((api) =>
    api.checkVerificationOTP({
      body: { email: options.to, type: "sign-in", otp: options.code.trim() },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!check.ok) return codeFailure();
  if (account.banned) {
    return { ok: false, kind: "forbidden", code: "account_banned", message: ACCOUNT_BANNED };
  }
  return {
    ok: false,
    kind: "forbidden",
    code: "second_factor_required",
    message: TWO_FACTOR_ACCOUNT,
  };
}

/** Signs in with a code sent by `requestSignInCode`. */
export async function signInWithCode(options: {
  channel: CodeChannel;
  to: string;
  code: string;
  headers: Headers;
}): Promise<AuthResult> {
  const limited = await limitVerifying(options.headers);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const account = await accountFor(options.channel, options.to);
  if (account && !canSignInWithCode(account)) return refuseCodeSignIn(options, account);
  const answer = await callAuth((api) =>
    options.channel === "email"
      ? api.signInEmailOTP({
          body: { email: options.to, otp: options.code.trim() },
          headers: options.headers,
          asResponse: true,
        })
      : api.verifyPhoneNumber({
          body: { phoneNumber: options.to, code: options.code.trim(), purpose: "phone-sign-in" },
          headers: options.headers,
          asResponse: true,
        }),
  );
  if (answer.ok) return signedIn(answer.response);
  if (answer.retryAfterSeconds !== undefined) return rateLimited(answer.retryAfterSeconds);
  const { code, message, status } = answer;
  logger.info({ status, code, message }, "code sign-in refused");
  if (code === "FAILED_TO_CREATE_SESSION") {
    return {
      ok: false,
      kind: "forbidden",
      code: "second_factor_required",
      message: TWO_FACTOR_ACCOUNT,
    };
  }
  return codeFailure();
}

export interface PhoneSignUpOptions {
  phone: string;
  password: string;
  username: string;
  displayName: string;
  headers: Headers;
}

interface PendingPhoneSignUp {
  passwordHash: string;
  username: string;
  displayName: string;
}

/**
 * Step one of a phone sign-up: checks the form, keeps it (password hashed) with a code and
 * texts the code. A number that already has an account gets a text saying so instead, and
 * the same answer, so sign-up reveals nothing.
 */
export async function signUpWithPhone(options: PhoneSignUpOptions): Promise<AuthResult> {
  const limited = await checkRateLimits([
    [`sign-up:ip:${clientOf(options.headers)}`, AUTH_LIMITS.signUpPerAddress],
    [`code-send:to:${options.phone}`, AUTH_LIMITS.sendCodePerRecipient],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const weak = refuseWeakPassword(options.password, [
    options.phone,
    options.username,
    options.displayName,
  ]);
  if (weak) return weak;
  if (!(await isUsernameAvailable(options.username))) return usernameTaken();
  if (await accountFor("sms", options.phone)) {
    await sendSms({
      to: options.phone,
      body: "Someone tried to create a Soundtrail account with this number, which already has one. If it was you, sign in instead.",
    });
    return { ok: true, headers: new Headers() };
  }
  const payload: PendingPhoneSignUp = {
    passwordHash: await hashPassword(options.password),
    username: options.username,
    displayName: options.displayName,
  };
  const code = await issueCode({ purpose: "phone-sign-up", subject: options.phone, payload });
  await sendSms({ to: options.phone, body: codeSms(code, "finish signing up") });
  return { ok: true, headers: new Headers() };
}

/** Step two: the texted code creates the account, verified, and signs the person in. */
export async function confirmPhoneSignUp(options: {
  phone: string;
  code: string;
  headers: Headers;
}): Promise<AuthResult> {
  const limited = await limitVerifying(options.headers);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  // The code check happens inside the phone plugin (verifyOTP → consumeCode), which keeps the
  // pending form with the code; read it first, since a successful check consumes it.
  const pending = await readPendingSignUp(options.phone);
  if (!pending) return codeFailure();
  const answer = await callAuth((api) =>
    api.verifyPhoneNumber({
      body: {
        phoneNumber: options.phone,
        code: options.code.trim(),
        purpose: "phone-sign-up",
        username: pending.username,
      },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!answer.ok) {
    if (answer.retryAfterSeconds !== undefined) return rateLimited(answer.retryAfterSeconds);
    return codeFailure();
  }
  const { user } = (await answer.response.clone().json()) as { user: { id: string } };
  const ctx = await getAuth().$context;
  await ctx.internalAdapter.linkAccount({
    userId: user.id,
    providerId: "credential",
    accountId: user.id,
    password: pending.passwordHash,
  });
  await getDb().transaction(async (tx) => {
    await tx.update(userTable).set({ name: pending.displayName }).where(eq(userTable.id, user.id));
    await tx
      .update(profiles)
      .set({ displayName: pending.displayName })
      .where(eq(profiles.userId, user.id));
  });
  return signedIn(answer.response);
}

/**
 * Texts a pending phone sign-up a new code (the form it waits with is kept); nothing when the
 * number has none. The same answer either way.
 */
export async function resendPhoneSignUpCode(options: {
  phone: string;
  headers: Headers;
}): Promise<AuthResult> {
  const limited = await limitSending(options.headers, options.phone);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const pending = await readPendingSignUp(options.phone);
  if (pending) {
    const code = await issueCode({
      purpose: "phone-sign-up",
      subject: options.phone,
      payload: pending,
    });
    await sendSms({ to: options.phone, body: codeSms(code, "finish signing up") });
  }
  return { ok: true, headers: new Headers() };
}

/** Texts a new code for a phone change to the new number (as `requestPhoneChange` did). */
export async function resendPhoneChangeCode(options: {
  phone: string;
  headers: Headers;
}): Promise<AuthResult> {
  const limited = await limitSending(options.headers, options.phone);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const code = await issueCode({ purpose: "phone-sign-in", subject: options.phone });
  await sendSms({
    to: options.phone,
    body: `${code} is your Soundtrail code to confirm this number.`,
  });
  return { ok: true, headers: new Headers() };
}

async function readPendingSignUp(phone: string): Promise<PendingPhoneSignUp | null> {
  const [row] = await getDb()
    .select({ value: verification.value })
    .from(verification)
    .where(eq(verification.identifier, `code:phone-sign-up:${phone}`));
  if (!row) return null;
  const stored = JSON.parse(row.value) as { payload: PendingPhoneSignUp | null };
  return stored.payload;
}
