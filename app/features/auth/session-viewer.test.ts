import { createHmac, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { blocks, session, user } from "~/db/schema";
import { followUser } from "~/features/follows/index.server";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { getViewerFromHeaders, loadViewer } from "./accounts.server";
import { getAuth, SESSION_MAX_AGE_S } from "./better-auth.server";
import {
  parseCookieHeader,
  sessionViewerFromCookies,
  verifiedToken,
} from "./session-viewer.server";

withTestDatabase();

const DAY_MS = 24 * 60 * 60 * 1000;

/** A session row as better-auth writes it, and its cookie signed as better-call signs it. */
async function sessionFor(
  person: TestUser,
  options: { expiresAt?: Date; updatedAt?: Date } = {},
): Promise<{ id: string; token: string; cookie: string }> {
  const context = await getAuth().$context;
  const token = randomBytes(24).toString("base64url");
  const id = randomBytes(16).toString("hex");
  const now = new Date();
  await getDb()
    .insert(session)
    .values({
      id,
      token,
      userId: person.id,
      expiresAt: options.expiresAt ?? new Date(now.getTime() + SESSION_MAX_AGE_S * 1000),
      createdAt: now,
      updatedAt: options.updatedAt ?? now,
    });
  const signature = createHmac("sha256", context.secret).update(token).digest("base64");
  const name = context.authCookies.sessionToken.name;
  return { id, token, cookie: `${name}=${encodeURIComponent(`${token}.${signature}`)}` };
}

/** What the request would have answered before: better-auth's getSession, then loadViewer. */
async function throughBetterAuth(cookie: string) {
  const response = await getAuth().api.getSession({ headers: new Headers({ cookie }) });
  if (!response) return { viewer: null, sessionId: null };
  return { viewer: await loadViewer(response.user.id), sessionId: response.session.id };
}

let ana: TestUser;
let others: TestUser[];

beforeAll(async () => {
  ana = await createTestUser({ username: "ana_fast", displayName: null });
  others = [await createTestUser(), await createTestUser(), await createTestUser()];
  // Three follow notifications; one actor blocked by Ana, one who blocked her: one counts.
  for (const other of others) await followUser({ viewerId: other.id, targetId: ana.id });
  await getDb()
    .insert(blocks)
    .values([
      { blockerId: ana.id, blockedId: others[0]!.id },
      { blockerId: others[1]!.id, blockedId: ana.id },
    ]);
});

describe("the session's viewer in one statement", () => {
  it("answers exactly what getSession and loadViewer answer for a current session", async () => {
    const { id, cookie } = await sessionFor(ana);
    const fast = await sessionViewerFromCookies(`theme=dark; ${cookie}`);
    expect(fast).toEqual(await throughBetterAuth(cookie));
    expect(fast?.sessionId).toBe(id);
    expect(fast?.viewer).toMatchObject({
      id: ana.id,
      username: "ana_fast",
      displayName: "ana_fast",
      isGuest: false,
      isAdmin: false,
      unreadNotifications: 1,
    });
    expect(fast?.viewer?.notificationsSeq).toBeGreaterThan(0);
    // And the request as a whole, with nothing to write back.
    const viaRequest = await getViewerFromHeaders(new Headers({ Cookie: cookie }));
    expect(viaRequest).toEqual({ ...fast, setCookies: [] });
  });

  it("has no viewer for a banned account, as loadViewer has none", async () => {
    const banned = await createTestUser({ banned: true });
    const { cookie } = await sessionFor(banned);
    expect(await sessionViewerFromCookies(cookie)).toEqual({ viewer: null, sessionId: null });
    expect((await throughBetterAuth(cookie)).viewer).toBeNull();
  });

  it("leaves to better-auth a session due for renewal, which it renews", async () => {
    const context = await getAuth().$context;
    const { updateAge } = context.sessionConfig;
    const now = Date.now();
    // Renewed when expiresAt - expiresIn + updateAge <= now: last renewed updateAge + 1 s ago.
    const expiresAt = new Date(now + SESSION_MAX_AGE_S * 1000 - updateAge * 1000 - 1000);
    const { cookie } = await sessionFor(ana, { expiresAt });
    expect(await sessionViewerFromCookies(cookie, now)).toBeUndefined();
    const renewed = await getViewerFromHeaders(new Headers({ Cookie: cookie }));
    expect(renewed.viewer?.id).toBe(ana.id);
    expect(renewed.setCookies.join("\n")).toContain(context.authCookies.sessionToken.name);
    // Renewed, it is answered in one statement again.
    expect((await sessionViewerFromCookies(cookie))?.viewer?.id).toBe(ana.id);
  });

  it("leaves to better-auth an expired session, which it deletes", async () => {
    const { id, cookie } = await sessionFor(ana, { expiresAt: new Date(Date.now() - DAY_MS) });
    expect(await sessionViewerFromCookies(cookie)).toBeUndefined();
    const answer = await getViewerFromHeaders(new Headers({ Cookie: cookie }));
    expect(answer.viewer).toBeNull();
    expect(answer.setCookies.join("\n")).toMatch(/Max-Age=0/i);
    expect(await getDb().select().from(session).where(eq(session.id, id))).toEqual([]);
  });

  it("refuses a token without a valid signature, and an unknown token", async () => {
    const { token, cookie } = await sessionFor(ana);
    const name = cookie.slice(0, cookie.indexOf("="));
    const forged = createHmac("sha256", "not-the-secret").update(token).digest("base64");
    for (const value of [token, `${token}.${forged}`, `${token}.short=`, `.${forged}`]) {
      const bad = `${name}=${encodeURIComponent(value)}`;
      expect(await sessionViewerFromCookies(bad)).toBeUndefined();
      expect((await getViewerFromHeaders(new Headers({ Cookie: bad }))).viewer).toBeNull();
    }
    const unknown = await sessionFor(ana);
    await getDb().delete(session).where(eq(session.id, unknown.id));
    expect(await sessionViewerFromCookies(unknown.cookie)).toBeUndefined();
    expect((await getViewerFromHeaders(new Headers({ Cookie: unknown.cookie }))).viewer).toBeNull();
  });

  it("leaves to better-auth the cookies it has to read or clear", async () => {
    const context = await getAuth().$context;
    const { cookie } = await sessionFor(ana);
    for (const other of [
      context.authCookies.dontRememberToken.name,
      context.authCookies.sessionData.name,
    ]) {
      expect(await sessionViewerFromCookies(`${cookie}; ${other}=x`)).toBeUndefined();
    }
    expect(await sessionViewerFromCookies("theme=dark")).toBeUndefined();
  });

  it("sees a ban and a new notification on the very next request", async () => {
    const person = await createTestUser();
    const { cookie } = await sessionFor(person);
    expect((await sessionViewerFromCookies(cookie))?.viewer?.unreadNotifications).toBe(0);
    await followUser({ viewerId: others[2]!.id, targetId: person.id });
    expect((await sessionViewerFromCookies(cookie))?.viewer?.unreadNotifications).toBe(1);
    await getDb().update(user).set({ banned: true }).where(eq(user.id, person.id));
    expect((await sessionViewerFromCookies(cookie))?.viewer).toBeNull();
  });
});

describe("reading and checking the cookie", () => {
  it("parses the Cookie header as better-call does", () => {
    const cookies = parseCookieHeader(' a=1; b="two"; a=3; c=%E2%9C%93; d=%E0%A4%A; junk; e=');
    expect([...cookies]).toEqual([
      ["a", "1"],
      ["b", "two"],
      ["c", "✓"],
      ["d", "%E0%A4%A"],
      ["e", ""],
    ]);
  });

  it("accepts only the value's own HMAC", () => {
    const signature = createHmac("sha256", "secret").update("tok").digest("base64");
    expect(verifiedToken(`tok.${signature}`, "secret")).toBe("tok");
    expect(verifiedToken(`tok.${signature}`, "other")).toBeNull();
    expect(verifiedToken(`tok2.${signature}`, "secret")).toBeNull();
    expect(verifiedToken("tok", "secret")).toBeNull();
  });
});
