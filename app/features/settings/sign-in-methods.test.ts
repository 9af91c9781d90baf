import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDatabase } from "~/db/client.server";
import { account, profiles, session, user } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import {
  hashPassword,
  PLACEHOLDER_EMAIL_DOMAIN,
  REAUTH_PASSWORD,
  resetAuth,
  signInWithEmail,
} from "~/features/auth/index.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import {
  LAST_WAY_IN,
  listSignInMethods,
  METHOD_NOT_FOUND,
  startLinkOAuth,
  unlinkSignInMethod,
} from "./sign-in-methods.server";

const PASSWORD = "Blue-Monday-1983";
let testDb: TestDatabase;
let ipCounter = 0;

function requestHeaders(cookie?: string) {
  ipCounter++;
  const headers = new Headers({ [CLIENT_IP_HEADER]: `10.9.0.${ipCounter % 250}` });
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

async function createPerson(
  name: string,
  options: { email?: string; password?: boolean; links?: string[] },
) {
  const id = `acct-${name}`;
  const email = options.email ?? `${name}@example.org`;
  await testDb.db.insert(user).values({ id, name, email, emailVerified: true, username: name });
  await testDb.db.insert(profiles).values({ userId: id, email, displayName: name, username: name });
  if (options.password) {
    await testDb.db.insert(account).values({
      id: `cred-${name}`,
      userId: id,
      providerId: "credential",
      accountId: id,
      password: await hashPassword(PASSWORD),
    });
  }
  for (const provider of options.links ?? []) {
    await testDb.db.insert(account).values({
      id: `${provider}-${name}`,
      userId: id,
      providerId: provider,
      accountId: `${provider}-account-of-${name}`,
    });
  }
  return { id, email };
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

describe("linked sign-in methods", () => {
  it("never unlinks the last way in", async () => {
    const only = await createPerson("onlygoogle", {
      email: `oauth-1@${PLACEHOLDER_EMAIL_DOMAIN}`,
      links: ["google"],
    });
    const { methods } = await listSignInMethods({ userId: only.id });
    expect(methods).toEqual([
      expect.objectContaining({ id: "google-onlygoogle", label: "Google", canUnlink: false }),
    ]);
    const refused = await unlinkSignInMethod({
      userId: only.id,
      methodId: "google-onlygoogle",
      headers: requestHeaders(),
    });
    expect(refused).toMatchObject({ ok: false, kind: "conflict", message: LAST_WAY_IN });
    const left = await testDb.db
      .select({ id: account.id })
      .from(account)
      .where(eq(account.userId, only.id));
    expect(left).toHaveLength(1);
  });

  it("lists password, e-mail code and links; unlinks one after a recent sign-in, only one's own", async () => {
    const ana = await createPerson("analinks", { password: true, links: ["github", "spotify"] });
    const ben = await createPerson("benlinks", { password: true, links: ["github"] });
    const { methods, linkable } = await listSignInMethods({ userId: ana.id });
    expect(methods.map((m) => [m.kind, m.label, m.canUnlink])).toEqual([
      ["password", "Password", false],
      ["email-code", "Code by e-mail", false],
      ["oauth", "GitHub", true],
      ["oauth", "Spotify", true],
    ]);
    expect(methods.find((m) => m.kind === "email-code")?.detail).toBe(ana.email);
    // No provider is configured in tests: nothing to link, and linking is refused.
    expect(linkable).toEqual([]);
    expect(await startLinkOAuth({ provider: "google", headers: requestHeaders() })).toMatchObject({
      ok: false,
      kind: "invalid",
    });

    const signedIn = await signInWithEmail({
      email: ana.email,
      password: PASSWORD,
      headers: requestHeaders(),
    });
    if (!signedIn.ok) throw new Error(JSON.stringify(signedIn));
    const cookie = cookieHeader(signedIn.headers);

    // Someone else's link is not found, and stays.
    expect(
      await unlinkSignInMethod({
        userId: ana.id,
        methodId: "github-benlinks",
        headers: requestHeaders(cookie),
      }),
    ).toMatchObject({ ok: false, message: METHOD_NOT_FOUND });
    expect((await listSignInMethods({ userId: ben.id })).methods).toHaveLength(3);

    // A stale session asks for the password first.
    await testDb.db
      .update(session)
      .set({ createdAt: new Date(Date.now() - 60 * 60 * 1000) })
      .where(eq(session.userId, ana.id));
    expect(
      await unlinkSignInMethod({
        userId: ana.id,
        methodId: "github-analinks",
        headers: requestHeaders(cookie),
      }),
    ).toMatchObject({ ok: false, fieldErrors: { password: [REAUTH_PASSWORD] } });

    const done = await unlinkSignInMethod({
      userId: ana.id,
      methodId: "github-analinks",
      headers: requestHeaders(cookie),
      password: PASSWORD,
    });
    expect(done).toEqual({ ok: true, label: "GitHub" });
    expect((await listSignInMethods({ userId: ana.id })).methods.map((m) => m.label)).toEqual([
      "Password",
      "Code by e-mail",
      "Spotify",
    ]);
  });
});
