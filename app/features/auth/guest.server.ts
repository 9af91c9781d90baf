import { eq } from "drizzle-orm";
import { appErrorCodeForStatus } from "~/core/errors";
import { logger } from "~/core/logger.server";
import { AUTH_LIMITS, checkRateLimits } from "~/core/rate-limit/rate-limit.server";
import { getDb } from "~/db/client.server";
import { account, profiles, user as userTable } from "~/db/schema";
import { type AuthResult, clientOf, rateLimited, refuseWeakPassword } from "./accounts.server";
import { getAuth, isPlaceholderEmail, sendExistingAccountMail } from "./better-auth.server";
import { callAuth } from "./call-auth.server";
import { hashPassword } from "./password.server";

import { isUsernameAvailable } from "./profiles.server";

/** Creates a guest account and signs it in; a guest can post, and upgrade later. */
export async function continueAsGuest(options: { headers: Headers }): Promise<AuthResult> {
  const limited = await checkRateLimits([
    [`guest:ip:${clientOf(options.headers)}`, AUTH_LIMITS.guestPerAddress],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const answer = await callAuth((api) =>
    api.signInAnonymous({ headers: options.headers, asResponse: true }),
  );
  if (answer.ok) return { ok: true, headers: answer.headers };
  if (answer.retryAfterSeconds !== undefined) return rateLimited(answer.retryAfterSeconds);
  logger.warn({ status: answer.status }, "guest sign-in refused");
  return {
    ok: false,
    kind: appErrorCodeForStatus(answer.status),
    message: "We could not start a guest session. Please try again.",
  };
}

export interface UpgradeGuestOptions {
  userId: string;
  email: string;
  password: string;
  username: string;
  displayName: string;
  headers: Headers;
}

/**
 * Turns a guest into a full account *in place*: same user id, so every post, like and follow
 * stays. The e-mail is confirmed by the usual link. An address that already belongs to
 * someone gets the same answer (and its owner a mail), as on sign-up.
 */
export async function upgradeGuest(options: UpgradeGuestOptions): Promise<AuthResult> {
  const limited = await checkRateLimits([
    [`sign-up:ip:${clientOf(options.headers)}`, AUTH_LIMITS.signUpPerAddress],
  ]);
  if (limited) return rateLimited(limited.retryAfterSeconds);
  const db = getDb();
  const [guest] = await db
    .select({ isAnonymous: userTable.isAnonymous, email: userTable.email })
    .from(userTable)
    .where(eq(userTable.id, options.userId));
  if (!guest?.isAnonymous || !isPlaceholderEmail(guest.email)) {
    return {
      ok: false,
      kind: "invalid",
      message: "This account is already a full account.",
    };
  }
  const weak = refuseWeakPassword(options.password, [
    options.email,
    options.username,
    options.displayName,
  ]);
  if (weak) return weak;
  const [own] = await db
    .select({ username: profiles.username })
    .from(profiles)
    .where(eq(profiles.userId, options.userId));
  if (
    own?.username.toLowerCase() !== options.username.toLowerCase() &&
    !(await isUsernameAvailable(options.username))
  ) {
    return {
      ok: false,
      kind: "invalid",
      code: "username_taken",
      fieldErrors: { username: ["This username is taken."] },
    };
  }
  const email = options.email.toLowerCase();
  const [taken] = await db
    .select({ id: userTable.id })
    .from(userTable)
    .where(eq(userTable.email, email));
  const auth = getAuth();
  if (taken) {
    // Same answer as a successful upgrade; the owner learns someone tried.
    await sendExistingAccountMail(email);
    return { ok: true, headers: new Headers() };
  }
  const passwordHash = await hashPassword(options.password);
  await db.transaction(async (tx) => {
    await tx
      .update(userTable)
      .set({
        email,
        emailVerified: false,
        name: options.displayName,
        username: options.username,
        isAnonymous: false,
      })
      .where(eq(userTable.id, options.userId));
    await tx.insert(account).values({
      id: crypto.randomUUID(),
      userId: options.userId,
      providerId: "credential",
      accountId: options.userId,
      password: passwordHash,
    });
    await tx
      .update(profiles)
      .set({ email, displayName: options.displayName, username: options.username })
      .where(eq(profiles.userId, options.userId));
  });
  await auth.api.sendVerificationEmail({
    body: { email, callbackURL: "/settings" },
    headers: options.headers,
  });
  return { ok: true, headers: new Headers() };
}
