import { base32 } from "@better-auth/utils/base32";
import { createOTP } from "@better-auth/utils/otp";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDatabase } from "~/db/client.server";
import { account, profiles, session, user } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import {
  confirmTotpEnrollment,
  hashPassword,
  REAUTH_CODE,
  REAUTH_PASSWORD,
  regenerateBackupCodesWithReauth,
  resetAuth,
  signInWithEmail,
  startTotpEnrollment,
  TWO_FACTOR_OFF,
  verifySecondFactor,
} from "~/features/auth/index.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";

const PASSWORD = "Blue-Monday-1983";
let testDb: TestDatabase;
let ipCounter = 0;

function requestHeaders(cookie?: string) {
  ipCounter++;
  const headers = new Headers({ [CLIENT_IP_HEADER]: `10.7.0.${ipCounter % 250}` });
  if (cookie) headers.set("Cookie", cookie);
  return headers;
}

function cookieHeader(headers: Headers): string {
  return headers
    .getSetCookie()
    .filter((c) => !/max-age=0/i.test(c))
    .map((c) => c.split(";")[0])
    .join("; ");
}

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

async function signIn(email: string) {
  const result = await signInWithEmail({ email, password: PASSWORD, headers: requestHeaders() });
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result;
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  setDatabase(testDb);
  resetAuth();
});

afterAll(async () => {
  resetAuth();
  setDatabase(undefined);
  await testDb.destroy();
});

describe("backup codes in settings", () => {
  it("are refused while two-step sign-in is off", async () => {
    const { id, email } = await createPasswordAccount("nocodes");
    const signedIn = await signIn(email);
    const result = await regenerateBackupCodesWithReauth({
      userId: id,
      headers: requestHeaders(cookieHeader(signedIn.headers)),
    });
    expect(result).toMatchObject({ ok: false, kind: "invalid", message: TWO_FACTOR_OFF });
  });

  it("regenerate only after a fresh sign-in at aal2; the old codes stop working, the new ones work once", async () => {
    const { id, email } = await createPasswordAccount("regen");
    const signedIn = await signIn(email);
    const cookie = cookieHeader(signedIn.headers);
    const started = await startTotpEnrollment({
      headers: requestHeaders(cookie),
      password: PASSWORD,
    });
    if (!started.ok) throw new Error(JSON.stringify(started));
    const raw = new TextDecoder().decode(base32.decode(started.secret));
    const confirmed = await confirmTotpEnrollment({
      userId: id,
      code: await createOTP(raw).hotp(Math.floor(Date.now() / 30_000)),
      headers: requestHeaders(cookie),
    });
    if (!confirmed.ok) throw new Error(JSON.stringify(confirmed));
    const oldCodes = confirmed.backupCodes;
    const aal2 = cookieHeader(confirmed.headers);

    // A session signed in long ago must give the password again first; a wrong one is refused.
    const sessions = await testDb.db
      .select({ id: session.id, aal: session.aal })
      .from(session)
      .where(eq(session.userId, id));
    const aal2Session = sessions.find((s) => s.aal === "aal2");
    expect(aal2Session).toBeDefined();
    await testDb.db
      .update(session)
      .set({ createdAt: new Date(Date.now() - 60 * 60 * 1000) })
      .where(eq(session.id, aal2Session?.id ?? ""));
    const stale = await regenerateBackupCodesWithReauth({
      userId: id,
      headers: requestHeaders(aal2),
    });
    expect(stale).toMatchObject({
      ok: false,
      kind: "forbidden",
      fieldErrors: { password: [REAUTH_PASSWORD] },
      needs: ["password"],
    });
    const wrong = await regenerateBackupCodesWithReauth({
      userId: id,
      headers: requestHeaders(aal2),
      password: "not-the-password",
    });
    expect(wrong).toMatchObject({
      ok: false,
      fieldErrors: { password: ["That password is not right."] },
    });

    // An aal1 session (two-step sign-in on, no code given for it) must give a code.
    await testDb.db
      .update(session)
      .set({ aal: "aal1", createdAt: new Date() })
      .where(eq(session.id, aal2Session?.id ?? ""));
    const aal1 = await regenerateBackupCodesWithReauth({
      userId: id,
      headers: requestHeaders(aal2),
    });
    expect(aal1).toMatchObject({
      ok: false,
      fieldErrors: { code: [REAUTH_CODE] },
      needs: ["code"],
    });
    await testDb.db
      .update(session)
      .set({ aal: "aal2" })
      .where(eq(session.id, aal2Session?.id ?? ""));

    // Fresh and aal2: new codes, shown once, none of them an old one.
    const fresh = await regenerateBackupCodesWithReauth({
      userId: id,
      headers: requestHeaders(aal2),
    });
    if (!fresh.ok) throw new Error(JSON.stringify(fresh));
    expect(fresh.backupCodes).toHaveLength(10);
    expect(new Set(fresh.backupCodes).size).toBe(10);
    expect(fresh.backupCodes.some((code) => oldCodes.includes(code))).toBe(false);

    // An old code no longer signs in; a new one does, once.
    const withOld = await signIn(email);
    expect(
      await verifySecondFactor({
        code: oldCodes[0] ?? "",
        isBackupCode: true,
        headers: requestHeaders(cookieHeader(withOld.headers)),
      }),
    ).toMatchObject({ ok: false });
    const withNew = await signIn(email);
    const newCode = fresh.backupCodes[0] ?? "";
    expect(
      (
        await verifySecondFactor({
          code: newCode,
          isBackupCode: true,
          headers: requestHeaders(cookieHeader(withNew.headers)),
        })
      ).ok,
    ).toBe(true);
    const again = await signIn(email);
    expect(
      (
        await verifySecondFactor({
          code: newCode,
          isBackupCode: true,
          headers: requestHeaders(cookieHeader(again.headers)),
        })
      ).ok,
    ).toBe(false);
  });
});
