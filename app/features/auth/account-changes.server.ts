import { eq } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { user as userTable } from "~/db/schema";
import { renderEmail } from "~/features/mail";
import { sendMail } from "~/features/mail/index.server";
import { sendSms } from "~/features/sms/index.server";
import { type AuthResult, refuseWeakPassword, sessionsEnded } from "./accounts.server";
import { isPlaceholderEmail } from "./better-auth.server";
import { callAuth, cookiesOf } from "./call-auth.server";
import { issueCode } from "./one-time-codes.server";

import { assertRecentAuth, type ReauthOptions } from "./reauth.server";

/**
 * Server functions for sensitive account changes. Each one passes `assertRecentAuth` first;
 * the settings screens call them.
 */

export async function changePassword(
  options: ReauthOptions & {
    currentPassword: string;
    newPassword: string;
    /** End every other session too ("Sign out my other devices"; on unless asked otherwise). */
    signOutOthers?: boolean;
  },
): Promise<AuthResult> {
  const signOutOthers = options.signOutOthers ?? true;
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
  const answer = await callAuth((api) =>
    api.changePassword({
      body: {
        currentPassword: options.currentPassword,
        newPassword: options.newPassword,
        revokeOtherSessions: signOutOthers,
      },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!answer.ok) {
    return {
      ok: false,
      kind: "invalid",
      fieldErrors: { currentPassword: ["That password is not right."] },
    };
  }
  // The other devices' sessions were revoked: their live streams close too.
  if (signOutOthers) await sessionsEnded(fresh.userId);
  return { ok: true, headers: answer.headers };
}

/** Sends a confirmation link to the new address; the change happens when it is opened. */
export async function changeEmail(
  options: ReauthOptions & { newEmail: string },
): Promise<AuthResult> {
  const fresh = await assertRecentAuth(options);
  if (!fresh.ok) return fresh;
  const [current] = await getDb()
    .select({ email: userTable.email, name: userTable.name })
    .from(userTable)
    .where(eq(userTable.id, fresh.userId));
  const answer = await callAuth((api) =>
    api.changeEmail({
      body: { newEmail: options.newEmail, callbackURL: "/settings" },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!answer.ok) {
    return {
      ok: false,
      kind: "invalid",
      fieldErrors: { newEmail: [answer.message ?? "Could not change the e-mail."] },
    };
  }
  // The old address is told, so a change nobody asked for does not go unnoticed.
  if (current && !isPlaceholderEmail(current.email)) {
    await sendMail({
      to: current.email,
      subject: "Your Soundtrail e-mail is being changed",
      ...renderEmail({
        title: "Your e-mail is being changed",
        paragraphs: [
          `Hi ${current.name || "there"}, someone signed in to your Soundtrail account asked to use ${maskEmail(options.newEmail)} instead of this address.`,
          "The change happens when the link sent to the new address is opened. Until then, and if it is never opened, this address stays the one you sign in with.",
          "If this was not you, sign in, change your password in Settings → Security, and sign out the other sessions there.",
        ],
        footer: "You get this mail because it concerns the Soundtrail account of this address.",
      }),
    });
  }
  return { ok: true, headers: new Headers() };
}

/** "ne•••@example.org": enough to recognise an address, not enough to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "another address";
  return `${email.slice(0, Math.min(2, at))}•••${email.slice(at)}`;
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
  const answer = await callAuth((api) =>
    api.verifyPhoneNumber({
      body: { phoneNumber: options.phone, code: options.code.trim(), updatePhoneNumber: true },
      headers: options.headers,
      asResponse: true,
    }),
  );
  if (!answer.ok) {
    return {
      ok: false,
      kind: "invalid",
      fieldErrors: { code: [answer.message ?? "That code is not right."] },
    };
  }
  return { ok: true, headers: answer.headers };
}

/** Deletes the account and everything it owns (foreign keys cascade), then signs out. */
export async function deleteAccount(options: ReauthOptions): Promise<AuthResult> {
  const fresh = await assertRecentAuth(options);
  if (!fresh.ok) return fresh;
  await getDb().delete(userTable).where(eq(userTable.id, fresh.userId));
  logger.info({ userId: fresh.userId }, "account deleted by its owner");
  const answer = await callAuth((api) =>
    api.signOut({ headers: options.headers, asResponse: true }),
  );
  await sessionsEnded(fresh.userId);
  return { ok: true, headers: cookiesOf(answer.response) };
}
