import { eq } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { user as userTable } from "~/db/schema";
import { sendSms } from "~/features/sms/sms.server";
import { getAuth } from "~/lib/auth.server";
import { logger } from "~/lib/logger.server";
import {
  type AuthResult,
  cookiesOf,
  errorMessage,
  refuseWeakPassword,
  sessionsEnded,
} from "./accounts.server";
import { issueCode } from "./one-time-codes.server";

import { assertRecentAuth, type ReauthOptions } from "./reauth.server";

/**
 * Server functions for sensitive account changes. Each one passes `assertRecentAuth` first;
 * the settings screens call them.
 */

export async function changePassword(
  options: ReauthOptions & { currentPassword: string; newPassword: string },
): Promise<AuthResult> {
  const fresh = await assertRecentAuth({ ...options, password: options.currentPassword });
  if (!fresh.ok) return fresh;
  const [owner] = await getDb()
    .select({ email: userTable.email, username: userTable.username })
    .from(userTable)
    .where(eq(userTable.id, fresh.userId));
  const weak = refuseWeakPassword(
    options.newPassword,
    [owner?.email ?? "", owner?.username ?? ""],
    "newPassword",
  );
  if (weak) return weak;
  const response = await getAuth().api.changePassword({
    body: {
      currentPassword: options.currentPassword,
      newPassword: options.newPassword,
      revokeOtherSessions: true,
    },
    headers: options.headers,
    asResponse: true,
  });
  if (!response.ok) {
    return { ok: false, status: 400, errors: { currentPassword: ["That password is not right."] } };
  }
  // The other devices' sessions were revoked: their live streams close too.
  await sessionsEnded(fresh.userId);
  return { ok: true, headers: cookiesOf(response) };
}

/** Sends a confirmation link to the new address; the change happens when it is opened. */
export async function changeEmail(
  options: ReauthOptions & { newEmail: string },
): Promise<AuthResult> {
  const fresh = await assertRecentAuth(options);
  if (!fresh.ok) return fresh;
  const response = await getAuth().api.changeEmail({
    body: { newEmail: options.newEmail, callbackURL: "/settings" },
    headers: options.headers,
    asResponse: true,
  });
  if (!response.ok) {
    const { message } = await errorMessage(response);
    return {
      ok: false,
      status: 400,
      errors: { newEmail: [message ?? "Could not change the e-mail."] },
    };
  }
  return { ok: true, headers: new Headers() };
}

/** Texts a code to a new phone number; `confirmPhoneChange` finishes the change. */
export async function requestPhoneChange(
  options: ReauthOptions & { phone: string },
): Promise<AuthResult> {
  const fresh = await assertRecentAuth(options);
  if (!fresh.ok) return fresh;
  const code = await issueCode({ purpose: "phone-sign-in", subject: options.phone });
  await sendSms({
    to: options.phone,
    body: `${code} is your Soundtrail code to confirm this number.`,
  });
  return { ok: true, headers: new Headers() };
}

export async function confirmPhoneChange(
  options: ReauthOptions & { phone: string; code: string },
): Promise<AuthResult> {
  const fresh = await assertRecentAuth(options);
  if (!fresh.ok) return fresh;
  const response = await getAuth().api.verifyPhoneNumber({
    body: { phoneNumber: options.phone, code: options.code.trim(), updatePhoneNumber: true },
    headers: options.headers,
    asResponse: true,
  });
  if (!response.ok) {
    const { message } = await errorMessage(response);
    return { ok: false, status: 400, errors: { code: [message ?? "That code is not right."] } };
  }
  return { ok: true, headers: cookiesOf(response) };
}

/** Deletes the account and everything it owns (foreign keys cascade), then signs out. */
export async function deleteAccount(options: ReauthOptions): Promise<AuthResult> {
  const fresh = await assertRecentAuth(options);
  if (!fresh.ok) return fresh;
  await getDb().delete(userTable).where(eq(userTable.id, fresh.userId));
  logger.info({ userId: fresh.userId }, "account deleted by its owner");
  const response = await getAuth().api.signOut({ headers: options.headers, asResponse: true });
  await sessionsEnded(fresh.userId);
  return { ok: true, headers: cookiesOf(response) };
}
