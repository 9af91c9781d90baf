import { and, eq } from "drizzle-orm";
import { AUTH_LIMITS, checkRateLimits } from "~/core/rate-limit/rate-limit.server";
import { getDb } from "~/db/client.server";
import { account } from "~/db/schema";
import { type AuthFailure, rateLimited } from "./accounts.server";
import { getAuth } from "./better-auth.server";
import { callAuth } from "./call-auth.server";
import { verifyPassword } from "./password.server";
import { claimTotpCode } from "./totp-replay.server";

/** Sensitive changes need a sign-in younger than this, or a fresh prompt. */
export const REAUTH_WINDOW_MS = 10 * 60 * 1000;

export const REAUTH_PASSWORD = "For your security, enter your password to continue.";
export const REAUTH_CODE = "Enter a code from your authenticator app to continue.";
export const REAUTH_SIGN_IN_AGAIN = "For your security, sign in again to make this change.";

export interface ReauthOptions {
  headers: Headers;
  /** The current password, when the session is older than the window. */
  password?: string;
  /** An authenticator code, when two-factor sign-in is on and the session is not `aal2`. */
  code?: string;
}

export type ReauthResult =
  | { ok: true; userId: string }
  | (AuthFailure & { needs?: ("password" | "code")[] });

/**
 * Gate for e-mail, password, phone and MFA changes and account deletion: the session must be
 * younger than 10 minutes (else the password is asked again) and at `aal2` when two-factor
 * sign-in is on (else an authenticator code is asked).
 */
export async function assertRecentAuth(
  options: ReauthOptions & { requireAal2?: boolean },
): Promise<ReauthResult> {
  const current = await getAuth().api.getSession({ headers: options.headers });
  if (!current) {
    return {
      ok: false,
      kind: "unauthenticated",
      code: "unauthenticated",
      message: "Sign in first.",
    };
  }
  const { session, user } = current;
  const isRecent = Date.now() - new Date(session.createdAt).getTime() < REAUTH_WINDOW_MS;
  const needsAal2 =
    (user.twoFactorEnabled === true || options.requireAal2 === true) && session.aal !== "aal2";
  const needs: ("password" | "code")[] = [];
  const fieldErrors: Record<string, string[]> = {};
  // Re-checks guess a password or code too: the same kind of budget as signing in.
  if ((!isRecent && options.password) || (needsAal2 && options.code)) {
    const limited = await checkRateLimits([
      [`reauth:account:${user.id}`, AUTH_LIMITS.reauthPerAccount],
    ]);
    if (limited) return rateLimited(limited.retryAfterSeconds);
  }

  if (!isRecent) {
    const [credential] = await getDb()
      .select({ password: account.password })
      .from(account)
      .where(and(eq(account.userId, user.id), eq(account.providerId, "credential")));
    if (!credential?.password) {
      return {
        ok: false,
        kind: "forbidden",
        code: "reauthentication_required",
        message: REAUTH_SIGN_IN_AGAIN,
      };
    }
    if (
      !options.password ||
      !(await verifyPassword({ hash: credential.password, password: options.password }))
    ) {
      needs.push("password");
      fieldErrors.password = [options.password ? "That password is not right." : REAUTH_PASSWORD];
    }
  }
  if (needsAal2) {
    if (!user.twoFactorEnabled) {
      return {
        ok: false,
        kind: "forbidden",
        code: "reauthentication_required",
        message: REAUTH_SIGN_IN_AGAIN,
      };
    }
    const code = options.code?.trim();
    let isValid = false;
    if (code && needs.length === 0) {
      const answer = await callAuth((api) =>
        api.verifyTOTP({ body: { code }, headers: options.headers, asResponse: true }),
      );
      isValid = answer.ok && (await claimTotpCode(user.id, code));
    }
    if (!isValid) {
      needs.push("code");
      fieldErrors.code = [code ? "That code is not right, or was already used." : REAUTH_CODE];
    }
  }
  if (needs.length > 0) {
    return { ok: false, kind: "forbidden", code: "reauthentication_required", fieldErrors, needs };
  }
  return { ok: true, userId: user.id };
}
