import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { base32 } from "@better-auth/utils/base32";
import { createOTP } from "@better-auth/utils/otp";
import { eq, like, sql } from "drizzle-orm";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { setDatabase } from "~/db/client.server";
import {
  account,
  auditLog,
  authJwtKeys,
  authRefreshTokens,
  authTokenSessions,
  profiles,
  session,
  user,
  verification,
} from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { banUser } from "~/features/admin/index.server";
import { getViewerFromHeaders, resetAuth, signInWithEmail } from "~/features/auth/index.server";
import { createMailTransport, setMailTransport } from "~/features/mail/index.server";
import { type SmsMessage, setSmsSender } from "~/features/sms/index.server";
import { settleAfterResponse } from "~/lib/after-response.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { getEnv } from "~/lib/env.server";
import { startSmtpSink } from "../../../tests/support/smtp-sink";
import { getViewerFromBearer } from "./bearer.server";
import { handleAuthApi } from "./handler.server";
import { LEGACY_KEY_FILE, newPrivateJwk, resetSigningKeys, rotateSigningKey } from "./keys.server";
import { signServiceRoleKey } from "./tokens.server";

// Passwords are hashed with scrypt at OWASP parameters: a dozen sign-ins take a while on a busy
// machine, so the budget per test is generous (a bound, not a timing assertion).
vi.setConfig({ testTimeout: 180_000 });

let testDb: TestDatabase;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let ipCounter = 0;
const PASSWORD = "Blue-Monday-1983";
const BASE = "http://localhost:3000/auth/v1";

function address(): string {
  ipCounter++;
  return `10.9.${Math.floor(ipCounter / 250)}.${ipCounter % 250}`;
}

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers field by field
type Json = Record<string, any>;

interface Call {
  method?: string;
  body?: unknown;
  token?: string;
  version?: boolean;
  ip?: string;
}

async function call(pathAndQuery: string, options: Call = {}) {
  const headers = new Headers({ [CLIENT_IP_HEADER]: options.ip ?? address() });
  if (options.body !== undefined) headers.set("Content-Type", "application/json");
  if (options.token) headers.set("Authorization", `Bearer ${options.token}`);
  if (options.version) headers.set("X-Supabase-Api-Version", "2024-01-01");
  const response = await handleAuthApi(
    new Request(`${BASE}${pathAndQuery}`, {
      method: options.method ?? (options.body === undefined ? "GET" : "POST"),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    }),
  );
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : null) as Json,
  };
}

function confirmTokenFor(email: string): string {
  const mail = sink.received.findLast((m) => m.to.includes(email));
  const unfolded = (mail?.raw ?? "").replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = unfolded.match(/\/auth\/confirm\?token=([A-Za-z0-9._%-]+)/);
  if (!match?.[1]) throw new Error(`no confirmation link for ${email}`);
  return decodeURIComponent(match[1]);
}

let accountCounter = 0;
/** Signs up through the API, confirms through /verify with the mailed token, signs in. */
async function confirmedAccount() {
  accountCounter++;
  const email = `listener${accountCounter}@example.org`;
  const signUp = await call("/signup", {
    body: { email, password: PASSWORD, data: { display_name: `Listener ${accountCounter}` } },
  });
  expect(signUp.status).toBe(200);
  const confirmed = await call("/verify", {
    body: { type: "signup", token_hash: confirmTokenFor(email) },
  });
  expect(confirmed.status).toBe(200);
  const signIn = await call("/token?grant_type=password", { body: { email, password: PASSWORD } });
  expect(signIn.status).toBe(200);
  return { email, session: signIn.body };
}

beforeAll(async () => {
  process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), "soundtrail-authapi-"));
  process.env.AUTH_REDIRECT_URLS = "myapp://";
  resetSigningKeys();
  testDb = await createTestDatabase();
  setDatabase(testDb);
  resetAuth();
  sink = await startSmtpSink();
  setMailTransport(createMailTransport({ smtpUrl: sink.url, mailDir: "/nonexistent" }));
});

afterAll(async () => {
  setMailTransport(undefined);
  resetAuth();
  setDatabase(undefined);
  await sink.close();
  await testDb.destroy();
});

beforeEach(() => {
  sink.received.length = 0;
});

describe("settings and keys", () => {
  it("GET /settings lists what is enabled", async () => {
    const { status, body, headers } = await call("/settings");
    expect(status).toBe(200);
    expect(body.external).toMatchObject({ email: true, phone: true, anonymous_users: true });
    expect(body.external.github).toBe(true);
    expect(body.external.spotify).toBe(false);
    expect(headers.get("Access-Control-Allow-Origin")).toBe("*");
  });

  it("publishes the signing key as a JWKS, without its private part", async () => {
    const { status, body } = await call("/.well-known/jwks.json");
    expect(status).toBe(200);
    expect(body.keys).toHaveLength(1);
    expect(body.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(body.keys[0].kid).toEqual(expect.any(String));
    expect(body.keys[0].d).toBeUndefined();
  });

  it("answers a preflight for other origins", async () => {
    const response = await handleAuthApi(new Request(`${BASE}/token`, { method: "OPTIONS" }));
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Headers")).toContain("apikey");
  });

  it("answers unknown endpoints with not_found in both shapes", async () => {
    const plain = await call("/nothing-here");
    expect(plain.status).toBe(404);
    expect(plain.body).toEqual({ code: 404, error_code: "not_found", msg: "Not Found" });
    const versioned = await call("/nothing-here", { version: true });
    expect(versioned.body).toEqual({ code: "not_found", message: "Not Found" });
    expect(versioned.headers.get("X-Supabase-Api-Version")).toBe("2024-01-01");
    expect(versioned.headers.get("x-sb-error-code")).toBe("not_found");
  });
});

describe("sign-up and sign-in", () => {
  it("refuses a sign-up without e-mail or phone with the spec's message", async () => {
    const { status, body, headers } = await call("/signup", { body: { password: PASSWORD } });
    expect(status).toBe(400);
    expect(body).toEqual({
      code: 400,
      error_code: "validation_failed",
      msg: "You must provide either an email or phone number and a password",
    });
    expect(headers.get("x-sb-error-code")).toBe("validation_failed");
  });

  it("refuses a weak password with weak_password and its reasons, creating nothing", async () => {
    const { status, body } = await call("/signup", {
      version: true,
      body: { email: "weak@example.org", password: "password1" },
    });
    expect(status).toBe(422);
    expect(body.code).toBe("weak_password");
    expect(body.weak_password.reasons).toEqual(["length", "pwned"]);
    expect(await testDb.db.select().from(user).where(eq(user.email, "weak@example.org"))).toEqual(
      [],
    );
  });

  it("signs up (pending confirmation), confirms by the mailed token, signs in with a full session", async () => {
    const { email, session: s } = await confirmedAccount();
    expect(s).toMatchObject({ token_type: "bearer", expires_in: 3600 });
    expect(s.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(s.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.user).toMatchObject({
      aud: "authenticated",
      role: "authenticated",
      email,
      is_anonymous: false,
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: { display_name: expect.stringMatching(/^Listener/) },
      factors: [],
    });
    expect(s.user.identities[0]).toMatchObject({ provider: "email", user_id: s.user.id });
    expect(s.user.email_confirmed_at).toEqual(expect.any(String));

    // The access token verifies against the published JWKS with a standard JOSE library.
    const jwks = createLocalJWKSet((await call("/.well-known/jwks.json")).body as never);
    const { payload, protectedHeader } = await jwtVerify(s.access_token, jwks, {
      issuer: BASE,
      audience: "authenticated",
    });
    expect(protectedHeader.alg).toBe("ES256");
    expect(payload).toMatchObject({
      sub: s.user.id,
      aud: "authenticated",
      role: "authenticated",
      email,
      phone: "",
      aal: "aal1",
      is_anonymous: false,
      session_id: expect.any(String),
    });
    expect(payload.amr).toEqual([{ method: "password", timestamp: expect.any(Number) }]);
    expect(Number(payload.exp) - Number(payload.iat)).toBe(3600);

    const me = await call("/user", { token: s.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(s.user.id);
  });

  it("answers the same for an address that already has an account (and mails its owner)", async () => {
    const { email } = await confirmedAccount();
    sink.received.length = 0;
    const again = await call("/signup", { body: { email, password: PASSWORD } });
    expect(again.status).toBe(200);
    expect(Object.keys(again.body).sort()).toEqual(
      Object.keys(
        (await call("/signup", { body: { email: "fresh@example.org", password: PASSWORD } })).body,
      ).sort(),
    );
    expect(again.body.identities).toEqual([]);
  });

  it("refuses a wrong password and an unknown account alike: invalid_credentials", async () => {
    const { email } = await confirmedAccount();
    const wrong = await call("/token?grant_type=password", {
      body: { email, password: "Not-the-password-1" },
    });
    const unknown = await call("/token?grant_type=password", {
      body: { email: "nobody@example.org", password: PASSWORD },
    });
    for (const answer of [wrong, unknown]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        code: 400,
        error_code: "invalid_credentials",
        msg: "Invalid login credentials",
      });
    }
  });

  it("refuses an unconfirmed e-mail with email_not_confirmed", async () => {
    await call("/signup", { body: { email: "unconfirmed@example.org", password: PASSWORD } });
    const answer = await call("/token?grant_type=password", {
      body: { email: "unconfirmed@example.org", password: PASSWORD },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error_code).toBe("email_not_confirmed");
  });

  it("rate limits password grants per client address (429 with Retry-After)", async () => {
    const ip = address();
    let last = { status: 0, headers: new Headers(), body: {} as Json };
    for (let i = 0; i < 11; i++) {
      last = await call("/token?grant_type=password", {
        ip,
        body: { email: `probe${i}@example.org`, password: PASSWORD },
      });
    }
    expect(last.status).toBe(429);
    expect(last.body.error_code).toBe("over_request_rate_limit");
    expect(Number(last.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("signs in anonymously with an empty body: a guest with is_anonymous", async () => {
    const { status, body } = await call("/signup", { body: {} });
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ is_anonymous: true, email: "", identities: [] });
    const jwks = createLocalJWKSet((await call("/.well-known/jwks.json")).body as never);
    const { payload } = await jwtVerify(body.access_token, jwks);
    expect(payload).toMatchObject({ is_anonymous: true, aal: "aal1" });
    expect(payload.amr).toEqual([{ method: "anonymous", timestamp: expect.any(Number) }]);
  });

  it("refuses a missing token and a forged one", async () => {
    const none = await call("/user");
    expect(none.status).toBe(401);
    expect(none.body.error_code).toBe("no_authorization");
    const forged = await call("/user", { token: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.x" });
    expect(forged.status).toBe(403);
    expect(forged.body.error_code).toBe("bad_jwt");
  });
});

describe("refresh tokens", () => {
  it("rotates on every use and carries the session", async () => {
    const { session: first } = await confirmedAccount();
    const next = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: first.refresh_token },
    });
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(first.refresh_token);
    const stored = await testDb.db.select().from(authRefreshTokens);
    expect(stored.some((row) => row.tokenHash === first.refresh_token)).toBe(false);
    const third = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: next.body.refresh_token },
    });
    expect(third.status).toBe(200);
    expect((await call("/user", { token: third.body.access_token })).status).toBe(200);
  });

  it("a stolen token used after the owner's refresh ends the session for both", async () => {
    const { session: stolen } = await confirmedAccount();
    const owner = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: stolen.refresh_token },
    });
    expect(owner.status).toBe(200);
    // Within the grace window a concurrent refresh still works (two tabs at once) …
    const concurrent = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: stolen.refresh_token },
    });
    expect(concurrent.status).toBe(200);
    // … but once the window has passed, the spent token is a theft. (The clock is moved by
    // dating the spend back, not by waiting.)
    await testDb.db.execute(
      sql`update auth_refresh_tokens set used_at = now() - interval '1 minute' where used_at is not null`,
    );
    const thief = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: stolen.refresh_token },
    });
    expect(thief.status).toBe(400);
    expect(thief.body).toEqual({
      code: 400,
      error_code: "refresh_token_already_used",
      msg: "Invalid Refresh Token: Already Used",
    });
    const ownerAgain = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: owner.body.refresh_token },
    });
    expect(ownerAgain.status).toBe(400);
    expect(ownerAgain.body.error_code).toBe("refresh_token_not_found");
    const me = await call("/user", { token: owner.body.access_token, version: true });
    expect(me.status).toBe(403);
    expect(me.body).toEqual({
      code: "session_not_found",
      message: "Session from session_id claim in JWT does not exist",
    });
  });

  it("an unknown refresh token is refresh_token_not_found", async () => {
    const answer = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: "x".repeat(43) },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.msg).toBe("Invalid Refresh Token: Refresh Token Not Found");
  });

  it("a banned person's refresh and bearer requests fail at once", async () => {
    const { session: s } = await confirmedAccount();
    const [admin] = await testDb.db
      .insert(user)
      .values({ id: "admin-for-ban", name: "Admin", email: "ban-admin@example.org" })
      .returning();
    await testDb.db
      .insert(profiles)
      .values({ userId: admin?.id ?? "", username: "ban_admin", roles: ["admin"] });
    await banUser({ actorId: "admin-for-ban", userId: s.user.id, reason: "spam" });
    const refresh = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: s.refresh_token },
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error_code).toBe("refresh_token_not_found");
    expect((await call("/user", { token: s.access_token })).body.error_code).toBe(
      "session_not_found",
    );
    const viewer = await getViewerFromBearer(
      new Headers({ Authorization: `Bearer ${s.access_token}` }),
    );
    expect(viewer.viewer).toBeNull();
    const signIn = await call("/token?grant_type=password", {
      body: { email: s.user.email, password: PASSWORD },
    });
    expect(signIn.status).toBe(400);
  });
});

describe("sign-out", () => {
  it("scope=local ends this session, scope=others the others, scope=global all", async () => {
    const { email, session: a } = await confirmedAccount();
    const signIn = () =>
      call("/token?grant_type=password", { body: { email, password: PASSWORD } }).then(
        (r) => r.body,
      );
    const b = await signIn();
    const c = await signIn();
    expect(
      (await call("/logout?scope=others", { method: "POST", token: a.access_token })).status,
    ).toBe(204);
    expect((await call("/user", { token: a.access_token })).status).toBe(200);
    expect((await call("/user", { token: b.access_token })).status).toBe(403);
    expect((await call("/user", { token: c.access_token })).status).toBe(403);
    const d = await signIn();
    expect(
      (await call("/logout?scope=local", { method: "POST", token: d.access_token })).status,
    ).toBe(204);
    expect((await call("/user", { token: d.access_token })).status).toBe(403);
    expect((await call("/user", { token: a.access_token })).status).toBe(200);
    const e = await signIn();
    await call("/logout", { method: "POST", token: e.access_token });
    expect((await call("/user", { token: a.access_token })).status).toBe(403);
    const refresh = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: a.refresh_token },
    });
    expect(refresh.status).toBe(400);
  });
});

describe("updating the user", () => {
  it("changes the display name, and the password with the current one (other devices signed out)", async () => {
    const { email, session: mine } = await confirmedAccount();
    const other = (
      await call("/token?grant_type=password", { body: { email, password: PASSWORD } })
    ).body;
    const named = await call("/user", {
      method: "PUT",
      token: mine.access_token,
      body: { data: { display_name: "Ana Rivera" } },
    });
    expect(named.status).toBe(200);
    expect(named.body.user_metadata.display_name).toBe("Ana Rivera");

    const missing = await call("/user", {
      method: "PUT",
      token: mine.access_token,
      body: { password: "Another-Long-Pass-2" },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error_code: "reauthentication_needed",
      msg: "Password update requires reauthentication",
    });

    const weak = await call("/user", {
      method: "PUT",
      token: mine.access_token,
      body: { password: "short", current_password: PASSWORD },
    });
    expect(weak.status).toBe(422);
    expect(weak.body.weak_password.reasons).toContain("length");

    const changed = await call("/user", {
      method: "PUT",
      token: mine.access_token,
      body: { password: "Another-Long-Pass-2", current_password: PASSWORD },
    });
    expect(changed.status).toBe(200);
    // This device goes on; the other one is signed out.
    expect((await call("/user", { token: mine.access_token })).status).toBe(200);
    expect(
      (
        await call("/token?grant_type=refresh_token", {
          body: { refresh_token: mine.refresh_token },
        })
      ).status,
    ).toBe(200);
    expect((await call("/user", { token: other.access_token })).status).toBe(403);
    const newPassword = await call("/token?grant_type=password", {
      body: { email, password: "Another-Long-Pass-2" },
    });
    expect(newPassword.status).toBe(200);
  });
});

describe("MFA (TOTP)", () => {
  const totpNow = (secret: string, offset = 0) =>
    createOTP(new TextDecoder().decode(base32.decode(secret))).hotp(
      Math.floor(Date.now() / 30_000) + offset,
    );

  it("enrols, verifies to aal2 (kept across refresh), refuses a replayed code, and steps up a later sign-in", async () => {
    const { email, session: s } = await confirmedAccount();
    const enrolled = await call("/factors", {
      token: s.access_token,
      body: { factor_type: "totp", friendly_name: "Phone" },
    });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body).toMatchObject({ type: "totp", friendly_name: "Phone" });
    expect(enrolled.body.totp.qr_code).toMatch(/^<svg /);
    const secret: string = enrolled.body.totp.secret;
    const factorId: string = enrolled.body.id;

    const challenge = await call(`/factors/${factorId}/challenge`, {
      token: s.access_token,
      body: {},
    });
    expect(challenge.status).toBe(200);
    const wrong = await call(`/factors/${factorId}/verify`, {
      token: s.access_token,
      body: {
        challenge_id: challenge.body.id,
        code: (await totpNow(secret)) === "000000" ? "111111" : "000000",
      },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error_code).toBe("mfa_verification_failed");

    const code = await totpNow(secret);
    const verified = await call(`/factors/${factorId}/verify`, {
      token: s.access_token,
      body: { challenge_id: challenge.body.id, code },
    });
    expect(verified.status).toBe(200);
    const jwks = createLocalJWKSet((await call("/.well-known/jwks.json")).body as never);
    const aal2 = await jwtVerify(verified.body.access_token, jwks);
    expect(aal2.payload.aal).toBe("aal2");
    expect((aal2.payload.amr as { method: string }[]).map((m) => m.method)).toEqual([
      "totp",
      "password",
    ]);
    expect(verified.body.user.factors).toEqual([
      expect.objectContaining({ id: factorId, factor_type: "totp", status: "verified" }),
    ]);
    const refreshed = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: verified.body.refresh_token },
    });
    expect((await jwtVerify(refreshed.body.access_token, jwks)).payload.aal).toBe("aal2");

    // A new sign-in gets aal1: the data routes refuse it until the second factor.
    const later = (
      await call("/token?grant_type=password", { body: { email, password: PASSWORD } })
    ).body;
    expect((await jwtVerify(later.access_token, jwks)).payload.aal).toBe("aal1");
    const header = () => new Headers({ Authorization: `Bearer ${later.access_token}` });
    expect((await getViewerFromBearer(header())).viewer).toBeNull();
    const stepChallenge = await call(`/factors/${factorId}/challenge`, {
      token: later.access_token,
      body: {},
    });
    const replay = await call(`/factors/${factorId}/verify`, {
      token: later.access_token,
      body: { challenge_id: stepChallenge.body.id, code },
    });
    expect(replay.status).toBe(422);
    expect(replay.body.error_code).toBe("mfa_verification_rejected");
    const fresh = await totpNow(secret, 1);
    const stepped = await call(`/factors/${factorId}/verify`, {
      token: later.access_token,
      body: { challenge_id: stepChallenge.body.id, code: fresh },
    });
    expect(stepped.status).toBe(200);
    expect((await jwtVerify(stepped.body.access_token, jwks)).payload.aal).toBe("aal2");
    const viewer = await getViewerFromBearer(
      new Headers({ Authorization: `Bearer ${stepped.body.access_token}` }),
    );
    expect(viewer.viewer?.id).toBe(s.user.id);

    // Unenrolling needs aal2: a third sign-in, still at aal1, may not.
    const third = (
      await call("/token?grant_type=password", { body: { email, password: PASSWORD } })
    ).body;
    const refusedUnenroll = await call(`/factors/${factorId}`, {
      method: "DELETE",
      token: third.access_token,
    });
    expect(refusedUnenroll.status).toBe(403);
    expect(refusedUnenroll.body.error_code).toBe("insufficient_aal");
  });
});

describe("bearer tokens on the data routes", () => {
  it("resolve the viewer without reading cookies", async () => {
    const { session: s } = await confirmedAccount();
    const viewer = await getViewerFromBearer(
      new Headers({
        Authorization: `Bearer ${s.access_token}`,
        Cookie: "soundtrail.session_token=x",
      }),
    );
    expect(viewer.viewer?.id).toBe(s.user.id);
    const [row] = await testDb.db
      .select({ authSessionId: authTokenSessions.authSessionId })
      .from(authTokenSessions)
      .where(eq(authTokenSessions.id, String(decodeJwt(s.access_token).session_id)));
    expect(viewer.sessionId).toBe(row?.authSessionId);
    // The token session is a real session: Settings lists it, and ending it there ends the token.
    await testDb.db.delete(session).where(eq(session.id, row?.authSessionId ?? ""));
    expect(
      (await getViewerFromBearer(new Headers({ Authorization: `Bearer ${s.access_token}` })))
        .viewer,
    ).toBeNull();
    // The cookie door is untouched by a bearer header's presence elsewhere.
    expect((await getViewerFromHeaders(new Headers())).viewer).toBeNull();
  });
});

describe("key rotation", () => {
  it("keeps the keys in the database: another instance on it verifies the tokens and publishes the same JWKS", async () => {
    const { session } = await confirmedAccount();
    const published = (await call("/.well-known/jwks.json")).body;
    // A second instance on the same database: no key set in memory, only the table.
    resetSigningKeys();
    expect((await call("/.well-known/jwks.json")).body).toEqual(published);
    expect((await call("/user", { token: session.access_token })).status).toBe(200);
    const rows = await testDb.db.select().from(authJwtKeys);
    expect(rows.map((row) => row.kid).sort()).toEqual(
      (published.keys as { kid: string }[]).map((key) => key.kid).sort(),
    );
  });

  it("takes over the keys of an old per-instance auth-jwt-keys.json when the table has none", async () => {
    const legacy = await newPrivateJwk();
    const file = path.join(getEnv().DATA_DIR, LEGACY_KEY_FILE);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ keys: [legacy] }));
    try {
      await testDb.db.delete(authJwtKeys);
      resetSigningKeys();
      const published = (await call("/.well-known/jwks.json")).body.keys as { kid: string }[];
      expect(published.map((key) => key.kid)).toEqual([legacy.kid]);
      const { session } = await confirmedAccount();
      expect(decodeProtectedHeader(session.access_token).kid).toBe(legacy.kid);
    } finally {
      rmSync(file, { force: true });
      resetSigningKeys();
    }
  });

  it("publishes the previous key after a rotation, so earlier tokens keep verifying", async () => {
    const { session: before } = await confirmedAccount();
    const published = (await call("/.well-known/jwks.json")).body.keys as { kid: string }[];
    const kid = await rotateSigningKey({ AUTH_JWT_EXPIRY: 3600 });
    const keys = (await call("/.well-known/jwks.json")).body.keys as { kid: string }[];
    expect(keys).toHaveLength(published.length + 1);
    expect(keys[0]?.kid).toBe(kid);
    expect(keys.map((key) => key.kid)).toEqual(
      expect.arrayContaining(published.map((key) => key.kid)),
    );
    expect((await call("/user", { token: before.access_token })).status).toBe(200);
    // Another instance that never saw the old key as current still accepts its tokens.
    resetSigningKeys();
    expect((await call("/user", { token: before.access_token })).status).toBe(200);
    const after = await call("/token?grant_type=refresh_token", {
      body: { refresh_token: before.refresh_token },
    });
    const header = JSON.parse(
      Buffer.from(after.body.access_token.split(".")[0], "base64url").toString(),
    ) as { kid: string };
    expect(header.kid).toBe(kid);
    await settleAfterResponse();
  });
});

describe("codes, recovery, resend and reauthentication", () => {
  it("POST /otp mails a code that POST /verify turns into a session; create_user false refuses an unknown address as GoTrue", async () => {
    const { email } = await confirmedAccount();
    sink.received.length = 0;
    const sent = await call("/otp", { body: { email, create_user: false } });
    const unknown = await call("/otp", {
      body: { email: "nobody-otp@example.org", create_user: false },
    });
    expect(sent).toMatchObject({ status: 200, body: {} });
    expect(unknown).toMatchObject({
      status: 422,
      body: { error_code: "otp_disabled", msg: "Signups not allowed for otp" },
    });
    await settleAfterResponse();
    expect(sink.received.flatMap((m) => m.to)).toEqual([email]);
    const code = sink.received[0]?.subject.match(/^(\d{6}) /)?.[1] ?? "";
    const wrong = await call("/verify", {
      body: { type: "email", email, token: code === "000000" ? "111111" : "000000" },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error_code).toBe("otp_expired");
    const verified = await call("/verify", { body: { type: "email", email, token: code } });
    expect(verified.status).toBe(200);
    expect(decodeJwt(verified.body.access_token).amr).toEqual([
      { method: "otp", timestamp: expect.any(Number) },
    ]);
  });

  it("POST /otp without an address gives the spec's message", async () => {
    const answer = await call("/otp", { body: {} });
    expect(answer.status).toBe(400);
    expect(answer.body.msg).toBe("You must provide either an email or phone number.");
  });

  it("POST /recover mails a reset link to a known address only, answering alike", async () => {
    const { email } = await confirmedAccount();
    sink.received.length = 0;
    expect((await call("/recover", { body: { email } })).status).toBe(200);
    expect((await call("/recover", { body: { email: "nobody-reset@example.org" } })).status).toBe(
      200,
    );
    await settleAfterResponse();
    expect(sink.received.flatMap((m) => m.to)).toEqual([email]);
    expect(sink.received[0]?.raw).toContain("/auth/reset-password?token=");
  });

  it("POST /verify with the mailed recovery token gives a session that sets a new password once", async () => {
    const { email } = await confirmedAccount();
    sink.received.length = 0;
    expect((await call("/recover", { body: { email } })).status).toBe(200);
    await settleAfterResponse();
    const unfolded = (sink.received[0]?.raw ?? "").replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    const token = decodeURIComponent(
      unfolded.match(/\/auth\/reset-password\?token=([A-Za-z0-9._%-]+)/)?.[1] ?? "",
    );
    expect(token).not.toBe("");

    const recovered = await call("/verify", { body: { type: "recovery", token_hash: token } });
    expect(recovered.status).toBe(200);
    expect(decodeJwt(recovered.body.access_token)).toMatchObject({
      aal: "aal1",
      amr: [{ method: "recovery", timestamp: expect.any(Number) }],
    });
    // The link works once.
    const again = await call("/verify", { body: { type: "recovery", token_hash: token } });
    expect(again).toMatchObject({ status: 403, body: { error_code: "otp_expired" } });

    // The same checks as the reset page: a weak password is refused, nothing changes.
    const weak = await call("/user", {
      method: "PUT",
      token: recovered.body.access_token,
      body: { password: "password" },
    });
    expect(weak).toMatchObject({ status: 422, body: { error_code: "weak_password" } });
    const NEW = "Ceremony-New-Order-1981";
    const set = await call("/user", {
      method: "PUT",
      token: recovered.body.access_token,
      body: { password: NEW },
    });
    expect(set.status).toBe(200);
    // This session goes on; the old password no longer signs in, the new one does.
    expect((await call("/user", { token: recovered.body.access_token })).status).toBe(200);
    const old = await call("/token?grant_type=password", { body: { email, password: PASSWORD } });
    expect(old).toMatchObject({ status: 400, body: { error_code: "invalid_credentials" } });
    const fresh = await call("/token?grant_type=password", { body: { email, password: NEW } });
    expect(fresh.status).toBe(200);

    // An ordinary session still needs the current password to change it.
    const plain = await call("/user", {
      method: "PUT",
      token: fresh.body.access_token,
      body: { password: "Temptation-New-Order-1982" },
    });
    expect(plain).toMatchObject({ status: 400, body: { error_code: "reauthentication_needed" } });
  });

  it("POST /verify refuses a recovery token that was never mailed", async () => {
    const answer = await call("/verify", {
      body: { type: "recovery", token_hash: "forged-token" },
    });
    expect(answer).toMatchObject({ status: 403, body: { error_code: "otp_expired" } });
  });

  it("PUT /user with a phone texts a code; POST /verify phone_change makes the number the account's", async () => {
    const texts: SmsMessage[] = [];
    setSmsSender(async (message) => {
      texts.push(message);
    });
    try {
      const { session: s } = await confirmedAccount();
      const phone = "+4915112345678";
      const asked = await call("/user", { method: "PUT", token: s.access_token, body: { phone } });
      expect(asked.status).toBe(200);
      expect(texts.map((t) => t.to)).toEqual([phone]);
      const code = texts[0]?.body.match(/\b(\d{6})\b/)?.[1] ?? "";
      // As GoTrue: no bearer needed, the number and its code say whose change it is.
      const wrong = await call("/verify", {
        body: { type: "phone_change", phone, token: code === "000000" ? "111111" : "000000" },
      });
      expect(wrong).toMatchObject({ status: 403, body: { error_code: "otp_expired" } });
      const verified = await call("/verify", {
        body: { type: "phone_change", phone, token: code },
      });
      expect(verified.status).toBe(200);
      // GoTrue's form: E.164 digits without the "+".
      expect(verified.body.user.phone).toBe(phone.slice(1));
      expect(verified.body.user.id).toBe(s.user.id);
      const read = await call("/user", { token: s.access_token });
      expect(read.body.phone).toBe(phone.slice(1));
      const again = await call("/verify", { body: { type: "phone_change", phone, token: code } });
      expect(again).toMatchObject({ status: 403, body: { error_code: "otp_expired" } });
    } finally {
      setSmsSender(undefined);
    }
  });

  it("POST /resend sends the sign-up confirmation again", async () => {
    await call("/signup", { body: { email: "resend@example.org", password: PASSWORD } });
    sink.received.length = 0;
    const answer = await call("/resend", { body: { type: "signup", email: "resend@example.org" } });
    expect(answer).toMatchObject({ status: 200, body: {} });
    expect(sink.received.some((m) => m.to.includes("resend@example.org"))).toBe(true);
  });

  it("GET /reauthenticate mails a code that PUT /user takes as nonce instead of the password, once", async () => {
    const { email, session: s } = await confirmedAccount();
    expect((await call("/reauthenticate")).status).toBe(401);
    sink.received.length = 0;
    expect(await call("/reauthenticate", { token: s.access_token })).toMatchObject({
      status: 200,
      body: {},
    });
    expect(sink.received.flatMap((m) => m.to)).toEqual([email]);
    const nonce = sink.received[0]?.subject.match(/^(\d{6}) /)?.[1] ?? "";
    expect(nonce).toMatch(/^\d{6}$/);
    const NEW = "Reauthenticated-Blue-Monday-2";
    const wrong = await call("/user", {
      method: "PUT",
      token: s.access_token,
      body: { password: NEW, nonce: nonce === "000000" ? "111111" : "000000" },
    });
    expect(wrong).toMatchObject({
      status: 400,
      body: { error_code: "reauthentication_not_valid" },
    });
    const changed = await call("/user", {
      method: "PUT",
      token: s.access_token,
      body: { password: NEW, nonce },
    });
    expect(changed.status).toBe(200);
    const reused = await call("/user", {
      method: "PUT",
      token: s.access_token,
      body: { password: "Reauthenticated-Again-3", nonce },
    });
    expect(reused).toMatchObject({
      status: 400,
      body: { error_code: "reauthentication_not_valid" },
    });
    const fresh = await call("/token?grant_type=password", { body: { email, password: NEW } });
    expect(fresh.status).toBe(200);
  });

  it("refuses a body that is not JSON with bad_json", async () => {
    const response = await handleAuthApi(
      new Request(`${BASE}/token?grant_type=password`, {
        method: "POST",
        headers: { "Content-Type": "application/json", [CLIENT_IP_HEADER]: address() },
        body: "{",
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error_code: "bad_json" });
  });
});

describe("OAuth with PKCE", () => {
  const verifier = `${"v".repeat(20)}-verifier-of-the-app-0123456789`;
  const challenge = createHash("sha256").update(verifier).digest("base64url");

  it("refuses a provider that is not configured, and a flow without PKCE", async () => {
    const spotify = await call(`/authorize?provider=spotify&code_challenge=${challenge}`);
    expect(spotify.status).toBe(400);
    expect(spotify.body.error_code).toBe("validation_failed");
    const noPkce = await call("/authorize?provider=github");
    expect(noPkce.status).toBe(400);
  });

  async function startFlow(): Promise<string> {
    const authorize = await handleAuthApi(
      new Request(
        `${BASE}/authorize?provider=github&redirect_to=${encodeURIComponent("myapp://done")}&code_challenge=${challenge}&code_challenge_method=s256`,
        { headers: { [CLIENT_IP_HEADER]: address() } },
      ),
    );
    expect(authorize.status).toBe(302);
    expect(authorize.headers.get("Location")).toMatch(
      /^https:\/\/github\.com\/login\/oauth\/authorize/,
    );
    const [flow] = await testDb.db
      .select({ identifier: verification.identifier })
      .from(verification)
      .where(like(verification.identifier, "oauth-flow:%"));
    return flow?.identifier.slice("oauth-flow:".length) ?? "";
  }

  async function finishFlow(flowId: string, cookie: string): Promise<string> {
    const callback = await handleAuthApi(
      new Request(`${BASE}/callback?flow=${flowId}`, { headers: { Cookie: cookie } }),
    );
    expect(callback.status).toBe(302);
    const target = new URL(callback.headers.get("Location") ?? "");
    expect(target.protocol).toBe("myapp:");
    return target.searchParams.get("code") ?? "";
  }

  it("sends the browser to the provider, hands the resulting session over as a code for grant_type=pkce", async () => {
    const flowId = await startFlow();
    // The provider's callback ends in a browser session (here: a password sign-in's cookie).
    const { email } = await confirmedAccount();
    const browser = await signInWithEmail({
      email,
      password: PASSWORD,
      headers: new Headers({ [CLIENT_IP_HEADER]: address() }),
    });
    if (!browser.ok) throw new Error("browser sign-in failed");
    const cookie = browser.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const code = await finishFlow(flowId, cookie);
    const redeemed = await call("/token?grant_type=pkce", {
      body: { auth_code: code, code_verifier: verifier },
    });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.user.email).toBe(email);
    expect(decodeJwt(redeemed.body.access_token).amr).toEqual([
      { method: "oauth", timestamp: expect.any(Number) },
    ]);
    // A code works once.
    const again = await call("/token?grant_type=pkce", {
      body: { auth_code: code, code_verifier: verifier },
    });
    expect(again.status).toBe(404);
    expect(again.body.error_code).toBe("flow_state_not_found");
    // redirect_to outside BASE_URL and AUTH_REDIRECT_URLS falls back to BASE_URL.
    const [foreignFlow] = await Promise.all([
      handleAuthApi(
        new Request(
          `${BASE}/authorize?provider=github&redirect_to=${encodeURIComponent("https://evil.example/x")}&code_challenge=${challenge}`,
          { headers: { [CLIENT_IP_HEADER]: address() } },
        ),
      ),
    ]);
    expect(foreignFlow.status).toBe(302);
    const [stored] = await testDb.db
      .select({ value: verification.value })
      .from(verification)
      .where(like(verification.identifier, "oauth-flow:%"));
    expect(JSON.parse(stored?.value ?? "{}").redirectTo).toBe("http://localhost:3000");
    await testDb.db.delete(verification).where(like(verification.identifier, "oauth-flow:%"));
    // A code redeemed with the wrong verifier is refused (and spent).
    const second = await finishFlow(await startFlow(), cookie);
    const wrongVerifier = await call("/token?grant_type=pkce", {
      body: { auth_code: second, code_verifier: "w".repeat(50) },
    });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body.error_code).toBe("bad_code_verifier");
  });
});

describe("identity linking", () => {
  it("linkIdentity: answers { url } of a page that sends the browser to the provider for this person", async () => {
    const { session: s } = await confirmedAccount();
    const started = await call(
      `/user/identities/authorize?provider=github&skip_http_redirect=true&redirect_to=${encodeURIComponent("myapp://linked")}`,
      { token: s.access_token },
    );
    expect(started.status).toBe(200);
    expect(started.body.url).toMatch(/\/auth\/v1\/user\/identities\/link\?flow=[0-9a-f-]+$/);
    const page = await handleAuthApi(
      new Request(started.body.url.replace(/^https?:\/\/[^/]+\/auth\/v1/, BASE), {
        headers: { [CLIENT_IP_HEADER]: address() },
      }),
    );
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toMatch(
      /^https:\/\/github\.com\/login\/oauth\/authorize\?.*client_id=vitest-github-client/,
    );
    // The flow works once.
    const again = await handleAuthApi(
      new Request(started.body.url.replace(/^https?:\/\/[^/]+\/auth\/v1/, BASE)),
    );
    expect(again.status).toBe(400);
    // Without a token, and for a provider that is not configured: GoTrue's errors.
    expect((await call("/user/identities/authorize?provider=github")).status).toBe(401);
    const unknown = await call("/user/identities/authorize?provider=myspace", {
      token: s.access_token,
    });
    expect(unknown).toMatchObject({ status: 400, body: { error_code: "validation_failed" } });
  });

  it("unlinkIdentity removes a linked provider but never the last identity", async () => {
    const { session: s } = await confirmedAccount();
    const userId = s.user.id as string;
    await testDb.db.insert(account).values({
      id: crypto.randomUUID(),
      userId,
      providerId: "github",
      accountId: `gh-${userId}`,
      updatedAt: new Date(),
    });
    const before = await call("/user", { token: s.access_token });
    const identities = before.body.identities as { identity_id: string; provider: string }[];
    expect(identities.map((i) => i.provider).sort()).toEqual(["email", "github"]);
    const github = identities.find((i) => i.provider === "github");
    const email = identities.find((i) => i.provider === "email");
    const unlinked = await call(`/user/identities/${github?.identity_id}`, {
      method: "DELETE",
      token: s.access_token,
    });
    expect(unlinked.status).toBe(200);
    const after = await call("/user", { token: s.access_token });
    expect(after.body.identities.map((i: { provider: string }) => i.provider)).toEqual(["email"]);
    const last = await call(`/user/identities/${email?.identity_id}`, {
      method: "DELETE",
      token: s.access_token,
    });
    expect(last).toMatchObject({
      status: 422,
      body: {
        error_code: "single_identity_not_deletable",
        msg: "User must have at least 1 identity after unlinking",
      },
    });
    const missing = await call("/user/identities/no-such-identity", {
      method: "DELETE",
      token: s.access_token,
    });
    expect(missing).toMatchObject({ status: 422, body: { error_code: "identity_not_found" } });
  });
});

describe("admin API", () => {
  it("takes the service-role key only, and writes each change to the audit log as service_role", async () => {
    const serviceKey = await signServiceRoleKey();
    const email = `admin-audit-${accountCounter++}@example.org`;
    const created = await call("/admin/users", {
      token: serviceKey,
      body: { email, email_confirm: true, app_metadata: { plan: "team" } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ email, app_metadata: { plan: "team" } });
    const [entry] = await testDb.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.targetId, created.body.id));
    expect(entry).toMatchObject({
      action: "user.create",
      actorLabel: "service_role",
      actorId: null,
    });
    // A person's own token is not the service role: GoTrue's 403 not_admin.
    const { session: s } = await confirmedAccount();
    const refused = await call("/admin/users", { token: s.access_token });
    expect(refused).toMatchObject({
      status: 403,
      body: { error_code: "not_admin", msg: "User not allowed" },
    });
    // Nor is a user's token accepted on another's behalf in the key's place.
    expect((await call(`/admin/users/${created.body.id}`)).status).toBe(401);
  });

  it("generate_link signup and recovery: the hashed token verifies once; email_confirm confirms", async () => {
    const serviceKey = await signServiceRoleKey();
    const email = `admin-link-${accountCounter++}@example.org`;
    const signup = await call("/admin/generate_link", {
      token: serviceKey,
      body: { type: "signup", email, password: PASSWORD },
    });
    expect(signup.status).toBe(200);
    expect(signup.body).toMatchObject({ email, verification_type: "signup" });
    expect(signup.body.email_confirmed_at).toBeUndefined();
    const confirmed = await call("/verify", {
      body: { type: "signup", token_hash: signup.body.hashed_token },
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.user.email_confirmed_at).toEqual(expect.any(String));
    const reused = await call("/verify", {
      body: { type: "signup", token_hash: signup.body.hashed_token },
    });
    expect(reused).toMatchObject({ status: 403, body: { error_code: "otp_expired" } });
    expect(
      (await call("/token?grant_type=password", { body: { email, password: PASSWORD } })).status,
    ).toBe(200);

    const recovery = await call("/admin/generate_link", {
      token: serviceKey,
      body: { type: "recovery", email },
    });
    const recovered = await call("/verify", {
      body: { type: "recovery", token_hash: recovery.body.hashed_token },
    });
    expect(recovered.status).toBe(200);
    expect(decodeJwt(recovered.body.access_token).amr).toEqual([
      { method: "recovery", timestamp: expect.any(Number) },
    ]);
    const NEW = "Admin-Recovered-Pass-1999";
    const set = await call("/user", {
      method: "PUT",
      token: recovered.body.access_token,
      body: { password: NEW },
    });
    expect(set.status).toBe(200);
    expect(
      (await call("/token?grant_type=password", { body: { email, password: NEW } })).status,
    ).toBe(200);

    // email_confirm through updateUserById.
    const other = await call("/admin/users", {
      token: serviceKey,
      body: { email: `admin-unconfirmed-${accountCounter++}@example.org` },
    });
    expect(other.body.email_confirmed_at).toBeUndefined();
    const updated = await call(`/admin/users/${other.body.id}`, {
      method: "PUT",
      token: serviceKey,
      body: { email_confirm: true },
    });
    expect(updated.body.email_confirmed_at).toEqual(expect.any(String));
  });
});

describe("e-mail change links", () => {
  it("GET /verify with the mailed link redirects to redirect_to with the session in the fragment, once", async () => {
    const { session: s } = await confirmedAccount();
    const next = `link-change-${accountCounter++}@example.org`;
    sink.received.length = 0;
    const asked = await call("/user", {
      method: "PUT",
      token: s.access_token,
      body: { email: next },
    });
    expect(asked.status).toBe(200);
    expect(asked.body.new_email).toBe(next);
    const mail = sink.received.find((m) => m.to.includes(next));
    const raw = (mail?.raw ?? "").replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    const token = raw.match(/\/auth\/v1\/verify\?token=([A-Za-z0-9_-]+)&type=email_change/)?.[1];
    expect(token).toBeDefined();
    const open = (redirect: string) =>
      handleAuthApi(
        new Request(
          `${BASE}/verify?token=${token}&type=email_change&redirect_to=${encodeURIComponent(redirect)}`,
          { headers: { [CLIENT_IP_HEADER]: address() } },
        ),
      );
    const first = await open("myapp://changed");
    expect(first.status).toBe(303);
    const location = new URL(first.headers.get("Location") ?? "");
    expect(`${location.protocol}//${location.host}`).toBe("myapp://changed");
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get("type")).toBe("email_change");
    const user = await call("/user", { token: fragment.get("access_token") ?? "" });
    expect(user.body).toMatchObject({ id: s.user.id, email: next });
    const second = new URL((await open("myapp://changed")).headers.get("Location") ?? "");
    expect(new URLSearchParams(second.hash.slice(1)).get("error_code")).toBe("otp_expired");
  });
});
