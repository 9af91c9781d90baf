import { randomInt, randomUUID } from "node:crypto";
import { createOTP } from "@better-auth/utils/otp";
import { generateRandomString, symmetricEncrypt } from "better-auth/crypto";
import { and, eq, ne, sql } from "drizzle-orm";
import { encode } from "uqr";
import { appErrorCodeForStatus } from "~/core/errors";
import { logger } from "~/core/logger.server";
import { AUTH_LIMITS, checkRateLimits } from "~/core/rate-limit/rate-limit.server";
import { getDb } from "~/db/client.server";
import { account, session as sessionTable, twoFactor, user as userTable } from "~/db/schema";
import { type AuthFailure, type AuthResult, clientOf, rateLimited } from "./accounts.server";
import { getAuth, hashBackupCode } from "./better-auth.server";
import { callAuth } from "./call-auth.server";
import { assertRecentAuth, type ReauthOptions } from "./reauth.server";
import { claimTotpCode, releaseTotpCode } from "./totp-replay.server";

export const BACKUP_CODE_COUNT = 10;
export const WRONG_CODE = "That code is not right. Check your authenticator app and try again.";
export const REPLAYED_CODE = "That code was already used. Wait for the next one and try again.";
export const CHALLENGE_OVER = "Too many wrong codes. Sign in again to get a new chance.";

/** What the security settings show: two-step sign-in state and whether there is a password. */
export async function getSecurityOverview(userId: string) {
  const [row] = await getDb()
    .select({
      enabled: userTable.twoFactorEnabled,
      backupCodes: twoFactor.backupCodes,
      verified: twoFactor.verified,
      hasPassword: sql<boolean>`exists (select 1 from ${account} where ${account.userId} = ${userTable.id} and ${account.providerId} = 'credential' and ${account.password} is not null)`,
    })
    .from(userTable)
    .leftJoin(twoFactor, eq(twoFactor.userId, userTable.id))
    .where(eq(userTable.id, userId));
  const codes = row?.backupCodes ? (JSON.parse(row.backupCodes) as string[]) : [];
  const isEnabled = Boolean(row?.enabled && row.verified);
  return {
    isTwoFactorOn: isEnabled,
    backupCodesLeft: isEnabled ? codes.length : 0,
    hasPassword: row?.hasPassword === true,
  };
}

/** A QR code of `text` as an SVG path, drawn by React (no HTML strings). */
export function qrCodeOf(text: string): { size: number; path: string } {
  const { data, size } = encode(text, { ecc: "M", border: 2 });
  let path = "";
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    });
  });
  return { size, path };
}

export type EnrollmentStart =
  | { ok: true; secret: string; uri: string; qr: { size: number; path: string } }
  | AuthFailure;

/** Starts TOTP enrolment: a new secret, shown as a QR code and as text. */
export async function startTotpEnrollment(options: ReauthOptions): Promise<EnrollmentStart> {
  const fresh = await assertRecentAuth(options);
  if (!fresh.ok) return fresh;
  const answer = await callAuth((api) =>
    api.enableTwoFactor({
      body: { method: "totp", password: options.password },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!answer.ok) {
    return {
      ok: false,
      kind: appErrorCodeForStatus(answer.status),
      message: answer.message ?? "Could not start.",
    };
  }
  const { totpURI } = (await answer.response.json()) as { totpURI: string };
  const secret = new URL(totpURI).searchParams.get("secret") ?? "";
  return { ok: true, secret, uri: totpURI, qr: qrCodeOf(totpURI) };
}

/**
 * Starts TOTP enrolment without asking the password again, for a session that signed in less
 * than 10 minutes ago (the token API: Supabase's `POST /factors` carries no password). Older
 * sessions are refused by `assertRecentAuth` exactly as in Settings. The secret is stored as
 * better-auth stores it (encrypted with the auth secret, unverified until the first code), so
 * `confirmTotpEnrollment` finishes it the same way for both doors.
 */
export async function startTotpEnrollmentForRecentSession(options: {
  headers: Headers;
}): Promise<EnrollmentStart> {
  const fresh = await assertRecentAuth({ headers: options.headers });
  if (!fresh.ok) return fresh;
  if ((await getSecurityOverview(fresh.userId)).isTwoFactorOn) {
    return {
      ok: false,
      kind: "invalid",
      code: "two_factor_on",
      message: "Two-step sign-in is already on.",
    };
  }
  const ctx = await getAuth().$context;
  const secret = generateRandomString(32);
  const encrypted = await symmetricEncrypt({ key: ctx.secretConfig, data: secret });
  const [owner] = await getDb()
    .select({ email: userTable.email })
    .from(userTable)
    .where(eq(userTable.id, fresh.userId));
  await getDb().transaction(async (tx) => {
    await tx.delete(twoFactor).where(eq(twoFactor.userId, fresh.userId));
    await tx.insert(twoFactor).values({
      id: randomUUID(),
      userId: fresh.userId,
      secret: encrypted,
      backupCodes: "[]",
      verified: false,
    });
  });
  const uri = createOTP(secret, { digits: 6, period: 30 }).url("Soundtrail", owner?.email ?? "");
  return {
    ok: true,
    secret: new URL(uri).searchParams.get("secret") ?? "",
    uri,
    qr: qrCodeOf(uri),
  };
}

function newBackupCodes(): string[] {
  const alphabet = "abcdefghijkmnpqrstuvwxyz23456789";
  return Array.from({ length: BACKUP_CODE_COUNT }, () => {
    let code = "";
    for (let i = 0; i < 10; i++) code += alphabet[randomInt(alphabet.length)];
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** Replaces the backup codes with 10 new ones, stored hashed; returns them to show once. */
export async function regenerateBackupCodes(userId: string): Promise<string[]> {
  const codes = newBackupCodes();
  await getDb()
    .update(twoFactor)
    .set({ backupCodes: JSON.stringify(codes.map(hashBackupCode)) })
    .where(eq(twoFactor.userId, userId));
  return codes;
}

export const TWO_FACTOR_OFF = "Turn on two-step sign-in first: backup codes go with it.";

/**
 * New backup codes from settings: needs a recent sign-in (else the password) and an `aal2`
 * session (else an authenticator code), like every change to two-step sign-in. The old codes
 * stop working at once; the new ones are returned to be shown once.
 */
export async function regenerateBackupCodesWithReauth(
  options: ReauthOptions & { userId: string },
): Promise<{ ok: true; backupCodes: string[] } | AuthFailure> {
  const overview = await getSecurityOverview(options.userId);
  if (!overview.isTwoFactorOn) {
    return { ok: false, kind: "invalid", code: "two_factor_off", message: TWO_FACTOR_OFF };
  }
  const fresh = await assertRecentAuth({ ...options, requireAal2: true });
  if (!fresh.ok) return fresh;
  if (fresh.userId !== options.userId) {
    return { ok: false, kind: "forbidden", message: "Sign in again to continue." };
  }
  return { ok: true, backupCodes: await regenerateBackupCodes(options.userId) };
}

/**
 * Confirms enrolment with a first code. The session is replaced by one at `aal2` (the headers
 * carry its cookie) and 10 backup codes are returned, to be shown once.
 */
export async function confirmTotpEnrollment(options: {
  userId: string;
  code: string;
  headers: Headers;
}): Promise<(AuthResult & { ok: true; backupCodes: string[] }) | AuthFailure> {
  const code = options.code.trim();
  if (!(await claimTotpCode(options.userId, code))) {
    return {
      ok: false,
      kind: "invalid",
      code: "replayed_code",
      fieldErrors: { code: [REPLAYED_CODE] },
    };
  }
  const answer = await callAuth((api) =>
    api.verifyTOTP({ body: { code }, headers: options.headers, asResponse: true }),
  );
  if (!answer.ok) {
    await releaseTotpCode(options.userId, code);
    return {
      ok: false,
      kind: "invalid",
      code: "invalid_code",
      fieldErrors: { code: [WRONG_CODE] },
    };
  }
  const backupCodes = await regenerateBackupCodes(options.userId);
  return { ok: true, headers: answer.headers, backupCodes };
}

/**
 * The second step of a password sign-in: an authenticator code or a backup code. Five wrong
 * codes end the challenge; a code that was already used is refused.
 */
export async function verifySecondFactor(options: {
  code: string;
  isBackupCode: boolean;
  headers: Headers;
}): Promise<AuthResult> {
  const limited = await checkRateLimits([
    [`code-verify:ip:${clientOf(options.headers)}`, AUTH_LIMITS.verifyCodePerAddress],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const code = options.code.trim();
  const answer = await callAuth((api) =>
    options.isBackupCode
      ? api.verifyBackupCode({
          body: { code: hashBackupCode(code) },
          headers: options.headers,
          asResponse: true,
        })
      : api.verifyTOTP({ body: { code }, headers: options.headers, asResponse: true }),
  );
  if (!answer.ok) {
    if (
      answer.code === "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE" ||
      answer.code === "INVALID_TWO_FACTOR_COOKIE"
    ) {
      return {
        ok: false,
        kind: "unauthenticated",
        code: "challenge_over",
        message: CHALLENGE_OVER,
      };
    }
    if (answer.retryAfterSeconds !== undefined) return rateLimited(answer.retryAfterSeconds);
    return {
      ok: false,
      kind: "invalid",
      code: "invalid_code",
      fieldErrors: {
        code: [
          options.isBackupCode ? "That backup code is not right, or was already used." : WRONG_CODE,
        ],
      },
    };
  }
  const body = (await answer.response.clone().json()) as { token: string; user: { id: string } };
  if (!options.isBackupCode && !(await claimTotpCode(body.user.id, code))) {
    // Accepted by the checker, but seen before: undo the session it just created.
    await getDb().delete(sessionTable).where(eq(sessionTable.token, body.token));
    logger.warn({ userId: body.user.id }, "TOTP replay refused");
    return { ok: false, kind: "unauthenticated", code: "replayed_code", message: REPLAYED_CODE };
  }
  return { ok: true, headers: answer.headers };
}

/**
 * Turns two-step sign-in off for a session that signed in with both steps less than
 * REAUTH_WINDOW_MS ago, without asking for the password again: what the token API's
 * `DELETE /factors/{id}` needs (supabase-js sends no password; Supabase asks for aal2 only).
 * The same effect as better-auth's own `disableTwoFactor`: the secret and the backup codes
 * deleted, the flag off, every session of the person back to aal1.
 */
export async function disableTwoFactorForRecentSession(options: {
  headers: Headers;
  userId: string;
}): Promise<AuthResult> {
  const fresh = await assertRecentAuth({ headers: options.headers, requireAal2: true });
  if (!fresh.ok) return fresh;
  if (fresh.userId !== options.userId) {
    return { ok: false, kind: "forbidden", message: "That is not your account." };
  }
  await getDb().transaction(async (tx) => {
    await tx.delete(twoFactor).where(eq(twoFactor.userId, options.userId));
    await tx
      .update(userTable)
      .set({ twoFactorEnabled: false })
      .where(eq(userTable.id, options.userId));
    await tx
      .update(sessionTable)
      .set({ aal: "aal1" })
      .where(and(eq(sessionTable.userId, options.userId), ne(sessionTable.aal, "aal1")));
  });
  logger.info({ userId: options.userId }, "two-step sign-in turned off through the token API");
  return { ok: true, headers: new Headers() };
}

/**
 * Turns two-factor sign-in off. Needs an `aal2` session; every other session of the person is
 * dropped to `aal1`.
 */
export async function disableTwoFactor(
  options: ReauthOptions & { userId: string },
): Promise<AuthResult> {
  const fresh = await assertRecentAuth({ ...options, requireAal2: true });
  if (!fresh.ok) return fresh;
  const answer = await callAuth((api) =>
    api.disableTwoFactor({
      body: { password: options.password },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!answer.ok) {
    return {
      ok: false,
      kind: appErrorCodeForStatus(answer.status),
      message: answer.message ?? "Could not turn it off.",
    };
  }
  const { headers } = answer;
  await getDb()
    .update(sessionTable)
    .set({ aal: "aal1" })
    .where(and(eq(sessionTable.userId, options.userId), ne(sessionTable.aal, "aal1")));
  return { ok: true, headers };
}
