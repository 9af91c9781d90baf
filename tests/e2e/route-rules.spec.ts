import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import routes from "../../app/routes";
import { E2E_ADMIN, E2E_MEMBER, E2E_PASSWORD, SHARED_POSTS } from "../support/e2e-accounts";
import { expect, gotoHydrated, test } from "./fixtures";
import { signInSeeded } from "./people";

/**
 * The redirect rules of spec §2 for every route in app/routes.ts × signed out, member and
 * admin, for documents and `.data` requests. Generated from the route table, so a route added
 * later is checked without anyone remembering to list it.
 */

const SLOT = process.env.E2E_SLOT ?? "0";
const MEMBER_STATE = path.join(os.tmpdir(), `soundtrail-e2e-${SLOT}-rules-member.json`);
const ADMIN_STATE = path.join(os.tmpdir(), `soundtrail-e2e-${SLOT}-rules-admin.json`);

interface RouteEntry {
  path?: string;
  index?: boolean;
  file: string;
  children?: RouteEntry[];
}

interface Page {
  pattern: string;
  file: string;
}

function flatten(entries: RouteEntry[], prefix = ""): Page[] {
  return entries.flatMap((entry) => {
    const here = entry.path ? `${prefix}/${entry.path}` : prefix;
    const own = entry.children?.length ? [] : [{ pattern: here || "/", file: entry.file }];
    const index = entry.index ? [{ pattern: prefix || "/", file: entry.file }] : [];
    return [...(entry.index ? index : own), ...flatten(entry.children ?? [], here)];
  });
}

/** A concrete URL for a route pattern. */
function sample(pattern: string): string {
  return pattern
    .replace(":id", SHARED_POSTS.public.id)
    .replace(":username", E2E_MEMBER.username)
    .replace(":list", "followers")
    .replace(":provider", "github")
    .replace(":file", "0123456789abcdef.svg")
    .replace(":token", "not-a-setup-token")
    .replace("*", "no/such/page");
}

const all = flatten(routes as RouteEntry[]);
/** Resource routes (no UI) authorise themselves and answer 401/403/404/405, never a redirect. */
const isPage = (page: Page) =>
  /export default function/.test(readFileSync(path.join("app", page.file), "utf8"));
const pages = all.filter(isPage);
const resources = all.filter((page) => !isPage(page));

/**
 * Pages that are not under the rule, and why:
 * - `/unsubscribe`: the link in every bulk mail (RFC 8058 one-click) must work without signing in;
 *   it is authorised by its signed token instead.
 * - `/bench/fixture`, `/bench/floor`: exist only under SOUNDTRAIL_BENCH=1; a 404 here.
 * - any other path (the catch-all, sampled as `/no/such/page`): "Page not found" for everyone
 *   (spec §2), signed in or not, not a sign-in page for a page that does not exist.
 */
const NOT_FOUND = "/no/such/page";
const EXEMPT = new Set(["/unsubscribe", "/bench/fixture", "/bench/floor", NOT_FOUND]);
const AUTH_ENTRY = new Set(["/", "/auth/login", "/auth/signup", "/auth/confirm"]);

type Expected = { redirect: string } | "no-rule-redirect";

function expectedFor(url: string, who: "signed out" | "member" | "admin"): Expected {
  const pathname = url.split("?")[0] ?? url;
  if (EXEMPT.has(pathname)) return "no-rule-redirect";
  const isAuth = pathname.startsWith("/auth/") || pathname === "/auth";
  const isAdmin = pathname === "/admin" || pathname.startsWith("/admin/");
  if (who === "signed out") {
    if (pathname === "/" || pathname === "/feed" || isAuth) return "no-rule-redirect";
    return { redirect: `/auth/login?${new URLSearchParams({ redirectTo: url })}` };
  }
  if (AUTH_ENTRY.has(pathname)) return { redirect: "/feed" };
  if (isAdmin && who === "member") return { redirect: "/feed" };
  return "no-rule-redirect";
}

function dataUrl(url: string): string {
  return url === "/" ? "/_root.data" : `${url.replace(/\/$/, "")}.data`;
}

async function check(request: APIRequestContext, url: string, expected: Expected) {
  const doc = await request.get(url, { maxRedirects: 0 });
  const data = await request.get(dataUrl(url), { maxRedirects: 0 });
  expect(doc.status(), `${url} never a 5xx`).toBeLessThan(500);
  expect(data.status(), `${dataUrl(url)} never a 5xx`).toBeLessThan(500);
  if (expected === "no-rule-redirect") {
    if (url === NOT_FOUND) expect(doc.status(), `${url} is not found`).toBe(404);
    const location = doc.headers().location ?? "";
    // Auth pages are outside the rule; one may still need a session of its own (the guest
    // upgrade), and its own guard answers for that.
    if (!url.startsWith("/auth/")) {
      expect(location, `${url} is not sent to sign in`).not.toMatch(/^\/auth\/login\?redirectTo=/);
    }
    if (AUTH_ENTRY.has(url)) expect(location).not.toBe("/feed");
    if (url.startsWith("/admin")) expect(location).toBe("");
    return;
  }
  expect([302, 303, 307], `${url} redirects`).toContain(doc.status());
  expect(doc.headers().location, `${url} redirects to`).toBe(expected.redirect);
  // A `.data` redirect is a 202 whose payload names the target (single fetch).
  expect(data.status(), `${dataUrl(url)} redirects`).toBe(202);
  expect(await data.text()).toContain(JSON.stringify(expected.redirect).slice(1, -1));
}

test.describe("redirect rules for every route in routes.ts", () => {
  test("the route table has the pages this spec knows how to fill in", () => {
    expect(pages.length).toBeGreaterThan(25);
    for (const page of all) expect(sample(page.pattern)).not.toMatch(/[:*]/);
  });

  test("signed out: only /, /feed and /auth/… open; every other page asks to sign in", async ({
    request,
  }) => {
    for (const page of pages) {
      const url = sample(page.pattern);
      await check(request, url, expectedFor(url, "signed out"));
    }
  });

  test("signed out: resource routes answer for themselves, never with private data", async ({
    request,
  }) => {
    for (const page of resources) {
      const url = sample(page.pattern);
      const response = await request.get(url, { maxRedirects: 0 });
      expect(response.status(), url).toBeLessThan(500);
      if (url === "/api/feed") {
        // The feed as JSON (for token API apps), like /feed signed out: public posts only.
        expect(response.status(), url).toBe(200);
        const body = (await response.json()) as { tab: string; posts: { audience: string }[] };
        expect(body.tab).toBe("everyone");
        expect(body.posts.length).toBeGreaterThan(0);
        for (const post of body.posts) expect(post.audience, url).toBe("everyone");
        continue;
      }
      if (url === "/api/listening-now") {
        // The feed's "listening now" strip: signed out, nobody (the feed itself is public).
        expect(response.status(), url).toBe(200);
        expect(await response.json()).toEqual({ people: [] });
        continue;
      }
      if (url.startsWith("/api/") && !url.startsWith("/api/auth/")) {
        expect([400, 401, 403, 404, 405], url).toContain(response.status());
      }
    }
  });

  test.describe("as a member", () => {
    test.beforeAll(async ({ browser }) => {
      await signInSeeded(browser, E2E_MEMBER.email, E2E_PASSWORD, MEMBER_STATE);
    });
    test.use({ storageState: MEMBER_STATE });

    test("the entry pages go to /feed, /admin goes to /feed, the rest opens", async ({ page }) => {
      for (const route of pages) {
        const url = sample(route.pattern);
        if (url === "/auth/logout") continue; // a GET must not sign anyone out; checked below
        await check(page.request, url, expectedFor(url, "member"));
      }
    });
  });

  test.describe("as an admin", () => {
    test.beforeAll(async ({ browser }) => {
      await signInSeeded(browser, E2E_ADMIN.email, E2E_PASSWORD, ADMIN_STATE);
    });
    test.use({ storageState: ADMIN_STATE });

    test("every admin page opens; the entry pages still go to /feed", async ({ page }) => {
      for (const route of pages) {
        const url = sample(route.pattern);
        if (url === "/auth/logout") continue;
        await check(page.request, url, expectedFor(url, "admin"));
      }
    });
  });
});

test.describe("a shared link opened signed out", () => {
  test("a public post: sign-in previews it, with Open Graph tags for link unfurlers", async ({
    page,
  }) => {
    await page.goto(`/post/${SHARED_POSTS.public.id}`);
    await expect(page).toHaveURL(
      `/auth/login?redirectTo=${encodeURIComponent(`/post/${SHARED_POSTS.public.id}`)}`,
    );
    const card = page.getByRole("region", { name: "Shared with you" });
    await expect(card).toContainText(
      `${E2E_MEMBER.displayName} shared ${SHARED_POSTS.public.title}`,
    );
    await expect(card).toContainText("Sign in or join to see it.");
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute(
      "content",
      `${E2E_MEMBER.displayName} shared ${SHARED_POSTS.public.title} by ${SHARED_POSTS.public.artist}`,
    );
    await expect(page.locator('meta[property="og:description"]')).toHaveAttribute(
      "content",
      SHARED_POSTS.public.note,
    );
    await expect(page.locator('meta[name="twitter:card"]')).toHaveCount(1);
    await expect(page.locator('meta[name="description"]')).toHaveAttribute(
      "content",
      "Share your music journey with friends",
    );
  });

  test("after signing in from the preview, the post opens", async ({ page }) => {
    await gotoHydrated(page, `/post/${SHARED_POSTS.public.id}`);
    await page.getByLabel("Email").fill(E2E_ADMIN.email);
    await page.getByLabel("Password").fill(E2E_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`/post/${SHARED_POSTS.public.id}`);
    await expect(page.getByText(SHARED_POSTS.public.note)).toBeVisible();
  });

  test("a followers-only post and an unknown id reveal nothing", async ({ page }) => {
    for (const id of [SHARED_POSTS.followersOnly.id, "does-not-exist"]) {
      await page.goto(`/post/${id}`);
      await expect(page).toHaveURL(/\/auth\/login\?redirectTo=/);
      await expect(page.getByRole("region", { name: "Shared with you" })).toHaveCount(0);
      await expect(page.locator('meta[property="og:title"]')).toHaveCount(0);
      expect(await page.content()).not.toContain(SHARED_POSTS.followersOnly.title);
    }
  });

  test("a profile: sign-in previews the person", async ({ page }) => {
    await page.goto(`/u/${E2E_MEMBER.username}`);
    const card = page.getByRole("region", { name: "Shared with you" });
    await expect(card).toContainText(`${E2E_MEMBER.displayName} (@${E2E_MEMBER.username})`);
    await expect(page.locator('meta[property="og:type"]')).toHaveAttribute("content", "profile");
  });
});

test.describe("page description (spec §1)", () => {
  test("every page signed out carries it once", async ({ request }) => {
    for (const route of pages) {
      const url = sample(route.pattern);
      const response = await request.get(url);
      const html = await response.text();
      const matches = html.match(/<meta name="description" content="([^"]*)"/g) ?? [];
      expect(matches, url).toEqual([
        '<meta name="description" content="Share your music journey with friends"',
      ]);
    }
  });
});
