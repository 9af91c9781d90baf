import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, type Locator, type Page, test } from "@playwright/test";
import { E2E_ADMIN, E2E_MEMBER, E2E_PASSWORD } from "../support/e2e-accounts";
import {
  clickFollowButton,
  // Not a React hook: each of this spec's browser contexts comes from its own client address.
  useOwnClientAddress as comeFromOwnAddress,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  reloadHydrated,
} from "./fixtures";
import {
  BUILD_DIR,
  type OwnServer,
  SLOT,
  sparePort,
  startOwnServer,
  waitForReady,
} from "./own-server";
import { type Person, signUp } from "./people";

// Live notifications and the live feed, seen from two signed-in browsers at once.

const EMPTY_STORAGE = { cookies: [], origins: [] };

/** A page of its own browser context, signed in as `person`, in light mode. */
async function pageAs(browser: Browser, person: Person, baseURL: string): Promise<Page> {
  const context = await browser.newContext({ storageState: person.storage });
  await context.addCookies([{ name: "st_theme", value: "light", url: baseURL }]);
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  return page;
}

/** Signs a seeded account in on `baseURL`; returns a page of a context of its own. */
async function signInAt(browser: Browser, baseURL: string, email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL, storageState: EMPTY_STORAGE });
  await context.addCookies([{ name: "st_theme", value: "light", url: baseURL }]);
  const page = await context.newPage();
  await gotoHydrated(page, "/auth/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/feed$/);
  return page;
}

/** Shares a post through the composer on /feed; returns its id. */
async function sharePost(page: Page, title: string, artist: string): Promise<string> {
  await gotoHydrated(page, "/feed");
  await page.locator("body").press("n");
  await expect(page.getByLabel("Track title")).toBeFocused();
  await page.getByLabel("Track title").fill(title);
  await page.getByRole("combobox", { name: "Artist", exact: true }).fill(artist);
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page.getByText(`“${title}” is on your feed.`)).toBeVisible();
  const href = await page
    .getByRole("link", { name: title, exact: true })
    .first()
    .getAttribute("href");
  const id = href?.match(/\/post\/([0-9a-f-]{36})/)?.[1];
  if (!id) throw new Error(`no post id in ${href}`);
  return id;
}

/** Opens `path` and waits until the page's live stream (/api/events) is open on the server. */
async function gotoLive(page: Page, path: string): Promise<void> {
  const stream = page.waitForResponse(
    (response) => new URL(response.url()).pathname === "/api/events" && response.status() === 200,
  );
  await gotoHydrated(page, path);
  // The server registers the stream before it answers, so from here on it hears everything.
  await stream;
}

/** The header's "Notifications" link (desktop navigation), whose name carries the unread count. */
function notificationsLink(page: Page): Locator {
  return page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: /^Notifications/ });
}

/**
 * The link's name with `count` unread: "Notifications, 2 unread" (label and count in one run of text).
 */
function unreadName(count: number): RegExp {
  return new RegExp(`^Notifications, ${count} unread$`);
}

/** Toasts (bottom right) that contain `text`. */
function toast(page: Page, text: string): Locator {
  return page.locator(".Toastify").getByRole("status").filter({ hasText: text });
}

/** The "Reconnecting…" note in the header, present only while the live connection is down. */
function reconnecting(page: Page): Locator {
  return page.getByRole("status").filter({ hasText: "Reconnecting" });
}

/** Leaves a mark in the page's window that a reload or a full navigation would wipe. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as { __stSameDocument?: boolean }).__stSameDocument = true;
  });
}

async function expectSameDocument(page: Page): Promise<void> {
  expect(
    await page.evaluate(() => (window as { __stSameDocument?: boolean }).__stSameDocument),
    "the page was not reloaded",
  ).toBe(true);
}

test.describe
  .serial("live notifications and feed", () => {
    const run = `${Date.now() % 1_000_000}`;
    let ana: Person;
    let ben: Person;
    let postTitle = "";

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(90_000);
      ana = await signUp(browser, request, `ana${run}`, "Ana Author");
      ben = await signUp(browser, request, `ben${run}`, "Ben Listener");
    });

    test("B likes and comments on A's post: A on /feed gets the badge and toasts live; /notifications lists both; mark all as read clears the badge", async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(60_000);
      if (!baseURL) throw new Error("playwright.config.ts must set use.baseURL");
      const anaPage = await pageAs(browser, ana, baseURL);
      postTitle = `Blue in Green ${run}`;
      const postId = await sharePost(anaPage, postTitle, "Miles Davis");
      await gotoLive(anaPage, "/feed");
      await markDocument(anaPage);
      const bell = notificationsLink(anaPage);
      await expect(bell).toHaveAccessibleName("Notifications");
      await expect(bell.getByTestId("unread-badge")).toHaveCount(0);

      const benPage = await pageAs(browser, ben, baseURL);
      await gotoHydrated(benPage, `/post/${postId}`);
      await benPage.getByRole("button", { name: "Like, 0 likes" }).click();
      await expect(benPage.getByRole("button", { name: "Like, 1 like" })).toHaveAttribute(
        "aria-pressed",
        "true",
      );

      await expect(bell).toHaveAccessibleName(unreadName(1));
      await expect(bell.getByTestId("unread-badge")).toHaveText("1");
      const liked = toast(anaPage, `Ben Listener liked your post “${postTitle}”`);
      await expect(liked).toBeVisible();
      await expect(liked.getByRole("button", { name: "View" })).toBeVisible();

      await benPage.getByLabel("Add a comment").fill("That trumpet, though");
      await benPage.getByRole("button", { name: "Comment", exact: true }).click();
      await expect(
        benPage.getByRole("region", { name: /Comments/ }).getByText("That trumpet, though"),
      ).toBeVisible();

      await expect(bell).toHaveAccessibleName(unreadName(2));
      await expect(bell.getByTestId("unread-badge")).toHaveText("2");
      const commented = toast(anaPage, `Ben Listener commented on your post “${postTitle}”`);
      await expect(commented).toBeVisible();
      await expect(commented).toContainText("“That trumpet, though”");
      await expect(commented.getByRole("button", { name: "View" })).toBeVisible();
      await expect(anaPage).toHaveURL(/\/feed$/);
      await expectSameDocument(anaPage);

      // To the list, in the same document: both notifications, newest first, unread.
      await bell.click();
      await expect(anaPage).toHaveURL(/\/notifications$/);
      const list = anaPage.getByRole("list", { name: "Notifications" });
      const items = list.getByRole("link");
      await expect(items).toHaveCount(2);
      await expect(items.nth(0)).toContainText(
        `Unread: Ben Listener commented on your post “${postTitle}”`,
      );
      await expect(items.nth(0)).toContainText("“That trumpet, though”");
      await expect(items.nth(0)).toHaveAttribute("href", `/post/${postId}#comments`);
      await expect(items.nth(1)).toContainText(
        `Unread: Ben Listener liked your post “${postTitle}”`,
      );
      await expect(items.nth(1)).toHaveAttribute("href", `/post/${postId}`);
      for (const item of await items.all())
        await expect(item).toHaveAttribute("data-unread", "true");
      await expectSameDocument(anaPage);
      await expectNoAxeViolations(anaPage);

      // The same list with unread items in dark mode, in a second tab.
      const dark = await anaPage.context().newPage();
      await anaPage.context().addCookies([{ name: "st_theme", value: "dark", url: baseURL }]);
      await gotoHydrated(dark, "/notifications");
      await expect(dark.locator("html")).toHaveAttribute("data-theme", "dark");
      await expect(dark.getByRole("list", { name: "Notifications" }).getByRole("link")).toHaveCount(
        2,
      );
      await expectNoAxeViolations(dark);
      await dark.close();
      await anaPage.context().addCookies([{ name: "st_theme", value: "light", url: baseURL }]);

      await anaPage.getByRole("button", { name: "Mark all as read" }).click();
      await expect(bell).toHaveAccessibleName("Notifications");
      await expect(bell.getByTestId("unread-badge")).toHaveCount(0);
      await expect(list.locator('[data-unread="true"]')).toHaveCount(0);
      await expect(list.getByText("Unread:")).toHaveCount(0);
      await expect(anaPage.getByRole("button", { name: "Mark all as read" })).toHaveCount(0);
      await expectSameDocument(anaPage);

      // And it stays read.
      await reloadHydrated(anaPage);
      await expect(items).toHaveCount(2);
      await expect(list.locator('[data-unread="true"]')).toHaveCount(0);
      await expect(notificationsLink(anaPage)).toHaveAccessibleName("Notifications");
    });

    test("A on the Following tab sees 'Show 1 new post' when B posts, and the post on top after a click", async ({
      browser,
      baseURL,
    }) => {
      if (!baseURL) throw new Error("playwright.config.ts must set use.baseURL");
      const anaPage = await pageAs(browser, ana, baseURL);
      await gotoHydrated(anaPage, `/u/ben${run}`);
      await clickFollowButton(anaPage, "Follow Ben Listener");
      await expect(anaPage.getByRole("button", { name: "Following Ben Listener" })).toBeVisible();

      await gotoLive(anaPage, "/feed?tab=following");
      await markDocument(anaPage);
      const following = anaPage.getByRole("list", {
        name: "Posts from you and people you follow",
      });
      const newPosts = anaPage.getByRole("button", { name: /^Show \d+ new posts?$/ });
      await expect(following.getByRole("listitem").first()).toContainText(postTitle);
      await expect(newPosts).toHaveCount(0);

      const benPage = await pageAs(browser, ben, baseURL);
      const title = `Teardrop ${run}`;
      await sharePost(benPage, title, "Massive Attack");

      await expect(anaPage.getByRole("button", { name: "Show 1 new post" })).toBeVisible();
      // Nothing moves until asked.
      await expect(following.getByRole("link", { name: title, exact: true })).toHaveCount(0);
      await anaPage.getByRole("button", { name: "Show 1 new post" }).click();
      const first = following.getByRole("listitem").first();
      await expect(first.getByRole("link", { name: title, exact: true })).toBeVisible();
      await expect(first).toContainText("Ben Listener");
      await expect(following.getByRole("listitem").nth(1)).toContainText(postTitle);
      await expect(newPosts).toHaveCount(0);
      await expect(anaPage).toHaveURL(/\/feed\?tab=following$/);
      await expectSameDocument(anaPage);
    });
  });

test.describe("live updates across a server restart", () => {
  // A server of this spec's own, from the same build, so it can be stopped and started again.
  const port = sparePort(5);
  const baseURL = `http://127.0.0.1:${port}`;
  let dataDir = "";
  let server: OwnServer | null = null;

  function startServer(): OwnServer {
    // POSTs are checked against BASE_URL: it must be the address the browser uses.
    return startOwnServer({
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: baseURL,
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
    });
  }

  async function stopServer(): Promise<number | null> {
    const running = server;
    server = null;
    if (!running || running.child.exitCode !== null) return running?.child.exitCode ?? null;
    running.child.kill("SIGTERM");
    return running.exited;
  }

  test.beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), `st-live-${SLOT}-`));
    // The suite's seed (the admin and the member, who can sign in) into this server's database.
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    const seeded = spawnSync(process.execPath, [path.join(BUILD_DIR, "e2e-seed.mjs")], {
      env,
      encoding: "utf8",
    });
    if (seeded.status !== 0) {
      throw new Error(`e2e seed failed:\n${seeded.stdout}\n${seeded.stderr}`);
    }
  });

  test.afterAll(async () => {
    await stopServer();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("A's page reconnects on its own after a restart and gets what happened while it was away", async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    server = startServer();
    await waitForReady(server, port);

    const anaPage = await signInAt(browser, baseURL, E2E_MEMBER.email);
    const benPage = await signInAt(browser, baseURL, E2E_ADMIN.email);
    const title = `So What ${Date.now() % 1_000_000}`;
    const postId = await sharePost(anaPage, title, "Miles Davis");

    await gotoLive(anaPage, "/feed");
    await markDocument(anaPage);
    const bell = notificationsLink(anaPage);
    await expect(bell).toHaveAccessibleName("Notifications");
    await expect(reconnecting(anaPage)).toHaveCount(0);

    // The server goes away: A's page notices and says so.
    expect(await stopServer()).toBe(0);
    await expect(reconnecting(anaPage)).toBeVisible();
    await expect(reconnecting(anaPage)).toHaveText("Reconnecting to live updates…");

    // Keep A's page away until B has acted on the restarted server, so what B does happens
    // while A is disconnected (A's retries fail as they did while the server was down).
    await anaPage.route("**/api/events**", (route) => route.abort("connectionrefused"));
    server = startServer();
    await waitForReady(server, port);

    await gotoHydrated(benPage, `/post/${postId}`);
    // The button turns at once (optimistic): wait for the server's answer, so the like is
    // stored before the comment and the two notifications keep that order (on the restarted,
    // still cold server the like's request could otherwise land after the comment's).
    const liked = benPage.waitForResponse(
      (response) => response.url().includes("/api/like") && response.request().method() === "POST",
    );
    await benPage.getByRole("button", { name: "Like, 0 likes" }).click();
    await expect(benPage.getByRole("button", { name: "Like, 1 like" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    expect((await liked).ok()).toBe(true);
    await benPage.getByLabel("Add a comment").fill("Kind of blue, kind of great");
    await benPage.getByRole("button", { name: "Comment", exact: true }).click();
    await expect(
      benPage.getByRole("region", { name: /Comments/ }).getByText("Kind of blue, kind of great"),
    ).toBeVisible();
    // A has not heard of it yet.
    await expect(reconnecting(anaPage)).toBeVisible();
    await expect(bell).toHaveAccessibleName("Notifications");

    // Let A's page through: its next retry (1, 2, 5, then every 10 s) reconnects and catches up.
    await anaPage.unroute("**/api/events**");
    await expect(bell).toHaveAccessibleName(unreadName(2), { timeout: 25_000 });
    await expect(bell.getByTestId("unread-badge")).toHaveText("2");
    const caughtUp = toast(anaPage, "2 new notifications");
    await expect(caughtUp).toBeVisible();
    await expect(caughtUp).toContainText(`Ada Admin commented on your post “${title}”`);
    await expect(caughtUp.getByRole("button", { name: "View" })).toBeVisible();
    await expect(reconnecting(anaPage)).toHaveCount(0);
    await expect(anaPage).toHaveURL(/\/feed$/);
    await expectSameDocument(anaPage);

    await bell.click();
    const items = anaPage.getByRole("list", { name: "Notifications" }).getByRole("link");
    await expect(items).toHaveCount(2);
    await expect(items.nth(0)).toContainText(`Unread: Ada Admin commented on your post “${title}”`);
    await expect(items.nth(1)).toContainText(`Unread: Ada Admin liked your post “${title}”`);

    await anaPage.context().close();
    await benPage.context().close();
    expect(await stopServer()).toBe(0);
  });
});
