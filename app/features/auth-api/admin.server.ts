import { createHash, randomBytes, randomInt } from "node:crypto";
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "~/db/client.server";
import {
  account,
  authTokenSessions,
  session as sessionTable,
  twoFactor,
  user as userTable,
  verification,
} from "~/db/schema";
import { recordServiceRoleAudit } from "~/features/admin/index.server";
import {
  getAuth,
  PLACEHOLDER_EMAIL_DOMAIN,
  refuseWeakPassword,
  sessionsEnded,
} from "~/features/auth/index.server";
import { renderEmail } from "~/features/mail";
import { sendMail } from "~/features/mail/index.server";
import { getEnv } from "~/lib/env.server";
import { applyEmailChange, EMAIL_EXISTS, setFirstPassword, updateMetadata } from "./changes.server";
import { AuthApiError, validationFailed } from "./errors.server";
import { bearerTokenOf, SERVICE_ROLE, verifiedRole } from "./tokens.server";
import { type SupabaseUser, supabaseUser } from "./users.server";

/**
 * The admin part of the token API (`/auth/v1/admin/*`, `POST /auth/v1/invite`): what
 * supabase-js calls `auth.admin.*`, for an app's own server. Only the service-role key
 * (`npm run auth:service-key`: a JWT with `role: service_role` signed by the instance's keys)
 * is let in, as a bearer; a person's access token gets GoTrue's 403 `not_admin`, and cookies are
 * never read here. Every change is written to the admin audit log, as the admin pages do.
 */

/** GoTrue's requireAdminCredentials: the bearer must be the service-role key. */
export async function requireServiceRole(headers: Headers): Promise<void> {
  const token = bearerTokenOf(headers);
  if (!token) {
    throw new AuthApiError(401, "no_authorization", "This endpoint requires a valid Bearer token");
  }
  const role = await verifiedRole(token);
  if (role === null) {
    throw new AuthApiError(
      403,
      "bad_jwt",
      "invalid JWT: unable to parse or verify signature, token is expired or malformed",
    );
  }
  if (role !== SERVICE_ROLE) throw new AuthApiError(403, "not_admin", "User not allowed");
}

/** True when the request's `apikey` header is the service-role key (admin.signOut(jwt)). */
export async function isServiceRoleKey(headers: Headers): Promise<boolean> {
  const key = headers.get("apikey");
  return key ? (await verifiedRole(key)) === SERVICE_ROLE : false;
}

async function audit(
  action: Parameters<typeof recordServiceRoleAudit>[1]["action"],
  targetId: string | null,
  details: Record<string, unknown> = {},
): Promise<void> {
  await getDb().transaction((tx) =>
    recordServiceRoleAudit(tx, { action, targetType: "user", targetId, details }),
  );
}

const USER_NOT_FOUND = () => new AuthApiError(404, "user_not_found", "User not found");

async function userOrNotFound(userId: string): Promise<SupabaseUser> {
  const found = await supabaseUser(userId);
  if (!found) throw USER_NOT_FOUND();
  return found;
}

const metadataField = z.record(z.string(), z.unknown()).optional().nullable();

const adminUserSchema = z.object({
  email: z.string().max(255).optional().nullable(),
  phone: z.string().max(40).optional().nullable(),
  password: z.string().max(1000).optional().nullable(),
  email_confirm: z.boolean().optional().nullable(),
  phone_confirm: z.boolean().optional().nullable(),
  user_metadata: metadataField,
  app_metadata: metadataField,
  ban_duration: z.string().max(40).optional().nullable(),
  role: z.string().optional().nullable(),
});

function parseInput<T extends z.ZodType>(schema: T, body: Record<string, unknown>): z.infer<T> {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw validationFailed(
      issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "Invalid request",
    );
  }
  return result.data;
}

/** Go's time.ParseDuration for the units GoTrue's ban_duration takes ("24h", "1h30m", "none"). */
export function parseBanDuration(value: string): number | null {
  if (value === "none") return 0;
  const units: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    µs: 1e-3,
    ms: 1,
    s: 1e3,
    m: 6e4,
    h: 36e5,
  };
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== value) return null;
  return parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] ?? "s"] ?? 0), 0);
}

function emailOf(value: string): string {
  const parsed = z.string().trim().toLowerCase().pipe(z.email()).safeParse(value);
  if (!parsed.success) throw validationFailed("Unable to validate email address: invalid format");
  return parsed.data;
}

function phoneOf(value: string): string {
  const digits = value.trim().replace(/^\+/, "").replaceAll(" ", "");
  if (!/^[1-9][0-9]{1,14}$/.test(digits)) {
    throw validationFailed("Invalid phone number format (E.164 required)");
  }
  return `+${digits}`;
}

async function contactTaken(
  email: string | null,
  phone: string | null,
  except?: string,
): Promise<boolean> {
  const [row] = await getDb()
    .select({ id: userTable.id })
    .from(userTable)
    .where(
      and(
        email ? sql`lower(${userTable.email}) = ${email}` : eq(userTable.phoneNumber, phone ?? ""),
        except ? sql`${userTable.id} <> ${except}` : undefined,
      ),
    );
  return Boolean(row);
}

function suggestedUsername(seed: string): string {
  const base = seed
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, "")
    .slice(0, 20);
  return `${base.length >= 3 ? base : "listener"}_${randomBytes(3).toString("hex")}`;
}

/** Makes an account as the service role asks (confirmed or not, with or without a password). */
async function createAccount(input: {
  email: string | null;
  phone: string | null;
  emailConfirmed: boolean;
  phoneConfirmed: boolean;
  userMetadata?: Record<string, unknown> | null;
}): Promise<string> {
  if (await contactTaken(input.email, input.phone)) {
    throw input.email
      ? new AuthApiError(422, "email_exists", EMAIL_EXISTS)
      : new AuthApiError(
          422,
          "phone_exists",
          "A user with this phone number has already been registered",
        );
  }
  const local = input.email?.split("@")[0] ?? "listener";
  const name = String(
    input.userMetadata?.display_name ?? input.userMetadata?.full_name ?? local,
  ).slice(0, 50);
  const ctx = await getAuth().$context;
  const created = await ctx.internalAdapter.createUser(
    {
      email:
        input.email ??
        `phone-${(input.phone ?? "").replace(/\D/g, "")}@${PLACEHOLDER_EMAIL_DOMAIN}`,
      emailVerified: Boolean(input.email) && input.emailConfirmed,
      name,
      username: suggestedUsername(local),
      ...(input.phone
        ? { phoneNumber: input.phone, phoneNumberVerified: input.phoneConfirmed }
        : {}),
    },
    { method: "admin" },
  );
  if (!created) throw new AuthApiError(500, "unexpected_failure", "Database error creating user");
  if (input.email) {
    // The e-mail identity (a password, if any, is set on it).
    await getDb().insert(account).values({
      id: crypto.randomUUID(),
      userId: created.id,
      providerId: "credential",
      accountId: created.id,
      updatedAt: new Date(),
    });
  }
  if (input.userMetadata) await updateMetadata(created.id, { userMetadata: input.userMetadata });
  return created.id;
}

async function setBan(userId: string, duration: string): Promise<void> {
  const ms = parseBanDuration(duration);
  if (ms === null) {
    throw validationFailed(`invalid format for ban duration: time: invalid duration "${duration}"`);
  }
  const db = getDb();
  if (ms === 0) {
    await db
      .update(userTable)
      .set({ banned: false, banReason: null, banExpires: null })
      .where(eq(userTable.id, userId));
    return;
  }
  await db.transaction(async (tx) => {
    await tx
      .update(userTable)
      .set({
        banned: true,
        banReason: "service role",
        banExpires: new Date(Date.now() + ms),
      })
      .where(eq(userTable.id, userId));
    // Signed out everywhere at once, as a ban from the admin pages.
    await tx.delete(sessionTable).where(eq(sessionTable.userId, userId));
  });
  await sessionsEnded(userId);
}

async function applyPassword(userId: string, password: string, related: string[]) {
  const weak = refuseWeakPassword(password, related);
  if (weak) {
    const reasons = weak.reasons ?? [];
    throw new AuthApiError(422, "weak_password", "Password is too weak", {
      weak_password: { reasons, message: "Password is too weak" },
    });
  }
  await setFirstPassword(userId, password);
}

// POST /admin/users
export async function adminCreateUser(body: Record<string, unknown>): Promise<SupabaseUser> {
  const input = parseInput(adminUserSchema, body);
  if (!input.email && !input.phone) {
    throw validationFailed("Cannot create a user without either an email or phone");
  }
  const email = input.email ? emailOf(input.email) : null;
  const phone = !email && input.phone ? phoneOf(input.phone) : null;
  const userId = await createAccount({
    email,
    phone,
    emailConfirmed: input.email_confirm === true,
    phoneConfirmed: input.phone_confirm === true,
    userMetadata: input.user_metadata,
  });
  if (input.password) await applyPassword(userId, input.password, [email ?? phone ?? ""]);
  if (input.app_metadata) await updateMetadata(userId, { appMetadata: input.app_metadata });
  if (input.ban_duration) await setBan(userId, input.ban_duration);
  await audit("user.create", userId, { email, phone });
  return userOrNotFound(userId);
}

const DEFAULT_PER_PAGE = 50;

// GET /admin/users?page=&per_page=
export async function adminListUsers(url: URL): Promise<Response> {
  const page = Number(url.searchParams.get("page") || "1");
  const perPage = Number(url.searchParams.get("per_page") || String(DEFAULT_PER_PAGE));
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1) {
    throw validationFailed(
      "Bad Pagination Parameters: page and per_page must be positive integers",
    );
  }
  const limit = Math.min(perPage, 1000);
  const db = getDb();
  const [totals] = await db.select({ total: count() }).from(userTable);
  const total = totals?.total ?? 0;
  const ids = await db
    .select({ id: userTable.id })
    .from(userTable)
    .orderBy(desc(userTable.createdAt), desc(userTable.id))
    .limit(limit)
    .offset((page - 1) * limit);
  const users = (await Promise.all(ids.map((row) => supabaseUser(row.id)))).filter(
    (u): u is SupabaseUser => u !== null,
  );
  // GoTrue's pagination headers: rel="next" while there is one, rel="last", X-Total-Count.
  const totalPages = Math.max(1, Math.ceil(total / limit));
  const link = (n: number) => {
    const next = new URL(url);
    next.searchParams.set("page", String(n));
    return `<${next.pathname}${next.search}>`;
  };
  const links = [
    ...(totalPages > page ? [`${link(page + 1)}; rel="next"`] : []),
    `${link(totalPages)}; rel="last"`,
  ];
  return new Response(JSON.stringify({ users, aud: "authenticated" }), {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      Link: links.join(", "),
      "X-Total-Count": String(total),
    },
  });
}

// GET /admin/users/{id}
export async function adminGetUser(userId: string): Promise<SupabaseUser> {
  return userOrNotFound(userId);
}

// PUT /admin/users/{id}
export async function adminUpdateUser(
  userId: string,
  body: Record<string, unknown>,
): Promise<SupabaseUser> {
  const before = await userOrNotFound(userId);
  const input = parseInput(adminUserSchema, body);
  const changed: string[] = [];
  if (input.email) {
    const email = emailOf(input.email);
    if (email !== before.email) {
      if (await contactTaken(email, null, userId)) {
        throw new AuthApiError(422, "email_exists", EMAIL_EXISTS);
      }
      // The service role's change takes effect at once (GoTrue's admin update does the same).
      await applyEmailChange(userId, email, { pendingOnly: false });
      if (input.email_confirm === false) {
        await getDb()
          .update(userTable)
          .set({ emailVerified: false })
          .where(eq(userTable.id, userId));
      }
      changed.push("email");
    }
  }
  if (input.email_confirm === true) {
    await getDb().update(userTable).set({ emailVerified: true }).where(eq(userTable.id, userId));
    changed.push("email_confirm");
  }
  if (input.phone) {
    const phone = phoneOf(input.phone);
    if (await contactTaken(null, phone, userId)) {
      throw new AuthApiError(
        422,
        "phone_exists",
        "A user with this phone number has already been registered",
      );
    }
    await getDb()
      .update(userTable)
      .set({ phoneNumber: phone, phoneNumberVerified: input.phone_confirm === true })
      .where(eq(userTable.id, userId));
    changed.push("phone");
  }
  if (input.password) {
    await applyPassword(userId, input.password, [before.email]);
    changed.push("password");
  }
  if (input.user_metadata) {
    await updateMetadata(userId, { userMetadata: input.user_metadata });
    changed.push("user_metadata");
  }
  if (input.app_metadata) {
    await updateMetadata(userId, { appMetadata: input.app_metadata });
    changed.push("app_metadata");
  }
  if (input.ban_duration) {
    await setBan(userId, input.ban_duration);
    changed.push(`ban_duration=${input.ban_duration}`);
  }
  await audit("user.update", userId, { changed });
  return userOrNotFound(userId);
}

// DELETE /admin/users/{id}
export async function adminDeleteUser(
  userId: string,
  body: Record<string, unknown>,
): Promise<Record<string, never>> {
  const found = await userOrNotFound(userId);
  const input = parseInput(
    z.object({ should_soft_delete: z.boolean().optional().nullable() }),
    body,
  );
  const db = getDb();
  if (input.should_soft_delete) {
    // GoTrue's soft delete: the row stays (and what it posted), its address and number are
    // freed, its ways in are removed and it is signed out; it can never sign in again.
    await db.transaction(async (tx) => {
      await tx
        .update(userTable)
        .set({
          email: `deleted-${userId}@${PLACEHOLDER_EMAIL_DOMAIN}`,
          emailVerified: false,
          phoneNumber: null,
          phoneNumberVerified: false,
          banned: true,
          banReason: "deleted",
          banExpires: null,
        })
        .where(eq(userTable.id, userId));
      await tx.delete(account).where(eq(account.userId, userId));
      await tx.delete(authTokenSessions).where(eq(authTokenSessions.userId, userId));
      await tx.delete(sessionTable).where(eq(sessionTable.userId, userId));
      await recordServiceRoleAudit(tx, {
        action: "user.delete",
        targetType: "user",
        targetId: userId,
        details: { soft: true, email: found.email },
      });
    });
  } else {
    await db.transaction(async (tx) => {
      await tx.delete(userTable).where(eq(userTable.id, userId));
      await recordServiceRoleAudit(tx, {
        action: "user.delete",
        targetType: "user",
        targetId: userId,
        details: { soft: false, email: found.email },
      });
    });
  }
  await sessionsEnded(userId);
  return {};
}

// GET /admin/users/{id}/factors
export async function adminListFactors(userId: string) {
  return (await userOrNotFound(userId)).factors;
}

// DELETE /admin/users/{id}/factors/{factorId}
export async function adminDeleteFactor(userId: string, factorId: string) {
  const found = await userOrNotFound(userId);
  const factor = found.factors.find((f) => f.id === factorId);
  if (!factor) throw new AuthApiError(404, "mfa_factor_not_found", "Factor not found");
  await getDb().transaction(async (tx) => {
    await tx.delete(twoFactor).where(and(eq(twoFactor.id, factorId), eq(twoFactor.userId, userId)));
    await tx.update(userTable).set({ twoFactorEnabled: false }).where(eq(userTable.id, userId));
    await recordServiceRoleAudit(tx, {
      action: "factor.delete",
      targetType: "user",
      targetId: userId,
      details: { factorId },
    });
  });
  return factor;
}

// Links ------------------------------------------------------------------------------------------

const LINK = "auth-api-link";
const LINK_TTL_S = 24 * 60 * 60;
const LINK_TYPES = ["signup", "invite", "magiclink", "recovery", "email_change_new"] as const;
type LinkType = (typeof LINK_TYPES)[number];

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

interface StoredLink {
  userId: string;
  type: LinkType;
  email: string;
}

/** Stores a link (token hash) and a code for an account; `POST /verify` redeems either once. */
async function issueLink(link: StoredLink): Promise<{ token: string; code: string }> {
  const token = randomBytes(24).toString("base64url");
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  // Exact keys (every POST /verify looks here first); each row names its sibling.
  const linkKey = `${LINK}:link:${digest(token)}`;
  const codeKey = `${LINK}:code:${digest(`${link.email}:${code}`)}`;
  const expiresAt = new Date(Date.now() + LINK_TTL_S * 1000);
  await getDb()
    .insert(verification)
    .values([
      {
        id: crypto.randomUUID(),
        identifier: linkKey,
        value: JSON.stringify({ ...link, sibling: codeKey }),
        expiresAt,
      },
      {
        id: crypto.randomUUID(),
        identifier: codeKey,
        value: JSON.stringify({ ...link, sibling: linkKey }),
        expiresAt,
      },
    ]);
  return { token, code };
}

/** Which verify types redeem which link: GoTrue's, where `email` takes sign-up and magic links. */
const REDEEMS: Record<string, LinkType[]> = {
  signup: ["signup"],
  invite: ["invite"],
  magiclink: ["magiclink"],
  email: ["signup", "magiclink", "invite"],
  recovery: ["recovery"],
  email_change: ["email_change_new"],
};

/**
 * Redeems a link made by generate_link or an invitation, once. Returns the account and what to
 * do, or null when the token is none of them (the caller tries its other kinds).
 */
export async function redeemLink(
  type: string,
  proof: { tokenHash: string } | { email: string; code: string },
): Promise<{ userId: string; type: LinkType } | null> {
  const accepted = REDEEMS[type];
  if (!accepted) return null;
  const key =
    "tokenHash" in proof
      ? `${LINK}:link:${digest(proof.tokenHash)}`
      : `${LINK}:code:${digest(`${proof.email}:${proof.code.trim()}`)}`;
  const db = getDb();
  const [row] = await db
    .select({ value: verification.value, expiresAt: verification.expiresAt })
    .from(verification)
    .where(eq(verification.identifier, key));
  if (!row) return null;
  const stored = JSON.parse(row.value) as StoredLink & { sibling: string };
  if (!accepted.includes(stored.type)) return null;
  // Both forms of this link go, at once: only one request can have it.
  const removed = await db
    .delete(verification)
    .where(inArray(verification.identifier, [key, stored.sibling]))
    .returning({ identifier: verification.identifier });
  if (!removed.some((r) => r.identifier === key) || row.expiresAt.getTime() < Date.now()) {
    throw new AuthApiError(403, "otp_expired", "Email link is invalid or has expired");
  }
  if (stored.type === "email_change_new") {
    await applyEmailChange(stored.userId, stored.email, { pendingOnly: false });
  } else if (stored.type !== "recovery") {
    await db.update(userTable).set({ emailVerified: true }).where(eq(userTable.id, stored.userId));
  }
  return { userId: stored.userId, type: stored.type };
}

function actionLink(token: string, type: string, redirectTo: string | null): string {
  const base = getEnv().BASE_URL.replace(/\/$/, "");
  const target = redirectTo ?? base;
  return `${base}/auth/v1/verify?token=${encodeURIComponent(token)}&type=${type}&redirect_to=${encodeURIComponent(target)}`;
}

async function userIdByEmail(email: string): Promise<string | null> {
  const [row] = await getDb()
    .select({ id: userTable.id })
    .from(userTable)
    .where(sql`lower(${userTable.email}) = ${email}`);
  return row?.id ?? null;
}

// POST /admin/generate_link
export async function adminGenerateLink(
  body: Record<string, unknown>,
  redirectTo: string | null,
): Promise<Record<string, unknown>> {
  const input = parseInput(
    z.object({
      type: z.string().optional().nullable(),
      email: z.string().max(255).optional().nullable(),
      password: z.string().max(1000).optional().nullable(),
      new_email: z.string().max(255).optional().nullable(),
      data: metadataField,
      redirect_to: z.string().max(2000).optional().nullable(),
    }),
    body,
  );
  const types = [
    "signup",
    "invite",
    "magiclink",
    "recovery",
    "email_change_current",
    "email_change_new",
  ];
  if (!input.type || !types.includes(input.type)) {
    throw validationFailed("Invalid email action link type requested");
  }
  if (!input.email) throw validationFailed("An email address is required");
  const email = emailOf(input.email);
  let userId = await userIdByEmail(email);
  let type = input.type as LinkType | "email_change_current";
  if (type === "signup" || type === "invite") {
    if (userId) throw new AuthApiError(422, "email_exists", EMAIL_EXISTS);
    if (type === "signup" && !input.password) {
      throw validationFailed("Signup requires a valid password");
    }
    userId = await createAccount({
      email,
      phone: null,
      emailConfirmed: false,
      phoneConfirmed: false,
      userMetadata: input.data,
    });
    if (input.password) await applyPassword(userId, input.password, [email]);
  } else if (!userId) {
    throw USER_NOT_FOUND();
  }
  let linkEmail = email;
  if (type === "email_change_current" || type === "email_change_new") {
    if (!input.new_email) throw validationFailed("The new email address provided is invalid");
    linkEmail = emailOf(input.new_email);
    if (await contactTaken(linkEmail, null, userId)) {
      throw new AuthApiError(422, "email_exists", EMAIL_EXISTS);
    }
    type = "email_change_new";
  }
  const { token, code } = await issueLink({ userId, type, email: linkEmail });
  const verifyType = type === "email_change_new" ? "email_change" : type;
  await audit("user.generate_link", userId, { type: input.type });
  const user = await userOrNotFound(userId);
  return {
    ...user,
    action_link: actionLink(token, verifyType, input.redirect_to ?? redirectTo),
    email_otp: code,
    hashed_token: token,
    redirect_to: input.redirect_to ?? redirectTo ?? getEnv().BASE_URL,
    verification_type: verifyType,
  };
}

// POST /invite
export async function adminInvite(
  body: Record<string, unknown>,
  redirectTo: string | null,
): Promise<SupabaseUser> {
  const input = parseInput(
    z.object({ email: z.string().max(255).optional().nullable(), data: metadataField }),
    body,
  );
  if (!input.email) throw validationFailed("An email address is required");
  const email = emailOf(input.email);
  if (await userIdByEmail(email)) throw new AuthApiError(422, "email_exists", EMAIL_EXISTS);
  const userId = await createAccount({
    email,
    phone: null,
    emailConfirmed: false,
    phoneConfirmed: false,
    userMetadata: input.data,
  });
  const { token, code } = await issueLink({ userId, type: "invite", email });
  await sendMail({
    to: email,
    subject: "You are invited to Soundtrail",
    ...renderEmail({
      title: "You are invited",
      paragraphs: [
        "Someone made a Soundtrail account for this address.",
        `Accept with the link below, or enter this code in the app: ${code}`,
        "The link and the code work once, for 24 hours.",
      ],
      action: { label: "Accept the invitation", url: actionLink(token, "invite", redirectTo) },
      footer: "If you did not expect this, ignore this mail: nothing happens.",
    }),
  });
  await audit("user.invite", userId, { email });
  return userOrNotFound(userId);
}

export async function auditServiceSignOut(userId: string, scope: string): Promise<void> {
  await audit("user.sign_out", userId, { scope });
}
