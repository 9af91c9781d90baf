import { logger } from "~/core/logger.server";
import { AUTH_LIMITS, checkRateLimits } from "~/core/rate-limit/rate-limit.server";
import { afterResponse } from "~/lib/after-response.server";
import { type AuthResult, clientOf, rateLimited, refuseWeakPassword } from "./accounts.server";
import { callAuth } from "./call-auth.server";

export const RESET_LINK_INVALID =
  "This reset link has expired or was already used. Ask for a new one below.";

/**
 * Mails a reset link when the address has an account. The answer is the same either way, and
 * so is the work done before it: only the rate limits (which do not depend on the account);
 * looking the account up and writing the mail run after the answer.
 */
export async function requestPasswordReset(options: {
  email: string;
  headers: Headers;
}): Promise<AuthResult> {
  const limited = await checkRateLimits([
    [`code-send:ip:${clientOf(options.headers)}`, AUTH_LIMITS.sendCodePerAddress],
    [`code-send:to:${options.email.toLowerCase()}`, AUTH_LIMITS.sendCodePerRecipient],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  // Everything that depends on the account happens after the answer (see afterResponse).
  const headers = new Headers(options.headers);
  afterResponse("password reset mail", async () => {
    const answer = await callAuth((api) =>
      api.requestPasswordReset({
        body: { email: options.email, redirectTo: "/auth/reset-password" },
        headers,
        asResponse: true,
      }),
    );
    if (!answer.ok) logger.warn({ status: answer.status }, "password reset refused");
  });
  return { ok: true, headers: new Headers() };
}

/** Sets a new password from a reset link; every session of the account is signed out. */
export async function resetPassword(options: {
  token: string;
  password: string;
  headers: Headers;
}): Promise<AuthResult> {
  const weak = refuseWeakPassword(options.password, []);
  if (weak) return weak;
  const answer = await callAuth((api) =>
    api.resetPassword({
      body: { token: options.token, newPassword: options.password },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!answer.ok) {
    return { ok: false, kind: "invalid", code: "invalid_link", message: RESET_LINK_INVALID };
  }
  return { ok: true, headers: new Headers() };
}
