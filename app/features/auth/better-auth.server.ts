import { createHmac } from "node:crypto";
import { betterAuth, type GenericEndpointContext } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError } from "better-auth/api";
import { anonymous, emailOTP, phoneNumber, twoFactor } from "better-auth/plugins";
import { eq } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import * as schema from "~/db/schema";
import { isDatabaseUnavailable, logDatabaseUnavailable } from "~/db/unavailable.server";
import { renderEmail } from "~/features/mail";
import { sendMail } from "~/features/mail/index.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { getEnv, resolveAuthSecret } from "~/lib/env.server";
import { setAdminRole } from "./admin-role.server";
import { consumeCode } from "./one-time-codes.server";
import { hashPassword, verifyPassword } from "./password.server";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./password-policy.server";
import { createProfile, isUsernameAvailable, USERNAME_PATTERN } from "./profiles.server";

/** Spec §9: 400 days. */
export const SESSION_MAX_AGE_S = 400 * 24 * 60 * 60;

function confirmUrl(betterAuthUrl: string): string {
  // better-auth's link points at its own endpoint; send people to our page, which calls it.
  // Sign-ups confirm at /auth/confirm; people who are already signed in (a guest saving the
  // account, an e-mail change) confirm inside the app, since /auth/confirm sends them away.
  const url = new URL(betterAuthUrl);
  const token = url.searchParams.get("token") ?? "";
  const page =
    url.searchParams.get("callbackURL") === "/settings"
      ? "/settings/confirm-email"
      : "/auth/confirm";
  const base = new URL(getEnv().BASE_URL);
  return new URL(`${page}?token=${encodeURIComponent(token)}`, base).toString();
}

/** Addresses of accounts that have no real e-mail yet (guests, phone sign-ups). */
export const PLACEHOLDER_EMAIL_DOMAIN = "accounts.soundtrail.invalid";

export function isPlaceholderEmail(email: string | null | undefined): boolean {
  return !email || email.toLowerCase().endsWith(`@${PLACEHOLDER_EMAIL_DOMAIN}`);
}

/** Sign-in methods as recorded on the session (spec §4 auth events). */
export type AuthMethod =
  | "password"
  | "email-link"
  | "email-code"
  | "sms-code"
  | "oauth"
  | "guest"
  | "totp"
  | "backup-code";

/** Which endpoint created a session says how the person signed in. */
function methodOfPath(path: string | undefined): AuthMethod | null {
  if (!path) return null;
  if (path === "/sign-in/email" || path === "/sign-in/phone-number") return "password";
  if (path === "/verify-email") return "email-link";
  if (path === "/sign-in/email-otp") return "email-code";
  if (path === "/phone-number/verify") return "sms-code";
  if (path.startsWith("/callback/")) return "oauth";
  if (path === "/sign-in/anonymous") return "guest";
  if (path === "/two-factor/verify-totp") return "totp";
  if (path === "/two-factor/verify-backup-code") return "backup-code";
  return null;
}

/** Paths through which an account with two-factor sign-in may get a session. */
const TWO_FACTOR_PATHS = new Set([
  "/sign-in/email",
  "/sign-in/phone-number",
  "/two-factor/verify-totp",
  "/two-factor/verify-backup-code",
  "/two-factor/disable",
]);

/**
 * Backup codes are kept as keyed hashes. better-auth compares the submitted code with the
 * stored list, so our server functions hash what the person typed before passing it on.
 */
const HASHED_BACKUP_CODE = /^[A-Za-z0-9_-]{43}$/;

export function hashBackupCode(code: string): string {
  const secret = resolveAuthSecret(getEnv());
  return createHmac("sha256", secret).update(`backup\0${code.trim()}`).digest("base64url");
}

function socialProviders() {
  const env = getEnv();
  const providers: Record<string, { clientId: string; clientSecret: string }> = {};
  if (env.SPOTIFY_CLIENT_ID && env.SPOTIFY_CLIENT_SECRET) {
    providers.spotify = {
      clientId: env.SPOTIFY_CLIENT_ID,
      clientSecret: env.SPOTIFY_CLIENT_SECRET,
    };
  }
  if (env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET) {
    providers.google = { clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET };
  }
  if (env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET) {
    providers.github = { clientId: env.GITHUB_CLIENT_ID, clientSecret: env.GITHUB_CLIENT_SECRET };
  }
  return providers;
}

async function sendCodeMail(email: string, otp: string, type: string): Promise<void> {
  const purpose = type === "sign-in" ? "sign in" : "continue";
  await sendMail({
    to: email,
    subject: `${otp} is your Soundtrail code`,
    ...renderEmail({
      title: "Your one-time code",
      paragraphs: [
        `Use this code to ${purpose}: ${otp}`,
        "It works once, for 10 minutes. If you did not ask for it, you can ignore this mail.",
      ],
    }),
  });
}

/** Tells the owner of an address that someone tried to sign up with it. */
export async function sendExistingAccountMail(email: string): Promise<void> {
  const base = getEnv().BASE_URL;
  await sendMail({
    to: email,
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
    // better-auth's own log lines go through pino as one JSON line each (its default prints
    // multi-line, coloured text); a database outage becomes the one rate-limited line.
    logger: {
      level: "warn",
      log: (level, message, ...args) => {
        const error = args.find((arg) => arg instanceof Error);
        if (error && isDatabaseUnavailable(error)) {
          logDatabaseUnavailable("auth", error);
          return;
        }
        const line = { err: error, source: "better-auth" };
        if (level === "error") logger.error(line, message);
        else if (level === "warn") logger.warn(line, message);
        else logger.debug(line, message);
      },
    },
    // OAuth failures that happen before our own errorCallbackURL is known (no state cookie, a
    // forged state) land on the sign-in page with a clear message, not on a 404.
    onAPIError: { errorURL: `${env.BASE_URL.replace(/\/$/, "")}/auth/login` },
    user: {
      additionalFields: { username: { type: "string", required: false, input: true } },
      deleteUser: { enabled: true },
      changeEmail: { enabled: true },
    },
    socialProviders: socialProviders(),
    account: {
      accountLinking: { enabled: true, trustedProviders: ["google", "github", "spotify"] },
    },
    plugins: [
      emailOTP({
        otpLength: 6,
        expiresIn: 10 * 60,
        allowedAttempts: 5,
        storeOTP: "hashed",
        disableSignUp: true,
        sendVerificationOTP: async ({ email, otp, type }) => {
          if (isPlaceholderEmail(email)) return;
          await sendCodeMail(email, otp, type);
        },
      }),
      phoneNumber({
        // Codes are issued and checked by one-time-codes.server.ts (stored hashed); the
        // plugin's own sender is never reached because its send endpoint is not exposed.
        sendOTP: async () => {
          throw new Error("phone codes are sent by one-time-codes.server.ts");
        },
        verifyOTP: async ({ phoneNumber: phone, code }, ctx) => {
          const purpose = (ctx?.body as { purpose?: string } | undefined)?.purpose;
          const result = await consumeCode({
            purpose: purpose === "phone-sign-up" ? "phone-sign-up" : "phone-sign-in",
            subject: phone,
            code,
          });
          return result.ok;
        },
        signUpOnVerification: {
          getTempEmail: (phone) => `phone-${phone.replace(/\D/g, "")}@${PLACEHOLDER_EMAIL_DOMAIN}`,
          getTempName: (phone) => phone,
        },
      }),
      anonymous({
        emailDomainName: PLACEHOLDER_EMAIL_DOMAIN,
        // Guests become full accounts in place (upgradeGuest), so nothing is ever moved.
        disableDeleteAnonymousUser: true,
        generateName: () => "Guest",
      }),
      twoFactor({
        issuer: "Soundtrail",
        allowPasswordless: true,
        totpOptions: { digits: 6, period: 30 },
        backupCodeOptions: {
          amount: 10,
          length: 10,
          storeBackupCodes: {
            // Called with fresh codes, and again with the remaining (already hashed) ones
            // after a code is used: hash only what is not a hash yet.
            encrypt: async (json: string) =>
              JSON.stringify(
                (JSON.parse(json) as string[]).map((code) =>
                  HASHED_BACKUP_CODE.test(code) ? code : hashBackupCode(code),
                ),
              ),
            decrypt: async (stored: string) => stored,
          },
        },
      }),
    ],
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      autoSignIn: false,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: 60 * 60,
      sendResetPassword: async ({ user, token }) => {
        if (isPlaceholderEmail(user.email)) return;
        const url = new URL(
          `/auth/reset-password?token=${encodeURIComponent(token)}`,
          getEnv().BASE_URL,
        );
        await sendMail({
          to: user.email,
          subject: "Reset your Soundtrail password",
          ...renderEmail({
            title: "Reset your password",
            paragraphs: [
              "Someone (probably you) asked to reset the password of your Soundtrail account.",
              "The link works once, for one hour. Setting a new password signs you out everywhere else.",
            ],
            action: { label: "Choose a new password", url: url.toString() },
            footer: "If you did not ask for this, ignore this mail: your password stays as it is.",
          }),
        });
      },
      password: { hash: hashPassword, verify: verifyPassword },
      onExistingUserSignUp: ({ user }) => sendExistingAccountMail(user.email),
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      expiresIn: 24 * 60 * 60,
      sendVerificationEmail: async ({ user, url }) => {
        // An address added or changed by someone already signed in (a new e-mail, a guest
        // saving the account) confirms in the app; say so instead of "welcome".
        const isForAccount = new URL(url).searchParams.get("callbackURL") === "/settings";
        await sendMail({
          to: user.email,
          subject: isForAccount
            ? "Confirm your new e-mail for Soundtrail"
            : "Confirm your e-mail for Soundtrail",
          ...renderEmail({
            title: isForAccount ? "Confirm your new e-mail" : "Confirm your e-mail",
            paragraphs: isForAccount
              ? [
                  `Hi ${user.name || "there"}, this address was given for a Soundtrail account.`,
                  "Confirm it to sign in with it from now on. The link works for 24 hours.",
                ]
              : [
                  `Hi ${user.name || "there"}, welcome to Soundtrail!`,
                  "Confirm your e-mail address to finish creating your account. The link works for 24 hours.",
                ],
            action: { label: "Confirm my e-mail", url: confirmUrl(url) },
            footer: isForAccount
              ? "You get this mail because someone gave this address for their Soundtrail account. If it was not you, ignore it: nothing changes."
              : "You get this mail because someone signed up for Soundtrail with this address. If it was not you, ignore it.",
          }),
        });
      },
      afterEmailVerification: async (user) => {
        // A changed address becomes the profile's once it is confirmed.
        await getDb()
          .update(schema.profiles)
          .set({ email: user.email })
          .where(eq(schema.profiles.userId, user.id));
        await applyAdminEmails(user.email);
      },
    },
    session: {
      expiresIn: SESSION_MAX_AGE_S,
      updateAge: 24 * 60 * 60,
      additionalFields: {
        aal: { type: "string", required: true, defaultValue: "aal1", input: false },
        authMethod: { type: "string", required: false, input: false },
      },
    },
    // One limiter for the whole app (core/rate-limit, table `rate_limits`): better-auth's own
    // runs only in its HTTP router, which serves nothing but the OAuth callback here, and that
    // route counts its hits in ours (routes/api/auth-callback.ts).
    rateLimit: { enabled: false },
    advanced: {
      useSecureCookies: isHttps,
      cookiePrefix: "soundtrail",
      defaultCookieAttributes: { sameSite: "lax", httpOnly: true, path: "/" },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      // Session and user in one relational query (see app/db/schema/auth-relations.ts). Ids are
      // UUIDs, as Supabase's: apps pass user and factor ids to supabase-js, which checks the form.
      database: { joins: true, generateId: () => crypto.randomUUID() },
    },
    databaseHooks: {
      session: {
        create: {
          before: async (session, ctx) => {
            const [owner] = await getDb()
              .select({
                banned: schema.user.banned,
                banExpires: schema.user.banExpires,
                twoFactorEnabled: schema.user.twoFactorEnabled,
              })
              .from(schema.user)
              .where(eq(schema.user.id, session.userId));
            // A banned account gets no new session, whichever way it signs in (until the end
            // of a ban that has one).
            const banHolds =
              owner?.banned === true &&
              (!owner.banExpires || owner.banExpires.getTime() > Date.now());
            if (!owner || banHolds) return false;
            const endpoint = ctx as GenericEndpointContext | null | undefined;
            const path = endpoint?.path;
            // A password change replaces the current session: it keeps how that one signed in
            // and its assurance level (aal2 for two-step accounts, which the change requires).
            const current = endpoint?.context.session?.session as
              | { userId?: string; aal?: string; authMethod?: string | null }
              | undefined;
            if (path === "/change-password" && current?.userId === session.userId) {
              return {
                data: {
                  ...session,
                  aal: current.aal === "aal2" ? "aal2" : "aal1",
                  authMethod: current.authMethod ?? null,
                },
              };
            }
            // Code, link and OAuth sign-ins would skip the second factor: refuse them.
            if (owner.twoFactorEnabled && path && !TWO_FACTOR_PATHS.has(path)) return false;
            const method = methodOfPath(path);
            const aal = method === "totp" || method === "backup-code" ? "aal2" : "aal1";
            return { data: { ...session, aal, authMethod: method } };
          },
        },
      },
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
              email: isPlaceholderEmail(user.email) ? null : user.email,
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
