import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setDatabase } from "~/db/client.server";
import { profiles, session, user } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { createMailTransport, setMailTransport } from "~/features/mail/index.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { startSmtpSink } from "../../../tests/support/smtp-sink";
import {
  confirmEmail,
  getViewerFromHeaders,
  INVALID_CREDENTIALS,
  signInWithEmail,
  signOut,
  signUpWithEmail,
} from "./accounts.server";
import { resetAuth } from "./better-auth.server";
import { hashParams, hashPassword, SCRYPT_PARAMS, verifyPassword } from "./password.server";
import { weakPasswordReasons } from "./password-policy.server";
import { assertRecentAuth } from "./reauth.server";

let testDb: TestDatabase;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let ipCounter = 0;

/** Each test gets its own client address so rate limits of one test do not leak into another. */
function requestHeaders(extra: Record<string, string> = {}) {
  ipCounter++;
  return new Headers({
    [CLIENT_IP_HEADER]: `10.1.${Math.floor(ipCounter / 250)}.${ipCounter % 250}`,
    ...extra,
  });
}

function cookieHeader(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

function linkFrom(raw: string): string {
  const unfolded = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = unfolded.match(/http:\/\/localhost:3000\/auth\/confirm\?token=[A-Za-z0-9._%-]+/);
  if (!match) throw new Error(`no confirmation link in mail:\n${raw}`);
  return match[0];
}

// Every test makes the accounts it uses (any test passes alone and in any order).

/** An account signed up but not confirmed yet. */
async function signUp(email: string, username: string, displayName = "New Order Fan") {
  const result = await signUpWithEmail({
    email,
    password: "Blue-Monday-1983",
    username,
    displayName,
    headers: requestHeaders(),
  });
  expect(result.ok).toBe(true);
  return result;
}

/** A confirmed account with the password Blue-Monday-1983, and the session of its confirmation. */
async function signUpAndConfirm(email: string, username: string) {
  await signUp(email, username);
  const mail = sink.received.find((m) => m.to.includes(email));
  const token = new URL(linkFrom(mail?.raw ?? "")).searchParams.get("token") ?? "";
  const confirmed = await confirmEmail({ token, headers: requestHeaders() });
  expect(confirmed.ok).toBe(true);
  return confirmed;
}

beforeAll(async () => {
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

describe("passwords", () => {
  it("hashes with scrypt at OWASP parameters and verifies", async () => {
    // Production's cost whatever the environment says, unless it is the unit tests'.
    // One of the OWASP cheat sheet's rows it calls equally strong (N=2^14, r=8, p=5).
    const OWASP_ROWS = [
      { logN: 17, r: 8, p: 1 },
      { logN: 16, r: 8, p: 2 },
      { logN: 15, r: 8, p: 3 },
      { logN: 14, r: 8, p: 5 },
      { logN: 13, r: 8, p: 10 },
    ];
    expect(SCRYPT_PARAMS).toEqual({ logN: 14, r: 8, p: 5 });
    expect(OWASP_ROWS).toContainEqual(SCRYPT_PARAMS);
    for (const NODE_ENV of ["production", "development"] as const) {
      expect(hashParams({ NODE_ENV, TEST_PASSWORD_HASH_LOG_N: 10 })).toBe(SCRYPT_PARAMS);
    }
    expect(hashParams({ NODE_ENV: "test", TEST_PASSWORD_HASH_LOG_N: undefined })).toBe(
      SCRYPT_PARAMS,
    );
    expect(hashParams({ NODE_ENV: "test", TEST_PASSWORD_HASH_LOG_N: 12 }).logN).toBe(12);
    const hash = await hashPassword("Blue-Monday-1983");
    // These suites hash cheaply (vitest.config.ts): the recorded cost is what verifying uses.
    expect(hash).toMatch(/^scrypt\$12\$8\$1\$/);
    expect(await verifyPassword({ hash, password: "Blue-Monday-1983" })).toBe(true);
    expect(await verifyPassword({ hash, password: "blue-monday-1983" })).toBe(false);
  });

  it.each([
    ["short1A", ["length"]],
    ["alllowercaseletters", ["characters"]],
    ["password123", ["pwned"]],
    ["qwerty", ["length", "characters", "pwned"]],
    ["Blue-Monday-1983", []],
  ])("judges %s as %o", (password, reasons) => {
    expect(weakPasswordReasons(password)).toEqual(reasons);
  });

  it("refuses a password equal to the person's own username", () => {
    expect(weakPasswordReasons("joy.division77", ["joy.division77"])).toContain("pwned");
  });
});

describe("sign-up, confirmation and sign-in", () => {
  it("refuses a weak password with weak_password and its reasons, creating nothing", async () => {
    const result = await signUpWithEmail({
      email: "weak@example.org",
      password: "password",
      username: "weakling",
      displayName: "Weak",
      headers: requestHeaders(),
    });
    expect(result).toMatchObject({
      ok: false,
      code: "weak_password",
      reasons: ["length", "characters", "pwned"],
    });
    expect(await testDb.db.select().from(user).where(eq(user.email, "weak@example.org"))).toEqual(
      [],
    );
    expect(sink.received).toHaveLength(0);
  });

  it("creates the account and its profile, and mails a confirmation link", async () => {
    const result = await signUpWithEmail({
      email: "ana@example.org",
      password: "Blue-Monday-1983",
      username: "Ana.Listens",
      displayName: "Ana",
      headers: requestHeaders(),
    });
    expect(result.ok).toBe(true);
    const [profile] = await testDb.db
      .select()
      .from(profiles)
      .innerJoin(user, eq(user.id, profiles.userId))
      .where(eq(user.email, "ana@example.org"));
    expect(profile?.profiles).toMatchObject({
      username: "Ana.Listens",
      displayName: "Ana",
      roles: [],
    });
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]?.subject).toBe("Confirm your e-mail for Soundtrail");
    expect(linkFrom(sink.received[0]?.raw ?? "")).toContain("/auth/confirm?token=");
  });

  it("cannot sign in before confirming", async () => {
    await signUp("ari@example.org", "ari_unconfirmed");
    const result = await signInWithEmail({
      email: "ari@example.org",
      password: "Blue-Monday-1983",
      headers: requestHeaders(),
    });
    expect(result).toMatchObject({ ok: false, code: "email_not_verified" });
  });

  it("answers a sign-up for an existing address exactly like a new one, and warns its owner", async () => {
    await signUp("bea@example.org", "bea_first");
    sink.received.length = 0;
    const again = await signUpWithEmail({
      email: "bea@example.org",
      password: "Another-Strong-99",
      username: "someone_else",
      displayName: "Impostor",
      headers: requestHeaders(),
    });
    expect(again.ok).toBe(true);
    expect(sink.received.map((m) => m.subject)).toEqual([
      "Someone tried to create a Soundtrail account with your address",
    ]);
    expect(
      await testDb.db.select().from(profiles).where(eq(profiles.username, "someone_else")),
    ).toEqual([]);
  });

  it("refuses a username that is taken, whatever its case", async () => {
    await signUp("cam@example.org", "Cam.Listens");
    const result = await signUpWithEmail({
      email: "bo@example.org",
      password: "Blue-Monday-1983",
      username: "cam.listens",
      displayName: "Bo",
      headers: requestHeaders(),
    });
    expect(result).toMatchObject({ ok: false, code: "username_taken" });
  });

  it("answers a taken username the same whether or not the e-mail has an account", async () => {
    await signUp("dot@example.org", "Dot.Listens");
    const answers = [];
    for (const email of ["dot@example.org", "nobody-here@example.org"]) {
      answers.push(
        await signUpWithEmail({
          email,
          password: "Another-Strong-99",
          username: "DOT.listens",
          displayName: "Probe",
          headers: requestHeaders(),
        }),
      );
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toMatchObject({ ok: false, code: "username_taken" });
  });

  it("confirms through the link, signs in, and the session names the viewer", async () => {
    const confirmed = await signUpAndConfirm("cy@example.org", "cy_sounds");
    if (!confirmed.ok) throw new Error("not confirmed");
    const cookie = cookieHeader(confirmed.headers);
    expect(cookie).toContain("soundtrail.session_token=");
    const { viewer } = await getViewerFromHeaders(new Headers({ Cookie: cookie }));
    expect(viewer).toMatchObject({
      username: "cy_sounds",
      displayName: "New Order Fan",
      isAdmin: false,
    });
  });

  it("a used or forged link is refused with a clear message", async () => {
    const forged = await confirmEmail({ token: "not-a-real-token", headers: requestHeaders() });
    expect(forged).toMatchObject({ ok: false, code: "invalid_link" });
  });

  it("gives one generic answer for an unknown account and a wrong password", async () => {
    await signUpAndConfirm("dee@example.org", "dee_plays");
    const unknown = await signInWithEmail({
      email: "nobody@example.org",
      password: "Whatever-123",
      headers: requestHeaders(),
    });
    const wrong = await signInWithEmail({
      email: "dee@example.org",
      password: "Wrong-Password-1",
      headers: requestHeaders(),
    });
    expect(unknown).toEqual(wrong);
    expect(unknown).toMatchObject({
      ok: false,
      kind: "unauthenticated",
      message: INVALID_CREDENTIALS,
    });
  });

  it("signs in with the right password, and signing out ends the session", async () => {
    await signUpAndConfirm("eli@example.org", "eli_plays");
    const signedIn = await signInWithEmail({
      email: "eli@example.org",
      password: "Blue-Monday-1983",
      headers: requestHeaders(),
    });
    if (!signedIn.ok) throw new Error("sign-in failed");
    const cookie = cookieHeader(signedIn.headers);
    expect((await getViewerFromHeaders(new Headers({ Cookie: cookie }))).viewer?.username).toBe(
      "eli_plays",
    );
    await signOut({ headers: new Headers({ Cookie: cookie }) });
    expect((await getViewerFromHeaders(new Headers({ Cookie: cookie }))).viewer).toBeNull();
  });

  it("grants admin to a verified address listed in ADMIN_EMAILS", async () => {
    const confirmed = await signUpAndConfirm("admin@example.org", "the_admin");
    if (!confirmed.ok) throw new Error("not confirmed");
    const { viewer } = await getViewerFromHeaders(
      new Headers({ Cookie: cookieHeader(confirmed.headers) }),
    );
    expect(viewer?.isAdmin).toBe(true);
  });

  it("throttles password guessing from one address with 429 and a human message", async () => {
    await signUpAndConfirm("fay@example.org", "fay_plays");
    const headers = requestHeaders();
    const results = [];
    for (let i = 0; i < 12; i++) {
      results.push(
        await signInWithEmail({ email: "fay@example.org", password: `Guess-${i}-xx`, headers }),
      );
    }
    const limited = results.find((r) => !r.ok && r.kind === "rate_limited");
    expect(limited).toMatchObject({ code: "rate_limited" });
    expect(limited && !limited.ok && limited.message).toMatch(/Too many attempts/);
    // A dozen scrypt checks in a row: give a busy machine room.
  }, 120_000);
});

describe("per-account throttling", () => {
  /** A confirmed account and the device cookie its owner got by signing in once. */
  async function ownerWithDevice(email: string, username: string) {
    await signUpAndConfirm(email, username);
    const result = await signInWithEmail({
      email,
      password: "Blue-Monday-1983",
      headers: requestHeaders(),
    });
    if (!result.ok) throw new Error(JSON.stringify(result));
    const cookie = result.headers.getSetCookie().find((c) => c.startsWith("st_device="));
    return { cookie, device: cookie?.split(";")[0] ?? "" };
  }

  /** Wrong passwords for `email` from a new address each time, until its budget of 20 is spent. */
  async function guess(email: string, times: number) {
    const results = [];
    for (let i = 0; i < times; i++) {
      // a new client address every time: only the per-account budget can stop this
      results.push(
        await signInWithEmail({ email, password: `Guess-${i}-yy`, headers: requestHeaders() }),
      );
    }
    return results;
  }

  it("gives a device that signs in a device cookie", async () => {
    const { cookie } = await ownerWithDevice("gus@example.org", "gus_plays");
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
  });

  it("throttles guessing one account's password from many addresses", async () => {
    await ownerWithDevice("hal@example.org", "hal_plays");
    const results = await guess("hal@example.org", 22);
    // The budget of 20 counts the device's sign-in above too.
    expect(results.slice(0, 19).every((r) => !r.ok && r.kind === "unauthenticated")).toBe(true);
    expect(results[21]).toMatchObject({ ok: false, kind: "rate_limited", code: "rate_limited" });
    // 20 scrypt checks at OWASP cost, one after another: on two busy cores that can pass 30 s.
  }, 120_000);

  it("still lets the owner in from a device that signed in before (no lockout by guessers)", async () => {
    const { device } = await ownerWithDevice("ida@example.org", "ida_plays");
    await guess("ida@example.org", 22);
    const fromStranger = await signInWithEmail({
      email: "ida@example.org",
      password: "Blue-Monday-1983",
      headers: requestHeaders(),
    });
    expect(fromStranger).toMatchObject({ ok: false, kind: "rate_limited" });
    const fromOwner = await signInWithEmail({
      email: "ida@example.org",
      password: "Blue-Monday-1983",
      headers: requestHeaders({ Cookie: device }),
    });
    expect(fromOwner.ok).toBe(true);
    // A cookie for another account, or a forged one, counts for nothing.
    for (const cookie of [device.replace(/.$/, "x"), "st_device=a.b.c"]) {
      const forged = await signInWithEmail({
        email: "ida@example.org",
        password: "Blue-Monday-1983",
        headers: requestHeaders({ Cookie: cookie }),
      });
      expect(forged).toMatchObject({ ok: false, kind: "rate_limited" });
    }
  }, 120_000);

  it("throttles password re-checks in settings too", async () => {
    const { device } = await ownerWithDevice("jo@example.org", "jo_plays");
    const signedIn = await signInWithEmail({
      email: "jo@example.org",
      password: "Blue-Monday-1983",
      headers: requestHeaders({ Cookie: device }),
    });
    if (!signedIn.ok) throw new Error(JSON.stringify(signedIn));
    const cookie = cookieHeader(signedIn.headers);
    // An hour-old session: changes need the password again.
    const [jo] = await testDb.db
      .select({ id: user.id })
      .from(user)
      .where(eq(user.email, "jo@example.org"));
    await testDb.db
      .update(session)
      .set({ createdAt: new Date(Date.now() - 3_600_000) })
      .where(eq(session.userId, jo?.id ?? ""));
    const answers = [];
    for (let i = 0; i < 11; i++) {
      answers.push(
        await assertRecentAuth({
          headers: requestHeaders({ Cookie: cookie }),
          password: `Wrong-${i}-guess`,
          requireAal2: false,
        }),
      );
    }
    expect(answers.slice(0, 10).every((a) => !a.ok && a.kind === "forbidden")).toBe(true);
    expect(answers.at(-1)).toMatchObject({ ok: false, kind: "rate_limited", code: "rate_limited" });
  }, 120_000);
});

describe("admin role from the command line", () => {
  it("grants and revokes admin by e-mail, and says when there is no such account", async () => {
    const { setAdminRole } = await import("./admin-role.server");
    await signUpAndConfirm("kit@example.org", "kit_plays");
    expect(await setAdminRole({ email: "Kit@Example.org", isAdmin: true })).toBe("granted");
    expect(await setAdminRole({ email: "kit@example.org", isAdmin: true })).toBe("unchanged");
    const [row] = await testDb.db
      .select({ roles: profiles.roles })
      .from(profiles)
      .where(eq(profiles.username, "kit_plays"));
    expect(row?.roles).toEqual(["admin"]);
    expect(await setAdminRole({ email: "kit@example.org", isAdmin: false })).toBe("revoked");
    expect(await setAdminRole({ email: "ghost@example.org", isAdmin: true })).toBe(
      "no-such-account",
    );
  });
});
