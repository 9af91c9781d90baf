import { base32 } from "@better-auth/utils/base32";
import { createOTP } from "@better-auth/utils/otp";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AUTH_LIMITS } from "~/core/rate-limit/rate-limit.server";
import { countStatements, setDatabase } from "~/db/client.server";
import { account, profiles, session, twoFactor, user, verification } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { createMailTransport, setMailTransport } from "~/features/mail/index.server";
import { type SmsMessage, setSmsSender } from "~/features/sms/index.server";
import { collectAfterResponse, settleAfterResponse } from "~/lib/after-response.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { atTheEdge } from "~/lib/route-errors.server";
import * as loginRoute from "~/routes/_auth/login";
import * as authCallbackRoute from "~/routes/api/auth-callback";
import { startSmtpSink } from "../../../tests/support/smtp-sink";
import { changePassword, deleteAccount } from "./account-changes.server";
import { getViewerFromHeaders, signInWithEmail } from "./accounts.server";
import { resetAuth } from "./better-auth.server";
import {
  confirmPhoneSignUp,
  requestSignInCode,
  signInWithCode,
  signUpWithPhone,
} from "./codes.server";
import { continueAsGuest, upgradeGuest } from "./guest.server";
import { startOAuth } from "./oauth.server";
import { hashPassword } from "./password.server";
import { REAUTH_PASSWORD } from "./reauth.server";
import { requestPasswordReset, resetPassword } from "./recovery.server";
import {
  CHALLENGE_OVER,
  confirmTotpEnrollment,
  disableTwoFactor,
  REPLAYED_CODE,
  startTotpEnrollment,
  verifySecondFactor,
} from "./two-factor.server";

const { loader: loginLoader } = atTheEdge(loginRoute);
const { loader: callbackLoader } = atTheEdge(authCallbackRoute);

const PASSWORD = "Blue-Monday-1983";
let testDb: TestDatabase;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
const sms: SmsMessage[] = [];
let ipCounter = 0;

function requestHeaders(cookie?: string) {
  ipCounter++;
  const headers = new Headers({
    [CLIENT_IP_HEADER]: `10.2.${Math.floor(ipCounter / 250)}.${ipCounter % 250}`,
  });
  if (cookie) headers.set("Cookie", cookie);
  return headers;
}

/** The cookies a response sets, as a Cookie header (expired ones left out). */
function cookieHeader(headers: Headers): string {
  return headers
    .getSetCookie()
    .filter((c) => !/max-age=0/i.test(c))
    .map((c) => c.split(";")[0])
    .join("; ");
}

function hasSessionCookie(headers: Headers): boolean {
  return headers
    .getSetCookie()
    .some((c) => c.startsWith("soundtrail.session_token=") && !/max-age=0/i.test(c));
}

function codeIn(text: string): string {
  const match = text.match(/\b(\d{6})\b/);
  if (!match) throw new Error(`no code in: ${text}`);
  return match[1] ?? "";
}

/** The last mail to `email`, once the mails queued for after the answer went out. */
async function mailTo(email: string) {
  await settleAfterResponse();
  const mail = sink.received.findLast((m) => m.to.includes(email));
  if (!mail) throw new Error(`no mail to ${email}`);
  return mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
}

/** A confirmed account with a password, straight in the database. */
async function createPasswordAccount(name: string) {
  const id = `acct-${name}`;
  const email = `${name}@example.org`;
  await testDb.db.insert(user).values({ id, name, email, emailVerified: true, username: name });
  await testDb.db.insert(profiles).values({ userId: id, email, displayName: name, username: name });
  await testDb.db.insert(account).values({
    id: `cred-${name}`,
    userId: id,
    providerId: "credential",
    accountId: id,
    password: await hashPassword(PASSWORD),
  });
  return { id, email };
}

async function signIn(email: string, password = PASSWORD) {
  const result = await signInWithEmail({ email, password, headers: requestHeaders() });
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result;
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  setDatabase(testDb);
  resetAuth();
  sink = await startSmtpSink();
  setMailTransport(createMailTransport({ smtpUrl: sink.url, mailDir: "/nonexistent" }));
  setSmsSender(async (message) => {
    sms.push(message);
  });
});

afterAll(async () => {
  setSmsSender(undefined);
  setMailTransport(undefined);
  resetAuth();
  setDatabase(undefined);
  await sink.close();
  await testDb.destroy();
});

beforeEach(() => {
  sink.received.length = 0;
  sms.length = 0;
});

describe("one-time code sign-in by e-mail", () => {
  it("mails a code that signs the person in once, and stores only its hash", async () => {
    const { email, id } = await createPasswordAccount("coder");
    expect(
      (await requestSignInCode({ channel: "email", to: email, headers: requestHeaders() })).ok,
    ).toBe(true);
    const code = codeIn((await mailTo(email)).match(/Subject: (.*)/)?.[1] ?? "");
    const stored = await testDb.db.select({ value: verification.value }).from(verification);
    expect(stored.map((r) => r.value).join()).not.toContain(code);

    const result = await signInWithCode({
      channel: "email",
      to: email,
      code,
      headers: requestHeaders(),
    });
    expect(result.ok).toBe(true);
    const { viewer } = await getViewerFromHeaders(
      requestHeaders(cookieHeader(result.ok ? result.headers : new Headers())),
    );
    expect(viewer?.id).toBe(id);
    const again = await signInWithCode({
      channel: "email",
      to: email,
      code,
      headers: requestHeaders(),
    });
    expect(again).toMatchObject({ ok: false, code: "invalid_code" });
  });

  it.each([
    ["banned", { banned: true }, "account_banned"],
    ["two-step", { twoFactorEnabled: true }, "second_factor_required"],
  ] as const)(
    "refuses a code sign-in for a %s account clearly, never with a 500",
    async (name, change, code) => {
      const { email, id } = await createPasswordAccount(`code_${name.replace("-", "_")}`);
      // A code mailed before the ban, or before two-step sign-in was turned on.
      await requestSignInCode({ channel: "email", to: email, headers: requestHeaders() });
      const earlier = codeIn((await mailTo(email)).match(/Subject: (.*)/)?.[1] ?? "");
      await testDb.db.update(user).set(change).where(eq(user.id, id));
      const wrong = await signInWithCode({
        channel: "email",
        to: email,
        code: earlier === "000000" ? "111111" : "000000",
        headers: requestHeaders(),
      });
      expect(wrong).toMatchObject({ ok: false, kind: "invalid", code: "invalid_code" });
      const right = await signInWithCode({
        channel: "email",
        to: email,
        code: earlier,
        headers: requestHeaders(),
      });
      expect(right).toMatchObject({ ok: false, kind: "forbidden", code });
      expect(await testDb.db.select().from(session).where(eq(session.userId, id))).toEqual([]);
      // From now on such an account is sent no code at all (the answer stays the same).
      sink.received.length = 0;
      const asked = await requestSignInCode({
        channel: "email",
        to: email,
        headers: requestHeaders(),
      });
      expect(asked.ok).toBe(true);
      await settleAfterResponse();
      expect(sink.received).toHaveLength(0);
    },
  );

  it("answers an unknown address exactly like a known one, and sends nothing", async () => {
    const result = await requestSignInCode({
      channel: "email",
      to: "nobody@example.org",
      headers: requestHeaders(),
    });
    expect(result.ok).toBe(true);
    await settleAfterResponse();
    expect(sink.received).toHaveLength(0);
  });
});

describe("phone sign-up and SMS codes", () => {
  it("signs up with a phone number, confirmed by a texted code, then signs in with the password", async () => {
    const phone = "+4915100000001";
    const started = await signUpWithPhone({
      phone,
      password: PASSWORD,
      username: "phone_person",
      displayName: "Phone Person",
      headers: requestHeaders(),
    });
    expect(started.ok).toBe(true);
    expect(sms).toHaveLength(1);
    await settleAfterResponse();
    const code = codeIn(sms[0]!.body);
    const pending = await testDb.db.select({ value: verification.value }).from(verification);
    expect(pending.map((r) => r.value).join()).not.toContain(code);

    const wrong = await confirmPhoneSignUp({ phone, code: "000000", headers: requestHeaders() });
    expect(wrong.ok).toBe(false);
    const confirmed = await confirmPhoneSignUp({ phone, code, headers: requestHeaders() });
    expect(confirmed.ok).toBe(true);
    const { viewer } = await getViewerFromHeaders(
      requestHeaders(cookieHeader(confirmed.ok ? confirmed.headers : new Headers())),
    );
    expect(viewer).toMatchObject({ username: "phone_person", displayName: "Phone Person" });
    const [profile] = await testDb.db
      .select()
      .from(profiles)
      .where(eq(profiles.username, "phone_person"));
    expect(profile!.email).toBeNull();

    const signedIn = await signInWithEmail({
      phone,
      password: PASSWORD,
      headers: requestHeaders(),
    });
    expect(signedIn.ok).toBe(true);
  });

  it("answers a sign-up with a number that has an account like a new one, texting the owner", async () => {
    const phone = "+4915100000001";
    const result = await signUpWithPhone({
      phone,
      password: PASSWORD,
      username: "someone_else",
      displayName: "Someone",
      headers: requestHeaders(),
    });
    expect(result.ok).toBe(true);
    expect(sms[0]!.body).toContain("already has one");
  });

  it("signs in with a texted code; five wrong tries end the code", async () => {
    const phone = "+4915100000001";
    await requestSignInCode({ channel: "sms", to: phone, headers: requestHeaders() });
    await settleAfterResponse();
    const code = codeIn(sms[0]!.body);
    for (let i = 0; i < 5; i++) {
      const wrong = await signInWithCode({
        channel: "sms",
        to: phone,
        code: "111111",
        headers: requestHeaders(),
      });
      expect(wrong.ok).toBe(false);
    }
    const tooLate = await signInWithCode({
      channel: "sms",
      to: phone,
      code,
      headers: requestHeaders(),
    });
    expect(tooLate.ok).toBe(false);

    await requestSignInCode({ channel: "sms", to: phone, headers: requestHeaders() });
    await settleAfterResponse();
    const fresh = codeIn(sms[1]!.body);
    expect(
      (await signInWithCode({ channel: "sms", to: phone, code: fresh, headers: requestHeaders() }))
        .ok,
    ).toBe(true);
  });

  it("texts nothing to a number without an account, with the same answer", async () => {
    const result = await requestSignInCode({
      channel: "sms",
      to: "+4915199999999",
      headers: requestHeaders(),
    });
    expect(result.ok).toBe(true);
    await settleAfterResponse();
    expect(sms).toHaveLength(0);
  });
});

describe("guests", () => {
  it("continues as a guest and later becomes a full account with the same id", async () => {
    const guest = await continueAsGuest({ headers: requestHeaders() });
    expect(guest.ok).toBe(true);
    const cookie = cookieHeader(guest.ok ? guest.headers : new Headers());
    const { viewer } = await getViewerFromHeaders(requestHeaders(cookie));
    expect(viewer?.isGuest).toBe(true);
    await testDb.db
      .update(profiles)
      .set({ bio: "guest's words" })
      .where(eq(profiles.userId, viewer?.id ?? ""));

    const upgraded = await upgradeGuest({
      userId: viewer?.id ?? "",
      email: "upgraded@example.org",
      password: PASSWORD,
      username: "upgraded",
      displayName: "Upgraded",
      headers: requestHeaders(cookie),
    });
    expect(upgraded.ok).toBe(true);
    const after = await getViewerFromHeaders(requestHeaders(cookie));
    expect(after.viewer).toMatchObject({ id: viewer?.id, isGuest: false, username: "upgraded" });
    const [profile] = await testDb.db
      .select()
      .from(profiles)
      .where(eq(profiles.userId, viewer?.id ?? ""));
    expect(profile).toMatchObject({ bio: "guest's words", email: "upgraded@example.org" });
    expect(await mailTo("upgraded@example.org")).toContain("/settings/confirm-email?token=");
  });
});

describe("password recovery", () => {
  it("mails a link; a weak password is refused; a strong one works and ends every session", async () => {
    const { email } = await createPasswordAccount("forgetful");
    const before = await signIn(email);
    await requestPasswordReset({ email, headers: requestHeaders() });
    const token = (await mailTo(email)).match(/reset-password\?token=([A-Za-z0-9_-]+)/)?.[1] ?? "";
    expect(token).not.toBe("");

    const weak = await resetPassword({ token, password: "password", headers: requestHeaders() });
    expect(weak).toMatchObject({ ok: false, code: "weak_password" });
    const done = await resetPassword({
      token,
      password: "Another-Strong-Pass-42",
      headers: requestHeaders(),
    });
    expect(done.ok).toBe(true);
    const old = await getViewerFromHeaders(requestHeaders(cookieHeader(before.headers)));
    expect(old.viewer).toBeNull();
    const again = await resetPassword({
      token,
      password: "Yet-Another-Pass-42",
      headers: requestHeaders(),
    });
    expect(again).toMatchObject({ ok: false, code: "invalid_link" });
    const signedIn = await signInWithEmail({
      email,
      password: "Another-Strong-Pass-42",
      headers: requestHeaders(),
    });
    expect(signedIn.ok).toBe(true);
  });

  it("answers an unknown address the same and mails nothing", async () => {
    const result = await requestPasswordReset({
      email: "ghost@example.org",
      headers: requestHeaders(),
    });
    expect(result.ok).toBe(true);
    await settleAfterResponse();
    expect(sink.received).toHaveLength(0);
  });
});

describe("two-factor sign-in (TOTP)", () => {
  let secret = "";
  let enrolmentCode = "";
  const totpAt = async (offsetSteps: number) => {
    const raw = new TextDecoder().decode(base32.decode(secret));
    return createOTP(raw).hotp(Math.floor(Date.now() / 30_000) + offsetSteps);
  };

  it("enrols with a QR code and text secret, returns 10 hashed backup codes and an aal2 session", async () => {
    const { email, id } = await createPasswordAccount("secure");
    const signedIn = await signIn(email);
    const cookie = cookieHeader(signedIn.headers);
    const started = await startTotpEnrollment({
      headers: requestHeaders(cookie),
      password: PASSWORD,
    });
    if (!started.ok) throw new Error(JSON.stringify(started));
    secret = started.secret;
    expect(started.uri).toMatch(/^otpauth:\/\/totp\/Soundtrail/);
    expect(started.qr.path.length).toBeGreaterThan(100);

    enrolmentCode = await totpAt(0);
    const confirmed = await confirmTotpEnrollment({
      userId: id,
      code: enrolmentCode,
      headers: requestHeaders(cookie),
    });
    if (!confirmed.ok) throw new Error(JSON.stringify(confirmed));
    expect(confirmed.backupCodes).toHaveLength(10);
    const [row] = await testDb.db
      .select({ codes: twoFactor.backupCodes })
      .from(twoFactor)
      .where(eq(twoFactor.userId, id));
    for (const code of confirmed.backupCodes) expect(row!.codes).not.toContain(code);
    const sessions = await testDb.db
      .select({ aal: session.aal })
      .from(session)
      .where(eq(session.userId, id));
    expect(sessions.map((s) => s.aal)).toContain("aal2");
    backupCodes = confirmed.backupCodes;
  });

  let backupCodes: string[] = [];

  it("asks for a code before any session cookie is set, and refuses a replayed code", async () => {
    const first = await signIn("secure@example.org");
    expect(first.needsSecondFactor).toBe(true);
    expect(hasSessionCookie(first.headers)).toBe(false);
    const challenge = cookieHeader(first.headers);
    // The enrolment code was accepted already: using it again is a replay.
    const replay = await verifySecondFactor({
      code: enrolmentCode,
      isBackupCode: false,
      headers: requestHeaders(challenge),
    });
    expect(replay).toMatchObject({ ok: false, message: REPLAYED_CODE });

    const second = await signIn("secure@example.org");
    const next = await verifySecondFactor({
      code: await totpAt(1),
      isBackupCode: false,
      headers: requestHeaders(cookieHeader(second.headers)),
    });
    expect(next.ok).toBe(true);
    expect(next.ok && hasSessionCookie(next.headers)).toBe(true);
    const { viewer } = await getViewerFromHeaders(
      requestHeaders(cookieHeader(next.ok ? next.headers : new Headers())),
    );
    expect(viewer?.username).toBe("secure");
  });

  it("ends the challenge after five wrong codes", async () => {
    const attempt = await signIn("secure@example.org");
    const challenge = cookieHeader(attempt.headers);
    for (let i = 0; i < 5; i++) {
      const wrong = await verifySecondFactor({
        code: "000000",
        isBackupCode: false,
        headers: requestHeaders(challenge),
      });
      expect(wrong.ok).toBe(false);
    }
    const after = await verifySecondFactor({
      code: await totpAt(-1),
      isBackupCode: false,
      headers: requestHeaders(challenge),
    });
    expect(after).toMatchObject({ ok: false, message: CHALLENGE_OVER });
  });

  it("accepts each backup code once", async () => {
    const first = await signIn("secure@example.org");
    const ok = await verifySecondFactor({
      code: backupCodes[0]!,
      isBackupCode: true,
      headers: requestHeaders(cookieHeader(first.headers)),
    });
    expect(ok.ok).toBe(true);
    const second = await signIn("secure@example.org");
    const reused = await verifySecondFactor({
      code: backupCodes[0]!,
      isBackupCode: true,
      headers: requestHeaders(cookieHeader(second.headers)),
    });
    expect(reused.ok).toBe(false);
  });

  it("changes the password with two-step sign-in on, keeping this session at aal2", async () => {
    const first = await signIn("secure@example.org");
    const here = await verifySecondFactor({
      code: backupCodes[3]!,
      isBackupCode: true,
      headers: requestHeaders(cookieHeader(first.headers)),
    });
    if (!here.ok) throw new Error("no aal2 session");
    const elsewhere = await signIn("secure@example.org");
    const other = await verifySecondFactor({
      code: backupCodes[4]!,
      isBackupCode: true,
      headers: requestHeaders(cookieHeader(elsewhere.headers)),
    });
    if (!other.ok) throw new Error("no second session");
    const changed = await changePassword({
      headers: requestHeaders(cookieHeader(here.headers)),
      currentPassword: PASSWORD,
      newPassword: "Temporary-Lodger-1974",
    });
    expect(changed).toMatchObject({ ok: true });
    const cookie = cookieHeader(changed.ok ? changed.headers : new Headers());
    const { viewer } = await getViewerFromHeaders(requestHeaders(cookie));
    expect(viewer?.username).toBe("secure");
    const levels = await testDb.db
      .select({ aal: session.aal, method: session.authMethod })
      .from(session)
      .where(eq(session.userId, "acct-secure"));
    // The other device is signed out; this one stays, still aal2.
    expect(levels).toEqual([{ aal: "aal2", method: "backup-code" }]);
    expect(
      (await getViewerFromHeaders(requestHeaders(cookieHeader(other.headers)))).viewer,
    ).toBeNull();
    // And back, for the tests below, this time keeping the other devices signed in.
    const again = await signIn("secure@example.org", "Temporary-Lodger-1974");
    const kept = await verifySecondFactor({
      code: backupCodes[5]!,
      isBackupCode: true,
      headers: requestHeaders(cookieHeader(again.headers)),
    });
    if (!kept.ok) throw new Error("no second session");
    const back = await changePassword({
      headers: requestHeaders(cookie),
      currentPassword: "Temporary-Lodger-1974",
      newPassword: PASSWORD,
      signOutOthers: false,
    });
    expect(back).toMatchObject({ ok: true });
    expect(
      (await getViewerFromHeaders(requestHeaders(cookieHeader(kept.headers)))).viewer?.username,
    ).toBe("secure");
  });

  it("turns off only from an aal2 session, dropping the other sessions to aal1", async () => {
    const id = "acct-secure";
    const first = await signIn("secure@example.org");
    const aal2 = await verifySecondFactor({
      code: backupCodes[1]!,
      isBackupCode: true,
      headers: requestHeaders(cookieHeader(first.headers)),
    });
    if (!aal2.ok) throw new Error("no aal2 session");
    const other = await signIn("secure@example.org");
    const otherSession = await verifySecondFactor({
      code: backupCodes[2]!,
      isBackupCode: true,
      headers: requestHeaders(cookieHeader(other.headers)),
    });
    expect(otherSession.ok).toBe(true);
    // Make the first session look aal1 to check the refusal, then restore it.
    const token = cookieHeader(aal2.headers).match(/session_token=([^.;]+)/)?.[1] ?? "";
    await testDb.db.update(session).set({ aal: "aal1" }).where(eq(session.token, token));
    const refused = await disableTwoFactor({
      userId: id,
      password: PASSWORD,
      headers: requestHeaders(cookieHeader(aal2.headers)),
    });
    expect(refused.ok).toBe(false);
    await testDb.db.update(session).set({ aal: "aal2" }).where(eq(session.token, token));

    const done = await disableTwoFactor({
      userId: id,
      password: PASSWORD,
      headers: requestHeaders(cookieHeader(aal2.headers)),
    });
    expect(done).toMatchObject({ ok: true });
    const levels = await testDb.db
      .select({ aal: session.aal })
      .from(session)
      .where(eq(session.userId, id));
    expect(levels.every((s) => s.aal === "aal1")).toBe(true);
    const [owner] = await testDb.db
      .select({ on: user.twoFactorEnabled })
      .from(user)
      .where(eq(user.id, id));
    expect(owner?.on).toBe(false);
  });
});

describe("sessions and sensitive changes", () => {
  it("stops a banned person's sessions at once and refuses new sign-ins", async () => {
    const { email, id } = await createPasswordAccount("banned");
    const signedIn = await signIn(email);
    await testDb.db.update(user).set({ banned: true }).where(eq(user.id, id));
    const { viewer } = await getViewerFromHeaders(requestHeaders(cookieHeader(signedIn.headers)));
    expect(viewer).toBeNull();
    const again = await signInWithEmail({ email, password: PASSWORD, headers: requestHeaders() });
    expect(again.ok).toBe(false);
  });

  it("needs a sign-in younger than 10 minutes (or the password) to delete the account", async () => {
    const { email, id } = await createPasswordAccount("leaver");
    const signedIn = await signIn(email);
    const cookie = cookieHeader(signedIn.headers);
    await testDb.db
      .update(session)
      .set({ createdAt: new Date(Date.now() - 11 * 60 * 1000) })
      .where(eq(session.userId, id));
    const refused = await deleteAccount({ headers: requestHeaders(cookie) });
    expect(refused).toMatchObject({
      ok: false,
      code: "reauthentication_required",
      fieldErrors: { password: [REAUTH_PASSWORD] },
    });
    const done = await deleteAccount({ headers: requestHeaders(cookie), password: PASSWORD });
    expect(done.ok).toBe(true);
    expect(await testDb.db.select().from(user).where(eq(user.id, id))).toHaveLength(0);
  });

  it("changes the password with the current one, refusing weak ones, and signs out elsewhere", async () => {
    const { email, id } = await createPasswordAccount("changer");
    const here = await signIn(email);
    const elsewhere = await signIn(email);
    const weak = await changePassword({
      headers: requestHeaders(cookieHeader(here.headers)),
      currentPassword: PASSWORD,
      newPassword: "password1",
    });
    expect(weak).toMatchObject({ ok: false, code: "weak_password" });
    const done = await changePassword({
      headers: requestHeaders(cookieHeader(here.headers)),
      currentPassword: PASSWORD,
      newPassword: "Fresh-Start-2026!",
    });
    expect(done.ok).toBe(true);
    expect(
      (await getViewerFromHeaders(requestHeaders(cookieHeader(elsewhere.headers)))).viewer,
    ).toBeNull();
    const rows = await testDb.db
      .select()
      .from(session)
      .where(and(eq(session.userId, id)));
    expect(rows.length).toBeGreaterThanOrEqual(1);
  });

  it("records how each session signed in", async () => {
    const rows = await testDb.db.select({ method: session.authMethod }).from(session);
    expect(rows.map((r) => r.method)).toEqual(
      expect.arrayContaining(["password", "email-code", "sms-code", "guest", "backup-code"]),
    );
  });
});

describe("OAuth", () => {
  it("sends a configured provider's button to its authorisation page with a state cookie", async () => {
    const result = await startOAuth({
      provider: "github",
      redirectTo: "/feed",
      headers: requestHeaders(),
    });
    if (!result.ok) throw new Error(JSON.stringify(result));
    const url = new URL(result.url);
    expect(url.host).toBe("github.com");
    expect(url.searchParams.get("client_id")).toBe("vitest-github-client");
    expect(result.headers.getSetCookie().join()).toContain("state");
  });

  it("a callback without its state cookie lands on sign-in with a clear message, not a 404", async () => {
    const response = (await callbackLoader({
      request: new Request("http://localhost:3000/api/auth/callback/github?code=abc&state=forged"),
      params: { provider: "github" },
      context: {},
    } as unknown as Parameters<typeof callbackLoader>[0])) as Response;
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("Location") ?? "", "http://localhost:3000");
    expect(location.pathname).toBe("/auth/login");
    const page = await loginLoader({
      request: new Request(location),
    } as unknown as Parameters<typeof loginLoader>[0]);
    expect(page.problem).toBe(
      "That sign-in attempt expired or was started in another browser. Please try again.",
    );
  });

  it("counts callbacks in the app's one rate limiter: past it, sign-in says to wait", async () => {
    const callback = (ip: string) =>
      callbackLoader({
        request: new Request("http://localhost:3000/api/auth/callback/github?code=a&state=b", {
          headers: { [CLIENT_IP_HEADER]: ip },
        }),
        params: { provider: "github" },
        context: {},
      } as unknown as Parameters<typeof callbackLoader>[0]) as Promise<Response>;
    const { limit } = AUTH_LIMITS.oauthCallbackPerAddress;
    for (let i = 0; i < limit; i++) {
      const response = await callback("203.0.113.77");
      expect(response.headers.get("Location")).not.toContain("rate_limited");
    }
    const limited = await callback("203.0.113.77");
    expect(limited.status).toBe(302);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    const location = new URL(limited.headers.get("Location") ?? "", "http://localhost:3000");
    const page = await loginLoader({
      request: new Request(location),
    } as unknown as Parameters<typeof loginLoader>[0]);
    expect(page.problem).toBe(
      "Too many sign-in attempts from here. Please wait a minute and try again.",
    );
    // Another address has its own budget; better-auth keeps no table of its own any more.
    expect((await callback("203.0.113.78")).headers.get("Location")).not.toContain("rate_limited");
    const tables = await testDb.db.execute(
      sql`select count(*)::int as n from pg_tables where tablename = 'rate_limit'`,
    );
    expect((tables as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
  });

  it("refuses a provider that is not configured", async () => {
    const result = await startOAuth({
      provider: "spotify",
      redirectTo: "/feed",
      headers: requestHeaders(),
    });
    expect(result.ok).toBe(false);
  });
});

describe("the cost of knowing who is asking", () => {
  it("resolves a signed-in viewer in at most 2 statements, a signed-out one in none", async () => {
    const { email } = await createPasswordAccount("counted");
    const signedIn = await signIn(email);
    const cookie = cookieHeader(signedIn.headers);
    const withSession = await countStatements(() => getViewerFromHeaders(requestHeaders(cookie)));
    expect(withSession.result.viewer?.username).toBe("counted");
    expect(withSession.statements).toBeLessThanOrEqual(2);
    const anonymous = await countStatements(() => getViewerFromHeaders(requestHeaders()));
    expect(anonymous.statements).toBe(0);
  });
});

describe("reset and code requests do not reveal whether an account exists", () => {
  /**
   * The request itself (what happens before its answer), counted, and what it deferred —
   * started only when `flush` is called, as the server does once the answer is written.
   */
  async function answerOnly(request: () => Promise<unknown>) {
    const { result, statements } = await countStatements(() => collectAfterResponse(request));
    return { statements, flush: result.flush };
  }

  it.each([
    [
      "password reset",
      (email: string) => requestPasswordReset({ email, headers: requestHeaders() }),
      /Reset your Soundtrail password/,
    ],
    [
      "sign-in code",
      (to: string) => requestSignInCode({ channel: "email", to, headers: requestHeaders() }),
      /is your Soundtrail code/,
    ],
  ])(
    "%s: the same statements before the answer either way; the mail is written after it",
    async (_name, ask, subject) => {
      const { email } = await createPasswordAccount(`timing_${subject.source.length}`);
      const tokens = async () => (await testDb.db.select().from(verification)).length;
      const tokensBefore = await tokens();
      const known = await answerOnly(() => ask(email));
      const unknown = await answerOnly(() => ask(`nobody_${subject.source.length}@example.org`));
      expect(known.statements).toBe(unknown.statements);
      // Nothing about the account was read or written yet: no mail, no token.
      await settleAfterResponse();
      expect(sink.received).toHaveLength(0);
      expect(await tokens()).toBe(tokensBefore);

      // After the answer: the mail goes to the known address only.
      known.flush();
      unknown.flush();
      await settleAfterResponse();
      expect(sink.received.map((m) => m.to[0])).toEqual([email]);
      expect(sink.received[0]?.subject).toMatch(subject);
    },
  );
});
