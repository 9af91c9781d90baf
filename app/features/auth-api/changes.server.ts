import { createHash, randomBytes, randomInt } from "node:crypto";
import { and, eq, like, ne, sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { account, authUserMetadata, profiles, user as userTable, verification } from "~/db/schema";
import { hashPassword, isPlaceholderEmail, maskEmail } from "~/features/auth/index.server";
import { renderEmail } from "~/features/mail";
import { sendMail } from "~/features/mail/index.server";
import { getEnv } from "~/lib/env.server";
import { AuthApiError } from "./errors.server";

/**
 * What the token API keeps beyond the browser's account helpers, as Supabase Auth has it:
 * free-form metadata, an e-mail change confirmed by token hash or code (how a guest becomes a
 * permanent account), a password set on an account that has none, and whose phone change a
 * texted code belongs to.
 */

// Metadata -------------------------------------------------------------------------------------

export type Metadata = Record<string, unknown>;

/** Supabase's merge: each given key is set, a key given as null is removed. */
export function mergeMetadata(current: Metadata, update: Metadata): Metadata {
  const next: Metadata = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

export async function readMetadata(
  userId: string,
): Promise<{ userMetadata: Metadata; appMetadata: Metadata }> {
  const [row] = await getDb()
    .select({
      userMetadata: authUserMetadata.userMetadata,
      appMetadata: authUserMetadata.appMetadata,
    })
    .from(authUserMetadata)
    .where(eq(authUserMetadata.userId, userId));
  return { userMetadata: row?.userMetadata ?? {}, appMetadata: row?.appMetadata ?? {} };
}

/** Merges into the stored `user_metadata` and/or `app_metadata` of an account. */
export async function updateMetadata(
  userId: string,
  update: { userMetadata?: Metadata | null; appMetadata?: Metadata | null },
): Promise<void> {
  if (!update.userMetadata && !update.appMetadata) return;
  await getDb().transaction(async (tx) => {
    const [row] = await tx
      .select({
        userMetadata: authUserMetadata.userMetadata,
        appMetadata: authUserMetadata.appMetadata,
      })
      .from(authUserMetadata)
      .where(eq(authUserMetadata.userId, userId))
      .for("update");
    const userMetadata = mergeMetadata(row?.userMetadata ?? {}, update.userMetadata ?? {});
    const appMetadata = mergeMetadata(row?.appMetadata ?? {}, update.appMetadata ?? {});
    await tx
      .insert(authUserMetadata)
      .values({ userId, userMetadata, appMetadata })
      .onConflictDoUpdate({
        target: authUserMetadata.userId,
        set: { userMetadata, appMetadata, updatedAt: sql`now()` },
      });
  });
}

// Passwords ------------------------------------------------------------------------------------

/** True when the account has a password (a guest, a code or OAuth sign-up has none). */
export async function hasPassword(userId: string): Promise<boolean> {
  const [row] = await getDb()
    .select({ password: account.password })
    .from(account)
    .where(and(eq(account.userId, userId), eq(account.providerId, "credential")));
  return Boolean(row?.password);
}

/** Sets the first password of an account (there is none to re-enter, as GoTrue allows). */
export async function setFirstPassword(userId: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  const db = getDb();
  const [existing] = await db
    .select({ id: account.id })
    .from(account)
    .where(and(eq(account.userId, userId), eq(account.providerId, "credential")));
  if (existing) {
    await db
      .update(account)
      .set({ password: hash, updatedAt: new Date() })
      .where(eq(account.id, existing.id));
  } else {
    await db.insert(account).values({
      id: crypto.randomUUID(),
      userId,
      providerId: "credential",
      accountId: userId,
      password: hash,
      updatedAt: new Date(),
    });
  }
}

// E-mail change ---------------------------------------------------------------------------------

/** As GoTrue's default mailer OTP expiry. */
const EMAIL_CHANGE_TTL_S = 24 * 60 * 60;
const EMAIL_CHANGE = "auth-api-email-change";

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

interface PendingEmailChange {
  userId: string;
  email: string;
  sentAt: string;
}

export const EMAIL_EXISTS = "A user with this email address has already been registered";

async function emailTaken(email: string, userId: string): Promise<boolean> {
  const [row] = await getDb()
    .select({ id: userTable.id })
    .from(userTable)
    .where(and(sql`lower(${userTable.email}) = ${email.toLowerCase()}`, ne(userTable.id, userId)));
  return Boolean(row);
}

/** The pending change of an account, if one was asked for. */
export async function pendingEmailChange(userId: string): Promise<PendingEmailChange | null> {
  // An exact key: this is read for every user object (GET /user, each refresh).
  const [row] = await getDb()
    .select({ value: verification.value, expiresAt: verification.expiresAt })
    .from(verification)
    .where(eq(verification.identifier, `${EMAIL_CHANGE}:${userId}:pending`));
  if (!row || row.expiresAt.getTime() < Date.now()) return null;
  return JSON.parse(row.value) as PendingEmailChange;
}

/**
 * Mails a link (token hash) and a six-digit code to the new address; either confirms it
 * (`POST /verify` with `type: "email_change"`). One change at a time: asking again replaces it.
 * The old address, if there is one, is told.
 */
export async function requestEmailChange(userId: string, email: string): Promise<void> {
  if (await emailTaken(email, userId)) throw new AuthApiError(422, "email_exists", EMAIL_EXISTS);
  const db = getDb();
  const token = randomBytes(24).toString("base64url");
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const value: PendingEmailChange = { userId, email, sentAt: new Date().toISOString() };
  const expiresAt = new Date(Date.now() + EMAIL_CHANGE_TTL_S * 1000);
  await db.transaction(async (tx) => {
    await tx
      .delete(verification)
      .where(like(verification.identifier, `${EMAIL_CHANGE}:${userId}:%`));
    await tx.insert(verification).values([
      {
        id: crypto.randomUUID(),
        identifier: `${EMAIL_CHANGE}:${userId}:pending`,
        value: JSON.stringify(value),
        expiresAt,
      },
      {
        id: crypto.randomUUID(),
        identifier: `${EMAIL_CHANGE}:${userId}:link:${digest(token)}`,
        value: JSON.stringify(value),
        expiresAt,
      },
      {
        id: crypto.randomUUID(),
        identifier: `${EMAIL_CHANGE}:${userId}:code:${digest(`${email}:${code}`)}`,
        value: JSON.stringify(value),
        expiresAt,
      },
    ]);
  });
  const base = getEnv().BASE_URL.replace(/\/$/, "");
  const link = `${base}/auth/v1/verify?token=${encodeURIComponent(token)}&type=email_change&redirect_to=${encodeURIComponent(base)}`;
  await sendMail({
    to: email,
    subject: `${code} confirms your new e-mail for Soundtrail`,
    ...renderEmail({
      title: "Confirm your new e-mail",
      paragraphs: [
        "This address was given for a Soundtrail account.",
        `Confirm it with the link below, or enter this code in the app: ${code}`,
        `Token hash (for apps): ${token}`,
        "The link and the code work once, for 24 hours.",
      ],
      action: { label: "Confirm my e-mail", url: link },
      footer:
        "You get this mail because someone gave this address for their Soundtrail account. If it was not you, ignore it: nothing changes.",
    }),
  });
  const [current] = await db
    .select({ email: userTable.email, name: userTable.name })
    .from(userTable)
    .where(eq(userTable.id, userId));
  if (current && !isPlaceholderEmail(current.email)) {
    await sendMail({
      to: current.email,
      subject: "Your Soundtrail e-mail is being changed",
      ...renderEmail({
        title: "Your e-mail is being changed",
        paragraphs: [
          `Hi ${current.name || "there"}, someone signed in to your Soundtrail account asked to use ${maskEmail(email)} instead of this address.`,
          "The change happens when the new address is confirmed. Until then this address stays the one you sign in with.",
          "If this was not you, sign in, change your password in Settings → Security, and sign out the other sessions there.",
        ],
        footer: "You get this mail because it concerns the Soundtrail account of this address.",
      }),
    });
  }
}

/** Mails the pending change again (a new link and code), if there is one. */
export async function resendEmailChange(userId: string): Promise<void> {
  const pending = await pendingEmailChange(userId);
  if (pending) await requestEmailChange(userId, pending.email);
}

const EXPIRED_LINK = "Email link is invalid or has expired";
const EXPIRED_TOKEN = "Token has expired or is invalid";

/**
 * Confirms a change by its token hash or by the address and code, once: the address becomes
 * the account's, confirmed; a guest becomes a permanent account with an e-mail identity.
 * Returns the account's id.
 */
export async function confirmEmailChange(
  proof: { tokenHash: string } | { email: string; code: string },
): Promise<string> {
  const db = getDb();
  const pattern =
    "tokenHash" in proof
      ? `${EMAIL_CHANGE}:%:link:${digest(proof.tokenHash)}`
      : `${EMAIL_CHANGE}:%:code:${digest(`${proof.email}:${proof.code.trim()}`)}`;
  const failure = () =>
    new AuthApiError(403, "otp_expired", "tokenHash" in proof ? EXPIRED_LINK : EXPIRED_TOKEN);
  const [row] = await db
    .select({ value: verification.value, expiresAt: verification.expiresAt })
    .from(verification)
    .where(like(verification.identifier, pattern))
    .limit(1);
  if (!row || row.expiresAt.getTime() < Date.now()) throw failure();
  const pending = JSON.parse(row.value) as PendingEmailChange;
  const [owner] = await db
    .select({ id: userTable.id, banned: userTable.banned })
    .from(userTable)
    .where(eq(userTable.id, pending.userId));
  if (!owner) throw failure();
  if (owner.banned) throw new AuthApiError(403, "user_banned", "User is banned");
  if (!(await applyEmailChange(owner.id, pending.email))) throw failure();
  return owner.id;
}

/**
 * Makes the address the account's, confirmed (a guest becomes a permanent account with an
 * e-mail identity), and ends its pending change. False when the change was taken already.
 */
export async function applyEmailChange(
  userId: string,
  email: string,
  options: { pendingOnly?: boolean } = { pendingOnly: true },
): Promise<boolean> {
  if (await emailTaken(email, userId)) {
    throw new AuthApiError(422, "email_exists", EMAIL_EXISTS);
  }
  return getDb().transaction(async (tx) => {
    const removed = await tx
      .delete(verification)
      .where(like(verification.identifier, `${EMAIL_CHANGE}:${userId}:%`))
      .returning({ id: verification.id });
    if (options.pendingOnly && removed.length === 0) return false;
    await tx
      .update(userTable)
      .set({ email, emailVerified: true, isAnonymous: false, updatedAt: new Date() })
      .where(eq(userTable.id, userId));
    await tx.update(profiles).set({ email }).where(eq(profiles.userId, userId));
    const [credential] = await tx
      .select({ id: account.id })
      .from(account)
      .where(and(eq(account.userId, userId), eq(account.providerId, "credential")));
    if (!credential) {
      // The e-mail identity (no password yet: PUT /user sets one without a current one).
      await tx.insert(account).values({
        id: crypto.randomUUID(),
        userId,
        providerId: "credential",
        accountId: userId,
        updatedAt: new Date(),
      });
    }
    return true;
  });
}

// Phone change ----------------------------------------------------------------------------------

const PHONE_CHANGE = "auth-api-phone-change";

/** Remembers whose phone change a texted code is for (verify needs no bearer, as GoTrue). */
export async function rememberPhoneChange(userId: string, phone: string): Promise<void> {
  const db = getDb();
  await db.delete(verification).where(eq(verification.identifier, `${PHONE_CHANGE}:${userId}`));
  await db.insert(verification).values({
    id: crypto.randomUUID(),
    identifier: `${PHONE_CHANGE}:${userId}`,
    value: phone,
    expiresAt: new Date(Date.now() + 24 * 60 * 60 * 1000),
  });
}

/** The account waiting to change to this number, or the pending number of an account. */
export async function phoneChangeOwner(phone: string): Promise<string | null> {
  const [row] = await getDb()
    .select({ identifier: verification.identifier, expiresAt: verification.expiresAt })
    .from(verification)
    .where(and(like(verification.identifier, `${PHONE_CHANGE}:%`), eq(verification.value, phone)))
    .limit(1);
  if (!row || row.expiresAt.getTime() < Date.now()) return null;
  return row.identifier.slice(PHONE_CHANGE.length + 1);
}

export async function pendingPhoneChange(userId: string): Promise<string | null> {
  const [row] = await getDb()
    .select({ value: verification.value, expiresAt: verification.expiresAt })
    .from(verification)
    .where(eq(verification.identifier, `${PHONE_CHANGE}:${userId}`));
  return row && row.expiresAt.getTime() > Date.now() ? row.value : null;
}

export async function forgetPhoneChange(userId: string): Promise<void> {
  await getDb()
    .delete(verification)
    .where(eq(verification.identifier, `${PHONE_CHANGE}:${userId}`));
}
