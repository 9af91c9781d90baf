import { desc, eq } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import {
  account,
  profiles,
  session as sessionTable,
  twoFactor,
  user as userTable,
} from "~/db/schema";
import { isPlaceholderEmail } from "~/features/auth/index.server";
import { pendingEmailChange, pendingPhoneChange, readMetadata } from "./changes.server";

/** A factor as Supabase lists it on the user (TOTP only here). */
export interface SupabaseFactor {
  id: string;
  friendly_name: string;
  factor_type: "totp";
  status: "verified" | "unverified";
  created_at: string;
  updated_at: string;
}

export interface SupabaseIdentity {
  identity_id: string;
  id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: string | null;
  created_at: string;
  updated_at: string;
  email?: string;
}

/** The user object exactly in Supabase's field names (spec §3 "Auth session"). */
export interface SupabaseUser {
  id: string;
  aud: "authenticated";
  role: "authenticated";
  email: string;
  email_confirmed_at?: string;
  phone: string;
  phone_confirmed_at?: string;
  new_email?: string;
  banned_until?: string;
  email_change_sent_at?: string;
  new_phone?: string;
  confirmed_at?: string;
  last_sign_in_at?: string;
  app_metadata: Record<string, unknown> & {
    provider?: string;
    providers?: string[];
    roles?: string[];
  };
  user_metadata: Record<string, unknown>;
  identities: SupabaseIdentity[];
  factors: SupabaseFactor[];
  is_anonymous: boolean;
  created_at: string;
  updated_at: string;
}

export const TOTP_FRIENDLY_NAME = "Authenticator app";

/** better-auth's provider ids in Supabase's words. */
function providerName(providerId: string, isPhone: boolean): string {
  if (providerId === "credential") return isPhone ? "phone" : "email";
  return providerId;
}

/** Numbers as GoTrue returns them: E.164 digits without the "+" (stored with it here). */
export function supabasePhone(phone: string | null | undefined): string {
  return (phone ?? "").replace(/^\+/, "");
}

/** How a ban without an end shows (GoTrue keeps a timestamp far ahead). */
const PERMANENT_BAN = "9999-12-31T23:59:59.000Z";

const iso = (value: Date | null | undefined) => (value ? value.toISOString() : undefined);

/** Reads a person as Supabase shows them, or null when there is no such account. */
export async function supabaseUser(userId: string): Promise<SupabaseUser | null> {
  const db = getDb();
  const [row] = await db
    .select({
      id: userTable.id,
      email: userTable.email,
      emailVerified: userTable.emailVerified,
      phone: userTable.phoneNumber,
      phoneVerified: userTable.phoneNumberVerified,
      isAnonymous: userTable.isAnonymous,
      banned: userTable.banned,
      banExpires: userTable.banExpires,
      twoFactorEnabled: userTable.twoFactorEnabled,
      createdAt: userTable.createdAt,
      updatedAt: userTable.updatedAt,
      username: profiles.username,
      displayName: profiles.displayName,
      avatarUrl: profiles.avatarUrl,
      bio: profiles.bio,
      roles: profiles.roles,
    })
    .from(userTable)
    .leftJoin(profiles, eq(profiles.userId, userTable.id))
    .where(eq(userTable.id, userId));
  if (!row) return null;
  const [accounts, factors, [lastSession], metadata, emailChange, phoneChange] = await Promise.all([
    db
      .select({
        id: account.id,
        accountId: account.accountId,
        providerId: account.providerId,
        createdAt: account.createdAt,
        updatedAt: account.updatedAt,
      })
      .from(account)
      .where(eq(account.userId, userId)),
    db
      .select({ id: twoFactor.id, verified: twoFactor.verified })
      .from(twoFactor)
      .where(eq(twoFactor.userId, userId)),
    db
      .select({ createdAt: sessionTable.createdAt })
      .from(sessionTable)
      .where(eq(sessionTable.userId, userId))
      .orderBy(desc(sessionTable.createdAt))
      .limit(1),
    readMetadata(userId),
    pendingEmailChange(userId),
    pendingPhoneChange(userId),
  ]);
  const email = isPlaceholderEmail(row.email) ? "" : row.email;
  const isPhone = !email && Boolean(row.phone);
  const isAnonymous = row.isAnonymous === true;
  const providers = isAnonymous
    ? []
    : [...new Set(accounts.map((a) => providerName(a.providerId, isPhone)))];
  const created = row.createdAt.toISOString();
  const updated = row.updatedAt.toISOString();
  const emailConfirmed = email && row.emailVerified ? updated : undefined;
  const phoneConfirmed = row.phone && row.phoneVerified ? updated : undefined;
  return {
    id: row.id,
    aud: "authenticated",
    role: "authenticated",
    email,
    ...(emailConfirmed ? { email_confirmed_at: emailConfirmed } : {}),
    phone: supabasePhone(row.phone),
    ...(phoneConfirmed ? { phone_confirmed_at: phoneConfirmed } : {}),
    ...(emailChange
      ? { new_email: emailChange.email, email_change_sent_at: emailChange.sentAt }
      : {}),
    ...(phoneChange ? { new_phone: supabasePhone(phoneChange) } : {}),
    ...(emailConfirmed || phoneConfirmed ? { confirmed_at: emailConfirmed ?? phoneConfirmed } : {}),
    ...(lastSession ? { last_sign_in_at: iso(lastSession.createdAt) } : {}),
    ...(row.banned && (!row.banExpires || row.banExpires.getTime() > Date.now())
      ? { banned_until: row.banExpires ? row.banExpires.toISOString() : PERMANENT_BAN }
      : {}),
    app_metadata: isAnonymous
      ? { ...metadata.appMetadata }
      : {
          ...metadata.appMetadata,
          provider: providers[0] ?? "email",
          providers,
          ...(row.roles?.length ? { roles: row.roles } : {}),
        },
    user_metadata: {
      ...metadata.userMetadata,
      ...(row.username ? { username: row.username } : {}),
      ...(row.displayName ? { display_name: row.displayName } : {}),
      ...(row.avatarUrl ? { avatar_url: row.avatarUrl } : {}),
      ...(row.bio ? { bio: row.bio } : {}),
    },
    identities: isAnonymous
      ? []
      : accounts.map((a) => {
          const provider = providerName(a.providerId, isPhone);
          const sub = a.providerId === "credential" ? row.id : a.accountId;
          return {
            identity_id: a.id,
            id: sub,
            user_id: row.id,
            identity_data: {
              sub,
              ...(email ? { email, email_verified: row.emailVerified } : {}),
              ...(provider === "phone" && row.phone ? { phone: supabasePhone(row.phone) } : {}),
            },
            provider,
            last_sign_in_at: iso(lastSession?.createdAt) ?? null,
            created_at: a.createdAt.toISOString(),
            updated_at: a.updatedAt.toISOString(),
            ...(email ? { email } : {}),
          };
        }),
    factors: factors.map((f) => ({
      id: f.id,
      friendly_name: TOTP_FRIENDLY_NAME,
      factor_type: "totp",
      status: f.verified && row.twoFactorEnabled ? "verified" : "unverified",
      created_at: created,
      updated_at: updated,
    })),
    is_anonymous: isAnonymous,
    created_at: created,
    updated_at: updated,
  };
}
