import { and, asc, eq, ne } from "drizzle-orm";
import { type DbOrTx, getDb } from "~/db/client.server";
import { account, user } from "~/db/schema";
import {
  type AuthFailure,
  assertRecentAuth,
  callAuth,
  configuredProviders,
  isPlaceholderEmail,
  OAUTH_LABELS,
  type OAuthProvider,
  type ReauthOptions,
} from "~/features/auth/index.server";

export const LAST_WAY_IN =
  "This is your only way to sign in. Add a password, a confirmed e-mail address or a phone number first.";
export const METHOD_NOT_FOUND = "That sign-in method is not linked to your account.";

export interface SignInMethod {
  /** The linked account's id (OAuth), or the kind for built-in ways in. */
  id: string;
  kind: "password" | "email-code" | "sms-code" | "oauth";
  label: string;
  /** What it is tied to: the e-mail address, the phone number, the provider's account id. */
  detail: string | null;
  linkedAt: string | null;
  /** An OAuth link that is not the last way in; the others change under Account or Security. */
  canUnlink: boolean;
}

function isOAuthProvider(id: string): id is OAuthProvider {
  return id in OAUTH_LABELS;
}

async function waysIn(userId: string, db: DbOrTx = getDb()) {
  const [[person], links] = await Promise.all([
    db
      .select({
        email: user.email,
        emailVerified: user.emailVerified,
        phoneNumber: user.phoneNumber,
        phoneNumberVerified: user.phoneNumberVerified,
      })
      .from(user)
      .where(eq(user.id, userId)),
    db
      .select({
        id: account.id,
        providerId: account.providerId,
        accountId: account.accountId,
        hasPassword: account.password,
        createdAt: account.createdAt,
      })
      .from(account)
      .where(eq(account.userId, userId))
      .orderBy(asc(account.createdAt)),
  ]);
  return { person, links };
}

/**
 * Every way the person can sign in: their password, a code mailed to a confirmed address, a
 * code texted to a confirmed phone, and each linked OAuth account; plus the configured
 * providers not linked yet. An OAuth link can be removed unless it is the only way in.
 */
export async function listSignInMethods(
  options: {
    userId: string;
  },
  db: DbOrTx = getDb(),
): Promise<{ methods: SignInMethod[]; linkable: { provider: OAuthProvider; label: string }[] }> {
  const { person, links } = await waysIn(options.userId, db);
  if (!person) return { methods: [], linkable: [] };
  const methods: SignInMethod[] = [];
  const credential = links.find((l) => l.providerId === "credential" && l.hasPassword);
  if (credential) {
    methods.push({
      id: "password",
      kind: "password",
      label: "Password",
      detail: null,
      linkedAt: credential.createdAt.toISOString(),
      canUnlink: false,
    });
  }
  if (person.emailVerified && !isPlaceholderEmail(person.email)) {
    methods.push({
      id: "email-code",
      kind: "email-code",
      label: "Code by e-mail",
      detail: person.email,
      linkedAt: null,
      canUnlink: false,
    });
  }
  if (person.phoneNumber && person.phoneNumberVerified) {
    methods.push({
      id: "sms-code",
      kind: "sms-code",
      label: "Code by text message",
      detail: person.phoneNumber,
      linkedAt: null,
      canUnlink: false,
    });
  }
  const oauth = links.filter((l) => l.providerId !== "credential");
  const total = methods.length + oauth.length;
  for (const link of oauth) {
    methods.push({
      id: link.id,
      kind: "oauth",
      label: isOAuthProvider(link.providerId) ? OAUTH_LABELS[link.providerId] : link.providerId,
      detail: null,
      linkedAt: link.createdAt.toISOString(),
      canUnlink: total > 1,
    });
  }
  const linked = new Set(oauth.map((l) => l.providerId));
  return {
    methods,
    linkable: configuredProviders()
      .filter((p) => !linked.has(p))
      .map((provider) => ({ provider, label: OAUTH_LABELS[provider] })),
  };
}

/**
 * Removes a linked OAuth account. Refused when it is not the person's, and when it is their
 * last way in; otherwise it needs a recent sign-in (and `aal2` with two-step sign-in on).
 */
export async function unlinkSignInMethod(
  options: ReauthOptions & { userId: string; methodId: string },
): Promise<{ ok: true; label: string } | AuthFailure> {
  const { methods } = await listSignInMethods({ userId: options.userId });
  const method = methods.find((m) => m.kind === "oauth" && m.id === options.methodId);
  if (!method) {
    return { ok: false, kind: "not_found", code: "not_found", message: METHOD_NOT_FOUND };
  }
  if (!method.canUnlink) {
    return { ok: false, kind: "conflict", code: "last_way_in", message: LAST_WAY_IN };
  }
  const fresh = await assertRecentAuth(options);
  if (!fresh.ok) return fresh;
  if (fresh.userId !== options.userId) {
    return { ok: false, kind: "forbidden", message: "Sign in again to continue." };
  }
  // Counted again under a lock on the person: two unlinks at once cannot remove both last ways.
  const refusal = await getDb().transaction(async (tx) => {
    await tx.select({ id: user.id }).from(user).where(eq(user.id, options.userId)).for("update");
    const again = (await listSignInMethods({ userId: options.userId }, tx)).methods.find(
      (m) => m.kind === "oauth" && m.id === options.methodId,
    );
    if (!again) return METHOD_NOT_FOUND;
    if (!again.canUnlink) return LAST_WAY_IN;
    await tx
      .delete(account)
      .where(
        and(
          eq(account.id, options.methodId),
          eq(account.userId, options.userId),
          ne(account.providerId, "credential"),
        ),
      );
    return null;
  });
  if (refusal) return { ok: false, kind: "conflict", message: refusal };
  return { ok: true, label: method.label };
}

/**
 * Starts linking an OAuth account to the signed-in person: the provider's authorisation URL
 * (and its state cookie). Only configured providers; the provider sends them back to
 * /api/auth/callback, which adds the link, then to /settings/account.
 */
export async function startLinkOAuth(options: {
  provider: string;
  headers: Headers;
  /** Where the provider's callback sends the browser (same origin); Settings by default. */
  callbackURL?: string;
  errorCallbackURL?: string;
}): Promise<{ ok: true; url: string; headers: Headers } | AuthFailure> {
  const provider = configuredProviders().find((p) => p === options.provider);
  if (!provider) {
    return {
      ok: false,
      kind: "invalid",
      message: "That sign-in provider is not available.",
    };
  }
  const answer = await callAuth((api) =>
    api.linkSocialAccount({
      body: {
        provider,
        callbackURL: options.callbackURL ?? "/settings/account",
        errorCallbackURL: options.errorCallbackURL ?? "/settings/account?link=failed",
      },
      headers: options.headers,
      asResponse: true,
    }),
  );
  const body = (await answer.response
    .clone()
    .json()
    .catch(() => ({}))) as { url?: string };
  if (!answer.ok || !body.url) {
    return {
      ok: false,
      kind: "upstream",
      message: `We could not reach ${OAUTH_LABELS[provider]}. Please try again.`,
    };
  }
  return { ok: true, headers: answer.headers, url: body.url };
}
