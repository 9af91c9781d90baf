import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError } from "better-auth/api";
import { getDb } from "~/db/client.server";
import * as schema from "~/db/schema";
import { setAdminRole } from "~/features/auth/admin-role.server";
import { hashPassword, verifyPassword } from "~/features/auth/password.server";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "~/features/auth/password-policy.server";
import {
  createProfile,
  isUsernameAvailable,
  USERNAME_PATTERN,
} from "~/features/auth/profiles.server";
import { sendMail } from "~/features/mail/mail.server";
import { renderEmail } from "~/features/mail/render";
import { CLIENT_IP_HEADER } from "./client-ip";
import { getEnv, resolveAuthSecret } from "./env.server";
import { logger } from "./logger.server";

/** Spec §9: 400 days. */
export const SESSION_MAX_AGE_S = 400 * 24 * 60 * 60;

function confirmUrl(betterAuthUrl: string): string {
  // better-auth's link points at its own endpoint; send people to our page, which calls it.
  const url = new URL(betterAuthUrl);
  const token = url.searchParams.get("token") ?? "";
  const base = new URL(getEnv().BASE_URL);
  return new URL(`/auth/confirm?token=${encodeURIComponent(token)}`, base).toString();
}

/** Grants `admin` to verified accounts listed in ADMIN_EMAILS. */
export async function applyAdminEmails(email: string): Promise<void> {
  if (!getEnv().ADMIN_EMAILS.includes(email.toLowerCase())) return;
  const result = await setAdminRole({ email, isAdmin: true });
  logger.info({ result }, "admin role from ADMIN_EMAILS");
}

function createAuth() {
  const env = getEnv();
  const isHttps = env.BASE_URL.startsWith("https://");
  return betterAuth({
    appName: "Soundtrail",
    baseURL: env.BASE_URL,
    basePath: "/api/auth",
    secret: resolveAuthSecret(env),
    database: drizzleAdapter(getDb(), { provider: "pg", schema }),
    telemetry: { enabled: false },
    user: {
      additionalFields: { username: { type: "string", required: false, input: true } },
    },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      autoSignIn: false,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
      revokeSessionsOnPasswordReset: true,
      password: { hash: hashPassword, verify: verifyPassword },
      onExistingUserSignUp: async ({ user }) => {
        const base = getEnv().BASE_URL;
        await sendMail({
          to: user.email,
          subject: "Someone tried to create a Soundtrail account with your address",
          ...renderEmail({
            title: "You already have an account",
            paragraphs: [
              "Someone (probably you) tried to sign up for Soundtrail with this e-mail address, which already has an account.",
              "If it was you, sign in instead. If you forgot your password, you can reset it from the sign-in page. If it was not you, you can ignore this mail.",
            ],
            action: { label: "Sign in", url: new URL("/auth/login", base).toString() },
          }),
        });
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      expiresIn: 24 * 60 * 60,
      sendVerificationEmail: async ({ user, url }) => {
        await sendMail({
          to: user.email,
          subject: "Confirm your e-mail for Soundtrail",
          ...renderEmail({
            title: "Confirm your e-mail",
            paragraphs: [
              `Hi ${user.name || "there"}, welcome to Soundtrail!`,
              "Confirm your e-mail address to finish creating your account. The link works for 24 hours.",
            ],
            action: { label: "Confirm my e-mail", url: confirmUrl(url) },
            footer:
              "You get this mail because someone signed up for Soundtrail with this address. If it was not you, ignore it.",
          }),
        });
      },
      afterEmailVerification: async (user) => {
        await applyAdminEmails(user.email);
      },
    },
    session: {
      expiresIn: SESSION_MAX_AGE_S,
      updateAge: 24 * 60 * 60,
    },
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 100,
      customRules: {
        "/sign-in/email": { window: 60, max: 10 },
        "/sign-up/email": { window: 60, max: 5 },
        "/send-verification-email": { window: 300, max: 3 },
        "/verify-email": { window: 60, max: 10 },
      },
    },
    advanced: {
      useSecureCookies: isHttps,
      cookiePrefix: "soundtrail",
      defaultCookieAttributes: { sameSite: "lax", httpOnly: true, path: "/" },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            const username = (user as { username?: unknown }).username;
            if (typeof username === "string" && username) {
              if (!USERNAME_PATTERN.test(username)) {
                throw new APIError("BAD_REQUEST", { message: "invalid_username" });
              }
              if (!(await isUsernameAvailable(username))) {
                throw new APIError("BAD_REQUEST", { message: "username_taken" });
              }
            }
            return { data: user };
          },
          after: async (user) => {
            await createProfile({
              userId: user.id,
              email: user.email,
              displayName: user.name || null,
              username: (user as { username?: string | null }).username ?? null,
            });
          },
        },
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
let auth: Auth | undefined;

/** The process's better-auth instance (created on first use, after the database is open). */
export function getAuth(): Auth {
  auth ??= createAuth();
  return auth;
}

/** Forgets the instance (tests open a new database per file). */
export function resetAuth(): void {
  auth = undefined;
}
