import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { base32 } from "@better-auth/utils/base32";
import { createOTP } from "@better-auth/utils/otp";
import {
  type AuthChangeEvent,
  createClient,
  isAuthApiError,
  isAuthWeakPasswordError,
  type SupabaseClient,
} from "@supabase/supabase-js";
import fc from "fast-check";
import {
  type CryptoKey,
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  SignJWT,
} from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type LiveServer, startLiveServer } from "../tests/support/live-server";
import { startSmtpSink } from "../tests/support/smtp-sink";

/**
 * The real client: the official `@supabase/supabase-js` (2.109.0), unchanged, pointed at a
 * running production Soundtrail, with a real SMTP sink for the confirmation mail. Each client
 * stands for one app on one device (its own client address through X-Forwarded-For).
 */

// scrypt at OWASP parameters on a shared machine: a generous bound per test, not a timing check.
vi.setConfig({ testTimeout: 180_000 });

const ROOT = fileURLToPath(new URL("..", import.meta.url));
let server: LiveServer;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
const PASSWORD = "Glass-Onion-1968!";
const EMAIL = "supabase-client@example.org";

/**
 * Node 20 has no WebSocket and the client builds its realtime part up front; these tests use
 * the auth part only, so realtime gets a transport that refuses to connect.
 */
class NoRealtime {
  constructor() {
    throw new Error("realtime is not used by these tests");
  }
}

function client(ip: string): SupabaseClient {
  return createClient(server.base, "soundtrail-public-key", {
    auth: { autoRefreshToken: false, persistSession: false, detectSessionInUrl: false },
    global: { headers: { "X-Forwarded-For": ip } },
    realtime: { transport: NoRealtime as never },
  });
}

async function mailTo(address: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const mail = sink.received.find((m) => m.to.includes(address));
    if (mail) return mail.raw;
    if (Date.now() > deadline) throw new Error(`no mail to ${address}:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function totp(secret: string, offset = 0): Promise<string> {
  return createOTP(new TextDecoder().decode(base32.decode(secret))).hotp(
    Math.floor(Date.now() / 30_000) + offset,
  );
}

/** A raw mail's text with quoted-printable soft breaks and "=3D" undone. */
function decodeMail(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
}

/** The mailed sign-up confirmation link of an address, opened. */
async function confirmByMail(email: string): Promise<void> {
  const raw = (await mailTo(email)).replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const link = raw.match(/https?:\/\/[^\s"<>]+\/auth\/confirm\?token=[A-Za-z0-9._%-]+/)?.[0];
  expect(link).toBeDefined();
  expect((await fetch(link ?? "", { redirect: "manual" })).status).toBe(302);
}

let accounts = 0;
/** A new confirmed e-mail account of the test's own (unique address), signed out. */
async function confirmedUser(ip: string, label: string): Promise<{ email: string }> {
  accounts += 1;
  const email = `${label}-${accounts}-${Date.now()}@example.org`;
  const signUp = await client(ip).auth.signUp({ email, password: PASSWORD });
  expect(signUp.error).toBeNull();
  await confirmByMail(email);
  return { email };
}

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startLiveServer({ env: { SMTP_URL: sink.url } });
}, 600_000);

afterAll(async () => {
  await server?.stop();
  await sink?.close();
});

describe("@supabase/supabase-js against Soundtrail", () => {
  const events: AuthChangeEvent[] = [];
  let app: SupabaseClient;
  let factorId = "";
  let totpSecret = "";

  it("signs up, confirms by the mailed link and signs in with the password", async () => {
    app = client("10.77.0.1");
    app.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const signUp = await app.auth.signUp({
      email: EMAIL,
      password: PASSWORD,
      options: { data: { display_name: "Glass Onion" } },
    });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user?.email).toBe(EMAIL);

    const raw = (await mailTo(EMAIL)).replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    const link = raw.match(/https?:\/\/[^\s"<>]+\/auth\/confirm\?token=[A-Za-z0-9._%-]+/)?.[0];
    expect(link).toBeDefined();
    const confirmed = await fetch(link ?? "", { redirect: "manual" });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("Location")).toBe("/feed");

    const signIn = await app.auth.signInWithPassword({ email: EMAIL, password: PASSWORD });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session).toMatchObject({ token_type: "bearer", expires_in: 3600 });
    expect(signIn.data.user).toMatchObject({
      email: EMAIL,
      aud: "authenticated",
      user_metadata: { display_name: "Glass Onion" },
    });
    expect(events).toContain("SIGNED_IN");
  });

  it("reads the user, refreshes the session and updates the user", async () => {
    const user = await app.auth.getUser();
    expect(user.error).toBeNull();
    expect(user.data.user?.email).toBe(EMAIL);
    expect(user.data.user?.identities?.[0]?.provider).toBe("email");

    const before = (await app.auth.getSession()).data.session;
    const refreshed = await app.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).not.toBe(before?.refresh_token);
    expect(events).toContain("TOKEN_REFRESHED");

    const updated = await app.auth.updateUser({ data: { display_name: "Abbey Road" } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata.display_name).toBe("Abbey Road");
    expect(events).toContain("USER_UPDATED");
  });

  it("enrols TOTP, challenges, verifies to aal2", async () => {
    const before = await app.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(before.data).toMatchObject({ currentLevel: "aal1", nextLevel: "aal1" });

    const enrolled = await app.auth.mfa.enroll({ factorType: "totp", friendlyName: "Phone" });
    expect(enrolled.error).toBeNull();
    if (!enrolled.data || enrolled.data.type !== "totp") throw new Error("no TOTP factor");
    expect(enrolled.data.totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg /);
    factorId = enrolled.data.id;
    totpSecret = enrolled.data.totp.secret;

    const challenge = await app.auth.mfa.challenge({ factorId });
    expect(challenge.error).toBeNull();
    const verified = await app.auth.mfa.verify({
      factorId,
      challengeId: challenge.data?.id ?? "",
      code: await totp(enrolled.data.totp.secret),
    });
    expect(verified.error).toBeNull();
    expect(events).toContain("MFA_CHALLENGE_VERIFIED");

    const after = await app.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(after.data).toMatchObject({ currentLevel: "aal2", nextLevel: "aal2" });
    expect(
      after.data?.currentAuthenticationMethods.map((m) => (typeof m === "string" ? m : m.method)),
    ).toEqual(["totp", "password"]);
    // aal2 survives a refresh.
    await app.auth.refreshSession();
    const refreshed = await app.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(refreshed.data?.currentLevel).toBe("aal2");
  });

  it("signs the other devices out with scope 'others', then itself out", async () => {
    const other = client("10.77.0.2");
    const signIn = await other.auth.signInWithPassword({ email: EMAIL, password: PASSWORD });
    expect(signIn.error).toBeNull();
    // A new sign-in of a two-step account starts at aal1 and is asked for the second factor.
    const level = await other.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level.data).toMatchObject({ currentLevel: "aal1", nextLevel: "aal2" });

    const out = await app.auth.signOut({ scope: "others" });
    expect(out.error).toBeNull();
    expect((await app.auth.getUser()).error).toBeNull();
    const gone = await other.auth.getUser();
    expect(gone.error?.name).toBe("AuthSessionMissingError");

    await app.auth.signOut();
    expect(events).toContain("SIGNED_OUT");
    expect((await app.auth.getSession()).data.session).toBeNull();
    expect(events[0]).toBe("INITIAL_SESSION");
  });

  it("gives the error objects of a wrong and of a weak password", async () => {
    const stranger = client("10.77.0.3");
    const wrong = await stranger.auth.signInWithPassword({
      email: EMAIL,
      password: "Not-The-Password-1",
    });
    expect(isAuthApiError(wrong.error)).toBe(true);
    expect(wrong.error).toMatchObject({
      status: 400,
      code: "invalid_credentials",
      message: "Invalid login credentials",
    });

    const weak = await stranger.auth.signUp({ email: "weak@example.org", password: "password" });
    expect(isAuthWeakPasswordError(weak.error)).toBe(true);
    expect(weak.error).toMatchObject({ status: 422, code: "weak_password" });
    if (!isAuthWeakPasswordError(weak.error)) throw new Error("not a weak password error");
    expect(weak.error.reasons).toEqual(expect.arrayContaining(["length", "pwned"]));
  });

  it("signs in anonymously", async () => {
    const guest = client("10.77.0.4");
    const anonymous = await guest.auth.signInAnonymously();
    expect(anonymous.error).toBeNull();
    expect(anonymous.data.user?.is_anonymous).toBe(true);
    expect(anonymous.data.session?.access_token).toEqual(expect.any(String));
    // The token alone works on the data routes: the feed as JSON for this guest.
    const feed = await fetch(`${server.base}/api/feed`, {
      headers: { Authorization: `Bearer ${anonymous.data.session?.access_token}` },
    });
    expect(feed.status).toBe(200);
    expect(await feed.json()).toMatchObject({ tab: "following", posts: expect.any(Array) });
  });

  it("posts, likes, comments and follows with the token alone (no cookie, no Origin check)", async () => {
    const guest = client("10.77.0.5");
    const signedIn = await guest.auth.signInAnonymously();
    const token = signedIn.data.session?.access_token ?? "";
    const withToken = (extra: Record<string, string> = {}) => ({
      Authorization: `Bearer ${token}`,
      // Another site's origin and a stray cookie: a bearer request ignores both.
      Origin: "https://elsewhere.example",
      Cookie: "soundtrail.session_token=not-a-session",
      "X-Forwarded-For": "10.77.0.5",
      ...extra,
    });
    const composer = new FormData();
    composer.set("kind", "track");
    composer.set("title", "Token Tune");
    composer.set("artist", "The Bearers");
    composer.set("audience", "everyone");
    const posted = await fetch(`${server.base}/feed`, {
      method: "POST",
      body: composer,
      headers: withToken(),
      redirect: "manual",
    });
    expect(posted.status, await posted.clone().text()).toBeLessThan(400);

    const feed = (await (
      await fetch(`${server.base}/api/feed?tab=everyone`, { headers: withToken() })
    ).json()) as { posts: { id: string; title: string; author: { userId?: string } }[] };
    const post = feed.posts.find((p) => p.title === "Token Tune");
    expect(post).toBeDefined();

    const form = (fields: Record<string, string>) => ({
      method: "POST",
      headers: withToken({ "Content-Type": "application/x-www-form-urlencoded" }),
      body: new URLSearchParams(fields).toString(),
      redirect: "manual" as const,
    });
    const liked = await fetch(
      `${server.base}/api/like`,
      form({ intent: "like", postId: post?.id ?? "" }),
    );
    expect(liked.status).toBe(200);
    expect(await liked.json()).toMatchObject({ ok: true });
    const commented = await fetch(
      `${server.base}/post/${post?.id}`,
      form({ intent: "add-comment", content: "Sent with a token" }),
    );
    expect(commented.status).toBeLessThan(400);
    const owner = await app.auth.signInWithPassword({ email: EMAIL, password: PASSWORD });
    const followed = await fetch(
      `${server.base}/api/follow`,
      form({ intent: "follow", userId: owner.data.user?.id ?? "" }),
    );
    expect(followed.status).toBe(200);
    const after = (await (
      await fetch(`${server.base}/api/feed?tab=everyone`, { headers: withToken() })
    ).json()) as {
      posts: { id: string; likeCount: number; commentCount: number; viewerHasLiked: boolean }[];
    };
    expect(after.posts.find((p) => p.id === post?.id)).toMatchObject({
      likeCount: 1,
      commentCount: 1,
      viewerHasLiked: true,
    });

    // A token that does not verify is a 401, not a sign-in page; the cookie door still checks
    // Origin; and a two-step account's aal1 token is refused until its second factor.
    const forged = await fetch(`${server.base}/api/like`, {
      ...form({ intent: "like", postId: post?.id ?? "" }),
      headers: {
        Authorization: "Bearer not-a-token",
        "Content-Type": "application/x-www-form-urlencoded",
      },
    });
    expect(forged.status).toBe(401);
    const cookieDoor = await fetch(`${server.base}/api/like`, {
      ...form({ intent: "like", postId: post?.id ?? "" }),
      headers: {
        Origin: "https://elsewhere.example",
        "Content-Type": "application/x-www-form-urlencoded",
      },
    });
    expect(cookieDoor.status).toBe(403);
    const aal1 = await fetch(`${server.base}/api/like`, {
      ...form({ intent: "like", postId: post?.id ?? "" }),
      headers: {
        Authorization: `Bearer ${owner.data.session?.access_token}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
    });
    expect(aal1.status).toBe(401);
  });

  it("answers a bad, ended or aal1 bearer on the data routes with 401 JSON and WWW-Authenticate", async () => {
    const device = client("10.77.1.1");
    const guest = await device.auth.signInAnonymously();
    const ended = guest.data.session?.access_token ?? "";
    expect((await device.auth.signOut()).error).toBeNull();
    // A well-formed token signed by a key this server never had.
    const [head = "", body = ""] = ended.split(".");
    const forged = `${head}.${body}.${Buffer.from("not the signature").toString("base64url")}`;
    // An account of its own with two-step sign-in: a new password sign-in is aal1.
    const { email } = await confirmedUser("10.77.1.2", "bearer-aal1");
    const first = client("10.77.1.3");
    await first.auth.signInWithPassword({ email, password: PASSWORD });
    const enrolled = await first.auth.mfa.enroll({ factorType: "totp" });
    if (enrolled.data?.type !== "totp") throw new Error("no TOTP factor");
    const challenge = await first.auth.mfa.challenge({ factorId: enrolled.data.id });
    const verified = await first.auth.mfa.verify({
      factorId: enrolled.data.id,
      challengeId: challenge.data?.id ?? "",
      code: await totp(enrolled.data.totp.secret),
    });
    expect(verified.error).toBeNull();
    const later = await client("10.77.1.4").auth.signInWithPassword({ email, password: PASSWORD });
    const aal1 = later.data.session?.access_token ?? "";
    expect(aal1).not.toBe("");
    const tokens = { garbage: "not-a-token", ended, forged, aal1 };
    for (const [name, token] of Object.entries(tokens)) {
      for (const [method, path] of [
        ["GET", "/api/feed"],
        ["GET", "/api/feed?tab=everyone"],
        ["POST", "/api/like"],
        ["GET", "/feed"],
      ] as const) {
        const response = await fetch(`${server.base}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(method === "POST" ? { "Content-Type": "application/x-www-form-urlencoded" } : {}),
          },
          ...(method === "POST" ? { body: "intent=like&postId=x" } : {}),
          redirect: "manual",
        });
        const label = `${name} ${method} ${path}`;
        expect(response.status, label).toBe(401);
        expect(response.headers.get("www-authenticate"), label).toMatch(
          /^Bearer error="invalid_token"/,
        );
        expect(response.headers.get("content-type"), label).toMatch(/^application\/json/);
        expect(await response.json(), label).toMatchObject({ ok: false, error: "invalid_token" });
      }
    }
  });

  it("upgrades a guest: updateUser({ email }), verifyOtp email_change by token hash, then a password without reauthentication", async () => {
    const app = client("10.77.2.1");
    const guest = await app.auth.signInAnonymously({ options: { data: { theme: "dark" } } });
    expect(guest.error).toBeNull();
    expect(guest.data.user).toMatchObject({ is_anonymous: true, user_metadata: { theme: "dark" } });
    // A guest has no e-mail or phone yet: a password alone is refused, as GoTrue does.
    const early = await app.auth.updateUser({ password: "Guest-Upgrade-Pass-2024" });
    expect(early.error).toMatchObject({ status: 422, code: "validation_failed" });

    const email = `guest-upgrade-${Date.now()}@example.org`;
    const asked = await app.auth.updateUser({ email });
    expect(asked.error).toBeNull();
    expect(asked.data.user).toMatchObject({ is_anonymous: true, new_email: email });
    const mail = decodeMail(await mailTo(email));
    const tokenHash = mail.match(
      /\/auth\/v1\/verify\?token=([A-Za-z0-9_-]+)&type=email_change/,
    )?.[1];
    expect(tokenHash).toBeDefined();
    const verified = await app.auth.verifyOtp({
      token_hash: tokenHash ?? "",
      type: "email_change",
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email, is_anonymous: false });
    expect(verified.data.user?.id).toBe(guest.data.user?.id);
    expect(verified.data.user?.identities?.map((i) => i.provider)).toEqual(["email"]);
    // The same link a second time: GoTrue's 403.
    const reused = await client("10.77.2.2").auth.verifyOtp({
      token_hash: tokenHash ?? "",
      type: "email_change",
    });
    expect(reused.error).toMatchObject({
      status: 403,
      code: "otp_expired",
      message: "Email link is invalid or has expired",
    });

    const NEW = "Guest-Upgrade-Pass-2024";
    const set = await app.auth.updateUser({ password: NEW });
    expect(set.error).toBeNull();
    const later = await client("10.77.2.3").auth.signInWithPassword({ email, password: NEW });
    expect(later.error).toBeNull();
    expect(later.data.user).toMatchObject({
      id: guest.data.user?.id,
      is_anonymous: false,
      user_metadata: { theme: "dark" },
    });
  });

  it("confirms an e-mail change of a full account by the mailed code, and resends it", async () => {
    const { email } = await confirmedUser("10.77.3.1", "change-code");
    const app = client("10.77.3.2");
    expect((await app.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const next = `changed-${Date.now()}@example.org`;
    expect((await app.auth.updateUser({ email: next })).error).toBeNull();
    await mailTo(next);
    sink.received.splice(0, sink.received.length);
    // resend({ type: "email_change" }) with the current address mails a fresh code.
    expect((await app.auth.resend({ type: "email_change", email })).error).toBeNull();
    const code = decodeMail(await mailTo(next)).match(/Subject: (\d{6}) /)?.[1] ?? "";
    expect(code).toMatch(/^\d{6}$/);
    const verified = await app.auth.verifyOtp({ email: next, token: code, type: "email_change" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(next);
    expect(
      (await client("10.77.3.3").auth.signInWithPassword({ email: next, password: PASSWORD }))
        .error,
    ).toBeNull();
  });

  it("refuses a used sign-up confirmation token with 403 otp_expired", async () => {
    const app = client("10.77.4.1");
    const email = `used-token-${Date.now()}@example.org`;
    expect((await app.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const raw = decodeMail(await mailTo(email));
    const token = decodeURIComponent(
      raw.match(/\/auth\/confirm\?token=([A-Za-z0-9._%-]+)/)?.[1] ?? "",
    );
    const first = await app.auth.verifyOtp({ token_hash: token, type: "signup" });
    expect(first.error).toBeNull();
    expect(first.data.session?.user.email).toBe(email);
    const second = await client("10.77.4.2").auth.verifyOtp({ token_hash: token, type: "signup" });
    expect(second.error).toMatchObject({
      status: 403,
      code: "otp_expired",
      message: "Email link is invalid or has expired",
    });
  });

  it("signs up without a password: signInWithOtp makes the account and mails the code; shouldCreateUser false refuses", async () => {
    const app = client("10.77.5.1");
    const email = `otp-signup-${Date.now()}@example.org`;
    const refused = await app.auth.signInWithOtp({ email, options: { shouldCreateUser: false } });
    expect(refused.error).toMatchObject({ status: 422, code: "otp_disabled" });
    const sent = await app.auth.signInWithOtp({ email, options: { data: { plan: "free" } } });
    expect(sent.error).toBeNull();
    const code = decodeMail(await mailTo(email)).match(/Subject: (\d{6}) /)?.[1] ?? "";
    expect(code).toMatch(/^\d{6}$/);
    const verified = await app.auth.verifyOtp({ email, token: code, type: "email" });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({
      email,
      is_anonymous: false,
      user_metadata: { plan: "free" },
    });
    expect(verified.data.user?.email_confirmed_at).toEqual(expect.any(String));
  });

  it("keeps any JSON object as user_metadata: signUp data, updateUser data (merged, null removes)", async () => {
    const app = client("10.77.6.1");
    const email = `metadata-${Date.now()}@example.org`;
    const data = { favourite: { album: "Blue", year: 1971 }, tags: ["folk", "jazz"], beta: true };
    const signUp = await app.auth.signUp({ email, password: PASSWORD, options: { data } });
    expect(signUp.error).toBeNull();
    expect(signUp.data.user?.user_metadata).toMatchObject(data);
    await confirmByMail(email);
    const signIn = await app.auth.signInWithPassword({ email, password: PASSWORD });
    expect(signIn.data.user?.user_metadata).toMatchObject(data);
    const updated = await app.auth.updateUser({ data: { beta: null, tags: ["soul"], level: 3 } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toMatchObject({
      favourite: { album: "Blue", year: 1971 },
      tags: ["soul"],
      level: 3,
    });
    expect(updated.data.user?.user_metadata).not.toHaveProperty("beta");
    const read = await app.auth.getUser();
    expect(read.data.user?.user_metadata).toEqual(updated.data.user?.user_metadata);
  });

  it("runs the docs' Node 20 example as written (docs/api.md)", async () => {
    const docs = readFileSync(path.join(ROOT, "docs/api.md"), "utf8");
    const block = docs.split("<!-- docs-example: node20")[1]?.match(/```js\n([\s\S]*?)```/)?.[1];
    expect(block).toContain("createClient");
    const file = path.join(ROOT, "node_modules/.cache/soundtrail-docs-example.mjs");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, block ?? "");
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (!name.startsWith("VITEST")) env[name] = value;
    }
    const ran = spawnSync(process.execPath, [file], {
      encoding: "utf8",
      env: { ...env, SOUNDTRAIL_URL: server.base },
      timeout: 60_000,
    });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/signed in as a guest: [0-9a-f-]{36}/);
    expect(ran.stdout).toContain("feed: 200");
    expect(ran.stdout).toContain("signed out");
  });

  it("answers what is not supported (passkeys, SSO, Web3, ID tokens) as documented", async () => {
    const app = client("10.77.7.1");
    expect((await app.auth.signInAnonymously()).error).toBeNull();
    const passkey = await app.auth.mfa.enroll({ factorType: "webauthn" } as never);
    expect(passkey.error).toMatchObject({ status: 422, code: "mfa_webauthn_enroll_not_enabled" });
    const phone = await app.auth.mfa.enroll({ factorType: "phone", phone: "+4915112345678" });
    expect(phone.error).toMatchObject({ status: 422, code: "mfa_phone_enroll_not_enabled" });
    const sso = await client("10.77.7.2").auth.signInWithSSO({ domain: "example.org" });
    expect(sso.error).toMatchObject({ status: 404, code: "not_found" });
    const idToken = await client("10.77.7.3").auth.signInWithIdToken({
      provider: "google",
      token: "not-a-token",
    });
    expect(idToken.error).toMatchObject({
      status: 400,
      code: "invalid_credentials",
      message: "unsupported_grant_type",
    });
    const web3 = await fetch(`${server.base}/auth/v1/token?grant_type=web3`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ chain: "ethereum", message: "m", signature: "s" }),
    });
    expect(web3.status).toBe(400);
    expect(await web3.json()).toMatchObject({
      error_code: "invalid_credentials",
      msg: "unsupported_grant_type",
    });
  });

  it("linkIdentity gives a page that sends the browser to the provider; unlinkIdentity keeps the last identity", async () => {
    const { email } = await confirmedUser("10.77.8.1", "link-identity");
    const app = client("10.77.8.2");
    expect((await app.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const linked = await app.auth.linkIdentity({
      provider: "github",
      options: { skipBrowserRedirect: true },
    });
    expect(linked.error).toBeNull();
    const page = await fetch(linked.data.url ?? "", { redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toMatch(
      /^https:\/\/github\.com\/login\/oauth\/authorize\?.*client_id=vitest-github-client/,
    );
    const identities = await app.auth.getUserIdentities();
    expect(identities.data?.identities.map((i) => i.provider)).toEqual(["email"]);
    const only = identities.data?.identities[0];
    if (!only) throw new Error("no identity");
    const unlinked = await app.auth.unlinkIdentity(only);
    expect(unlinked.error).toMatchObject({ status: 422, code: "single_identity_not_deletable" });
  });

  it("recovers a forgotten password: resetPasswordForEmail, verifyOtp with the mailed token, updateUser", async () => {
    const lost = client("10.77.0.8");
    const email = "supabase-recovery@example.org";
    expect((await lost.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const confirmRaw = (await mailTo(email)).replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    const confirmLink = confirmRaw.match(
      /https?:\/\/[^\s"<>]+\/auth\/confirm\?token=[A-Za-z0-9._%-]+/,
    )?.[0];
    expect((await fetch(confirmLink ?? "", { redirect: "manual" })).status).toBe(302);
    sink.received.length = 0;

    expect((await lost.auth.resetPasswordForEmail(email)).error).toBeNull();
    const raw = (await mailTo(email)).replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    const token = decodeURIComponent(
      raw.match(/\/auth\/reset-password\?token=([A-Za-z0-9._%-]+)/)?.[1] ?? "",
    );
    const verified = await lost.auth.verifyOtp({ token_hash: token, type: "recovery" });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.email).toBe(email);
    const NEW = "Recovered-Abbey-Road-1969";
    const updated = await lost.auth.updateUser({ password: NEW });
    expect(updated.error).toBeNull();
    const later = client("10.77.0.9");
    const old = await later.auth.signInWithPassword({ email, password: PASSWORD });
    expect(old.error?.code).toBe("invalid_credentials");
    expect((await later.auth.signInWithPassword({ email, password: NEW })).error).toBeNull();

    // Supabase's secure password change: reauthenticate() mails a code, updateUser takes it.
    sink.received.length = 0;
    expect((await later.auth.reauthenticate()).error).toBeNull();
    const nonce = sink.received.find((m) => m.to.includes(email))?.subject.match(/^(\d{6}) /)?.[1];
    expect(nonce).toMatch(/^\d{6}$/);
    const NEWER = "Reauthenticated-Let-It-Be-1970";
    expect((await later.auth.updateUser({ password: NEWER, nonce })).error).toBeNull();
    const third = client("10.77.0.10");
    expect((await third.auth.signInWithPassword({ email, password: NEWER })).error).toBeNull();
  });

  it("unenrols the factor from an aal2 session without the password, as Supabase allows", async () => {
    const device = client("10.77.0.6");
    expect(
      (await device.auth.signInWithPassword({ email: EMAIL, password: PASSWORD })).error,
    ).toBeNull();
    const challenge = await device.auth.mfa.challenge({ factorId });
    expect(challenge.error).toBeNull();
    // The next period's code: never the one the enrolment used (the replay guard refuses that).
    const verified = await device.auth.mfa.verify({
      factorId,
      challengeId: challenge.data?.id ?? "",
      code: await totp(totpSecret, 1),
    });
    expect(verified.error).toBeNull();
    const unenrolled = await device.auth.mfa.unenroll({ factorId });
    expect(unenrolled.error).toBeNull();
    expect((await device.auth.mfa.listFactors()).data?.totp).toEqual([]);
    // A new sign-in is complete with the password alone again.
    const later = client("10.77.0.7");
    expect(
      (await later.auth.signInWithPassword({ email: EMAIL, password: PASSWORD })).error,
    ).toBeNull();
    const level = await later.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level.data).toMatchObject({ currentLevel: "aal1", nextLevel: "aal1" });
  });
});

describe("with AUTH_AUTOCONFIRM, keys from AUTH_JWT_KEYS and the service-role key", () => {
  let auto: LiveServer;
  let signingKey: CryptoKey;
  let kid = "";
  let serviceKey = "";

  function autoClient(ip: string, key = "soundtrail-public-key"): SupabaseClient {
    return createClient(auto.base, key, {
      auth: { autoRefreshToken: false, persistSession: false, detectSessionInUrl: false },
      global: { headers: { "X-Forwarded-For": ip } },
      realtime: { transport: NoRealtime as never },
    });
  }

  beforeAll(async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = await exportJWK(privateKey);
    kid = await calculateJwkThumbprint(jwk);
    signingKey = privateKey;
    const keys = JSON.stringify({ keys: [{ ...jwk, kid, alg: "ES256", use: "sig" }] });
    auto = await startLiveServer({
      env: { SMTP_URL: sink.url, AUTH_AUTOCONFIRM: "true", AUTH_JWT_KEYS: keys },
    });
    // The documented command, with the same keys and address as the server.
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (!name.startsWith("VITEST") && name !== "DATABASE_URL") env[name] = value;
    }
    const printed = spawnSync(process.execPath, ["scripts/service-key.mjs"], {
      encoding: "utf8",
      env: { ...env, AUTH_JWT_KEYS: keys, BASE_URL: auto.base, LOG_LEVEL: "warn" },
    });
    expect(printed.status, printed.stderr).toBe(0);
    serviceKey = printed.stdout.trim();
  }, 600_000);

  afterAll(async () => {
    await auto?.stop();
  });

  it("signs up with a session at once, refuses a taken address, and says so in /settings", async () => {
    const app = autoClient("10.78.0.1");
    const email = `autoconfirm-${Date.now()}@example.org`;
    const signUp = await app.auth.signUp({
      email,
      password: PASSWORD,
      options: { data: { origin: "autoconfirm" } },
    });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session?.access_token).toEqual(expect.any(String));
    expect(signUp.data.user).toMatchObject({ email, user_metadata: { origin: "autoconfirm" } });
    expect(signUp.data.user?.email_confirmed_at).toEqual(expect.any(String));
    expect((await app.auth.getUser()).data.user?.email).toBe(email);
    const again = await autoClient("10.78.0.2").auth.signUp({ email, password: PASSWORD });
    expect(again.error).toMatchObject({ status: 422, code: "user_already_exists" });
    const settings = (await (await fetch(`${auto.base}/auth/v1/settings`)).json()) as {
      mailer_autoconfirm: boolean;
    };
    expect(settings.mailer_autoconfirm).toBe(true);
    // A guest's address is taken as given, as GoTrue with autoconfirm.
    const guest = autoClient("10.78.0.3");
    await guest.auth.signInAnonymously();
    const guestEmail = `autoconfirm-guest-${Date.now()}@example.org`;
    const upgraded = await guest.auth.updateUser({ email: guestEmail });
    expect(upgraded.error).toBeNull();
    expect(upgraded.data.user).toMatchObject({ email: guestEmail, is_anonymous: false });
  });

  it("answers an expired token with 401 on the data routes and 403 bad_jwt on /auth/v1", async () => {
    const app = autoClient("10.78.1.1");
    const signUp = await app.auth.signUp({
      email: `expired-${Date.now()}@example.org`,
      password: PASSWORD,
    });
    const live = decodeJwt(signUp.data.session?.access_token ?? "");
    const now = Math.floor(Date.now() / 1000);
    // The same claims, signed by the instance's key, but expired an hour ago.
    const expired = await new SignJWT({ ...live, exp: now - 3600, iat: now - 7200 })
      .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
      .sign(signingKey);
    const feed = await fetch(`${auto.base}/api/feed`, {
      headers: { Authorization: `Bearer ${expired}` },
    });
    expect(feed.status).toBe(401);
    expect(feed.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    expect(await feed.json()).toMatchObject({ error: "invalid_token" });
    const user = await fetch(`${auto.base}/auth/v1/user`, {
      headers: { Authorization: `Bearer ${expired}` },
    });
    expect(user.status).toBe(403);
    expect(await user.json()).toMatchObject({ error_code: "bad_jwt" });
    // The live token still works.
    const ok = await fetch(`${auto.base}/api/feed`, {
      headers: { Authorization: `Bearer ${signUp.data.session?.access_token}` },
    });
    expect(ok.status).toBe(200);
  });

  it("auth.admin with the service-role key: create, list (paged), get, update, ban, links, invite, sign out, factors, delete", async () => {
    const admin = autoClient("10.78.2.1", serviceKey).auth.admin;
    const email = `admin-made-${Date.now()}@example.org`;
    const created = await admin.createUser({
      email,
      password: PASSWORD,
      email_confirm: true,
      user_metadata: { plan: "pro" },
      app_metadata: { tier: 2 },
    });
    expect(created.error).toBeNull();
    const id = created.data.user?.id ?? "";
    expect(created.data.user).toMatchObject({
      email,
      user_metadata: { plan: "pro" },
      app_metadata: { tier: 2, provider: "email" },
    });
    const person = autoClient("10.78.2.2");
    expect((await person.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();

    const page = await admin.listUsers({ page: 1, perPage: 1 });
    expect(page.error).toBeNull();
    expect(page.data.users).toHaveLength(1);
    expect(page.data).toMatchObject({ nextPage: 2 });
    expect((page.data as { total: number }).total).toBeGreaterThan(1);
    expect((await admin.getUserById(id)).data.user?.email).toBe(email);

    const banned = await admin.updateUserById(id, {
      ban_duration: "1h",
      app_metadata: { tier: 3 },
    });
    expect(banned.error).toBeNull();
    expect(banned.data.user?.app_metadata).toMatchObject({ tier: 3 });
    expect((banned.data.user as { banned_until?: string }).banned_until).toEqual(
      expect.any(String),
    );
    expect((await person.auth.getUser()).error).not.toBeNull();
    const refused = await autoClient("10.78.2.3").auth.signInWithPassword({
      email,
      password: PASSWORD,
    });
    expect(refused.error?.status).toBeGreaterThanOrEqual(400);
    expect((await admin.updateUserById(id, { ban_duration: "none" })).error).toBeNull();
    expect(
      (await autoClient("10.78.2.4").auth.signInWithPassword({ email, password: PASSWORD })).error,
    ).toBeNull();

    // generateLink: a magic link's hashed token signs in once.
    const link = await admin.generateLink({ type: "magiclink", email });
    expect(link.error).toBeNull();
    expect(link.data.properties?.action_link).toContain("/auth/v1/verify?token=");
    const viaLink = autoClient("10.78.2.5");
    const verified = await viaLink.auth.verifyOtp({
      token_hash: link.data.properties?.hashed_token ?? "",
      type: "magiclink",
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.id).toBe(id);
    // ... and an e-mail change link makes the new address the account's.
    const newEmail = `admin-changed-${Date.now()}@example.org`;
    const change = await admin.generateLink({ type: "email_change_new", email, newEmail });
    expect(change.error).toBeNull();
    const changed = await autoClient("10.78.2.6").auth.verifyOtp({
      email: newEmail,
      token: change.data.properties?.email_otp ?? "",
      type: "email_change",
    });
    expect(changed.error).toBeNull();
    expect(changed.data.user?.email).toBe(newEmail);

    // signOut(jwt) ends that session.
    const token = verified.data.session?.access_token ?? "";
    expect((await admin.signOut(token)).error).toBeNull();
    expect((await viaLink.auth.getUser()).error).not.toBeNull();

    expect((await admin.mfa.listFactors({ userId: id })).data?.factors).toEqual([]);

    const invitedEmail = `invited-${Date.now()}@example.org`;
    const invited = await admin.inviteUserByEmail(invitedEmail, { data: { invitedBy: "test" } });
    expect(invited.error).toBeNull();
    expect(invited.data.user).toMatchObject({
      email: invitedEmail,
      user_metadata: { invitedBy: "test" },
    });
    const inviteMail = decodeMail(await mailTo(invitedEmail));
    const inviteToken = inviteMail.match(
      /\/auth\/v1\/verify\?token=([A-Za-z0-9_-]+)&type=invite/,
    )?.[1];
    const accepted = await autoClient("10.78.2.7").auth.verifyOtp({
      token_hash: inviteToken ?? "",
      type: "invite",
    });
    expect(accepted.error).toBeNull();
    expect(accepted.data.user?.email_confirmed_at).toEqual(expect.any(String));

    expect((await admin.deleteUser(id, true)).error).toBeNull();
    expect(
      (
        await autoClient("10.78.2.8").auth.signInWithPassword({
          email: newEmail,
          password: PASSWORD,
        })
      ).error,
    ).not.toBeNull();
    expect((await admin.deleteUser(invited.data.user?.id ?? "")).error).toBeNull();
    expect((await admin.getUserById(invited.data.user?.id ?? "")).error).toMatchObject({
      status: 404,
      code: "user_not_found",
    });
  });

  it("refuses the admin API without the service-role key: a user's token gets 403 not_admin", async () => {
    const app = autoClient("10.78.3.1");
    const signUp = await app.auth.signUp({
      email: `not-admin-${Date.now()}@example.org`,
      password: PASSWORD,
    });
    const userToken = signUp.data.session?.access_token ?? "";
    const asUser = autoClient("10.78.3.2", userToken).auth.admin;
    expect((await asUser.listUsers()).error).toMatchObject({ status: 403, code: "not_admin" });
    const anon = autoClient("10.78.3.3").auth.admin;
    expect((await anon.listUsers()).error?.status).toBe(403);
    const none = await fetch(`${auto.base}/auth/v1/admin/users`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error_code: "no_authorization" });
  });

  it("answers any body to any endpoint with a GoTrue-shaped JSON error, never a 500 or HTML", async () => {
    const endpoints: [string, string][] = [
      ["POST", "/signup"],
      ["POST", "/token?grant_type=password"],
      ["POST", "/token?grant_type=refresh_token"],
      ["POST", "/token?grant_type=pkce"],
      ["POST", "/token?grant_type=nonsense"],
      ["GET", "/user"],
      ["PUT", "/user"],
      ["POST", "/logout"],
      ["POST", "/recover"],
      ["POST", "/otp"],
      ["POST", "/verify"],
      ["POST", "/resend"],
      ["GET", "/reauthenticate"],
      ["POST", "/factors"],
      ["POST", "/factors/x/challenge"],
      ["POST", "/factors/x/verify"],
      ["DELETE", "/factors/x"],
      ["GET", "/admin/users"],
      ["POST", "/admin/users"],
      ["PUT", "/admin/users/x"],
      ["POST", "/admin/generate_link"],
      ["POST", "/invite"],
      ["PATCH", "/user"],
      ["POST", "/sso"],
      ["POST", "/no-such-endpoint"],
    ];
    const field = fc.oneof(
      fc.string(),
      fc.emailAddress(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }),
    );
    const knownKeys = fc.constantFrom(
      "email",
      "phone",
      "password",
      "type",
      "token",
      "token_hash",
      "refresh_token",
      "data",
      "create_user",
      "factor_type",
      "code",
      "challenge_id",
      "auth_code",
      "code_verifier",
      "new_email",
      "current_password",
      "nonce",
    );
    const body = fc.oneof(
      fc.dictionary(knownKeys, field, { maxKeys: 5 }).map((o) => JSON.stringify(o)),
      fc.json(),
      fc.string(),
      fc.constant(""),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
    );
    const bearer = fc.constantFrom(undefined, "not-a-token", serviceKey);
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        body,
        bearer,
        async ([method, path], text, token) => {
          tried += 1;
          const response = await fetch(`${auto.base}/auth/v1${path}`, {
            method,
            headers: {
              "Content-Type": "application/json",
              "X-Forwarded-For": `10.79.${tried % 250}.${(tried >> 8) % 250}`,
              ...(token ? { Authorization: `Bearer ${token}` } : {}),
            },
            ...(method === "GET" ? {} : { body: text }),
            redirect: "manual",
          });
          const label = `${method} ${path} ${JSON.stringify(text).slice(0, 200)}`;
          expect(response.status, label).not.toBe(500);
          expect(response.status, label).toBeLessThan(500);
          if (response.status >= 400) {
            expect(response.headers.get("content-type"), label).toMatch(/^application\/json/);
            const answer = (await response.json()) as Record<string, unknown>;
            expect(answer, label).toMatchObject({
              code: response.status,
              error_code: expect.any(String),
              msg: expect.any(String),
            });
            expect(response.headers.get("x-sb-error-code"), label).toBe(answer.error_code);
          } else {
            await response.body?.cancel();
          }
        },
      ),
      { numRuns: 150, seed: 40_2026 },
    );
    expect(tried).toBe(150);
  });
});
