import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED_EMAIL_DOMAIN, SEED_PASSWORD, seedDatabase } from "~/seed.server";
import { cookiesOf, type LiveServer, startLiveServer } from "../tests/support/live-server";

/*
 * Issue 17 item 1 (ARCHITECTURE §9), checked by bytes, not time: the signed-in `/feed` document
 * with 20 posts weighs at most 60 KB raw, hydration data and React Router's inline scripts
 * included, and each post card at most 2 KB. The production server on the demo community
 * (`npm run seed`'s data), signed in as Ana Rivera, as `npm run bench -- html-size` measures it
 * (that also reports the parts and the compressed sizes).
 */

const FEED_BUDGET = 60 * 1024;
const CARD_BUDGET = 2 * 1024;

describe("the signed-in /feed document's weight", () => {
  let server: LiveServer;
  let html = "";

  beforeAll(async () => {
    server = await startLiveServer({
      seed: async (db) => {
        await seedDatabase(db);
      },
    });
    const login = await fetch(`${server.base}/auth/login`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: server.base,
        "X-Forwarded-For": "192.0.2.17",
      },
      body: new URLSearchParams({
        intent: "password",
        email: `ana_rivera@${SEED_EMAIL_DOMAIN}`,
        password: SEED_PASSWORD,
      }),
    });
    const cookie = cookiesOf(login);
    expect(cookie).toContain("session_token");
    const response = await fetch(`${server.base}/feed`, {
      headers: { cookie, "X-Forwarded-For": "192.0.2.17" },
    });
    expect(response.status).toBe(200);
    html = await response.text();
  }, 420_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("shows 20 posts, each card within 2 KB", () => {
    const cards = html.match(/<article\b[\s\S]*?<\/article>/g) ?? [];
    expect(cards).toHaveLength(20);
    for (const card of cards) expect(Buffer.byteLength(card)).toBeLessThanOrEqual(CARD_BUDGET);
  });

  it("weighs at most 60 KB raw, with its hydration data", () => {
    // The hydration data is there (what the budget includes), and the page is whole.
    expect(html).toContain("window.__reactRouterContext.streamController.enqueue(");
    expect(html).toMatch(/<\/html>$/);
    const bytes = Buffer.byteLength(html);
    expect(bytes, `/feed weighs ${bytes} B`).toBeLessThanOrEqual(FEED_BUDGET);
  });
});
