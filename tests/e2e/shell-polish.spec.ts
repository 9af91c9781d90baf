import os from "node:os";
import path from "node:path";
import type { APIRequestContext, Browser, BrowserContext, Page } from "@playwright/test";
import sharp from "sharp";
import { E2E_ADMIN, E2E_PASSWORD } from "../support/e2e-accounts";
import {
  COLOR_MODE_COOKIE,
  useOwnClientAddress as comeFromOwnAddress,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  test,
} from "./fixtures";
import { type Person, signInSeeded, signUp } from "./people";

// The phone-first shell (issue 18): screenshots of the main pages in both themes at 1280 and
// 390 px, no page-wide sideways scrolling, menus with a backdrop and a focus trap, the composer's
// Escape and Cancel, the web app manifest and the service worker's offline page.

const SLOT = process.env.E2E_SLOT ?? "0";
const ADMIN_STATE = path.join(os.tmpdir(), `soundtrail-e2e-${SLOT}-shell-admin-state.json`);
const RUN = `${Date.now() % 1_000_000}`;
const POST_TITLE = `Lady and Man ${RUN}`;
const POST_ARTIST = `Khruangbin ${RUN}`;
const THEMES = ["light", "dark"] as const;
const WIDTHS = [1280, 390] as const;

/** An image smaller than any card: it must never be drawn bigger than it is. */
const IMAGE = { width: 240, height: 120 };

interface Fixture {
  poster: Person;
  newcomer: Person;
  postId: string;
}

let fixture: Fixture | null = null;

/** Two people, made once for the file: one who shared a post with an image, one with nothing. */
async function setUp(browser: Browser, request: APIRequestContext): Promise<Fixture> {
  if (fixture) return fixture;
  const poster = await signUp(browser, request, `poster${RUN}`, "Pia Poster");
  const newcomer = await signUp(browser, request, `newbie${RUN}`, "Nico Newcomer");
  const context = await browser.newContext({ storageState: poster.storage });
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  await gotoHydrated(page, "/feed");
  await page.locator("body").press("n");
  await page.getByLabel("Track title").fill(POST_TITLE);
  await page.getByRole("combobox", { name: "Artist", exact: true }).fill(POST_ARTIST);
  await page.getByLabel("Note").fill("Sunday morning #slowburn");
  const picture = await sharp({
    create: { ...IMAGE, channels: 3, background: { r: 200, g: 120, b: 40 } },
  })
    .png()
    .toBuffer();
  await page
    .getByLabel("Image", { exact: false })
    .setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: picture });
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page.getByText(`“${POST_TITLE}” is on your feed.`)).toBeVisible();
  const href = await page
    .getByRole("link", { name: POST_TITLE, exact: true })
    .first()
    .getAttribute("href");
  const postId = href?.match(/\/post\/([0-9a-f-]{36})/)?.[1];
  if (!postId) throw new Error(`no post id in ${href}`);
  await context.close();
  fixture = { poster, newcomer, postId };
  return fixture;
}

async function themedContext(
  browser: Browser,
  theme: "light" | "dark",
  width: number,
  storage: Person["storage"] | null,
): Promise<BrowserContext> {
  const context = await browser.newContext({
    storageState: storage ?? { cookies: [], origins: [] },
    viewport: { width, height: width === 390 ? 844 : 900 },
    colorScheme: theme,
  });
  const baseURL = test.info().project.use.baseURL ?? "";
  await context.addCookies([{ name: COLOR_MODE_COOKIE, value: theme, url: baseURL }]);
  return context;
}

/** No page-wide sideways scroll: wide things scroll inside their own box. */
async function expectNoHorizontalOverflow(page: Page, what: string) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `${what}: page wider than the window`).toBeLessThanOrEqual(innerWidth);
}

/** Presses Tab `presses` times, then Shift+Tab once: focus never leaves `selectors`. */
async function expectFocusKeptIn(page: Page, selectors: string[], presses: number) {
  const inside = () =>
    page.evaluate(
      (list) => list.some((selector) => document.activeElement?.closest(selector)),
      selectors,
    );
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press("Tab");
    expect(await inside(), `after ${i + 1} × Tab`).toBe(true);
  }
  await page.keyboard.press("Shift+Tab");
  expect(await inside(), "after Shift+Tab").toBe(true);
}

async function attachScreenshot(page: Page, name: string) {
  await test.info().attach(name, {
    body: await page.screenshot({ fullPage: true, animations: "disabled" }),
    contentType: "image/png",
  });
}

test.describe("screenshots of the main pages", () => {
  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      test(`feed, post, profile and landing — ${theme}, ${width} px`, async ({
        browser,
        request,
      }) => {
        test.setTimeout(180_000);
        const { poster, postId } = await setUp(browser, request);
        const context = await themedContext(browser, theme, width, poster.storage);
        const page = await context.newPage();
        const pages: [string, string, string][] = [
          ["feed", "/feed?tab=everyone", "Your feed"],
          ["post", `/post/${postId}`, POST_TITLE],
          ["profile", `/u/${poster.username}`, "Pia Poster"],
        ];
        for (const [name, url, heading] of pages) {
          await gotoHydrated(page, url);
          await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
          await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
          await expectNoHorizontalOverflow(page, `${name} at ${width} px`);
          await attachScreenshot(page, `${name}-${theme}-${width}.png`);
          await expectNoAxeViolations(page);
        }
        // The post's image keeps its shape and is never drawn larger than it is.
        await gotoHydrated(page, `/post/${postId}`);
        const image = page.getByRole("img", { name: new RegExp(`Shared with “${POST_TITLE}”`) });
        await expect(image).toBeVisible();
        const drawn = await image.evaluate((img: HTMLImageElement) => ({
          width: img.getBoundingClientRect().width,
          height: img.getBoundingClientRect().height,
          naturalWidth: img.naturalWidth,
          naturalHeight: img.naturalHeight,
        }));
        expect(drawn.naturalWidth).toBe(IMAGE.width);
        expect(drawn.width).toBeLessThanOrEqual(drawn.naturalWidth + 2); // + its 1 px borders
        expect(Math.abs(drawn.width / drawn.height - IMAGE.width / IMAGE.height)).toBeLessThan(
          0.05,
        );
        await context.close();

        // The landing page, signed out.
        const visitor = await themedContext(browser, theme, width, null);
        const landing = await visitor.newPage();
        await gotoHydrated(landing, "/");
        await expect(landing.getByRole("heading", { level: 1 })).toBeVisible();
        await expectNoHorizontalOverflow(landing, `landing at ${width} px`);
        await attachScreenshot(landing, `landing-${theme}-${width}.png`);
        await expectNoAxeViolations(landing);
        await visitor.close();
      });
    }
  }
});

test.describe("empty pages on a busy instance", () => {
  for (const theme of THEMES) {
    test(`a new account sees who to follow and trending artists — ${theme}`, async ({
      browser,
      request,
    }) => {
      test.setTimeout(150_000);
      const { newcomer } = await setUp(browser, request);
      const context = await themedContext(browser, theme, 390, newcomer.storage);
      const page = await context.newPage();
      const checks: [string, string][] = [
        ["/feed", "Your feed is quiet"],
        ["/notifications", "You're all caught up"],
        [`/u/${newcomer.username}/following`, "You don't follow anyone yet"],
        ["/search?q=zzqqxxnothing", "No results for “zzqqxxnothing”"],
      ];
      for (const [url, emptyTitle] of checks) {
        await gotoHydrated(page, url);
        const main = page.locator("#main");
        await expect(main.getByRole("heading", { name: emptyTitle })).toBeVisible();
        await expect(main.getByText(/brand new|Soundtrail is new/)).toHaveCount(0);
        // Other people's music instead of nothing (the suite's seeded accounts post too, so
        // which five people and eight artists come first is not fixed).
        const follow = main.getByRole("region", { name: "Who to follow" });
        await expect(follow.getByRole("listitem").first()).toBeVisible();
        await expect(follow.getByRole("link", { name: newcomer.displayName })).toHaveCount(0);
        const trending = main.getByRole("list", { name: "Trending artists" });
        await expect(trending.getByRole("link").first()).toBeVisible();
        await expectNoHorizontalOverflow(page, url);
        await attachScreenshot(
          page,
          `empty-${url.split("?")[0]?.replaceAll("/", "_")}-${theme}.png`,
        );
        await expectNoAxeViolations(page);
      }
      await context.close();
    });
  }
});

test.describe("admin pages on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("tabs and tables scroll inside their own box, not the page", async ({ browser }) => {
    test.setTimeout(90_000);
    await signInSeeded(browser, E2E_ADMIN.email, E2E_PASSWORD, ADMIN_STATE);
    const context = await browser.newContext({
      storageState: ADMIN_STATE,
      viewport: { width: 390, height: 844 },
    });
    const page = await context.newPage();
    for (const url of [
      "/admin",
      "/admin/users",
      "/admin/comments",
      "/admin/reports",
      "/admin/audit",
      "/admin/email",
    ]) {
      await gotoHydrated(page, url);
      await expect(page.getByRole("navigation", { name: "Admin sections" })).toBeVisible();
      await expectNoHorizontalOverflow(page, url);
    }
    await context.close();
  });
});

test.describe("menus on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the navigation menu has a backdrop, keeps focus inside and Escape gives it back", async ({
    page,
  }) => {
    await gotoHydrated(page, "/feed");
    const open = page.getByRole("button", { name: "Open menu" });
    await open.focus();
    await page.keyboard.press("Enter");
    const close = page.getByRole("button", { name: "Close menu" });
    await expect(close).toBeFocused();
    await expect(page.getByTestId("menu-backdrop")).toBeVisible();
    const nav = page.getByRole("navigation", { name: "Main" });
    // Tab walks the menu's controls and comes back round to the menu button, never the page.
    await page.keyboard.press("Tab");
    await expect(nav.getByRole("link", { name: "Feed", exact: true })).toBeFocused();
    await expectFocusKeptIn(page, ['nav[aria-label="Main"]', "header button[aria-controls]"], 6);
    await page.keyboard.press("Escape");
    await expect(nav.getByRole("link", { name: "Feed", exact: true })).toBeHidden();
    await expect(page.getByTestId("menu-backdrop")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Open menu" })).toBeFocused();

    // Pressing the backdrop closes the menu too.
    await page.getByRole("button", { name: "Open menu" }).click();
    await page.getByTestId("menu-backdrop").click({ position: { x: 200, y: 700 } });
    await expect(page.getByRole("button", { name: "Open menu" })).toHaveAttribute(
      "aria-expanded",
      "false",
    );
  });

  test("the account menu has a backdrop and keeps focus inside until Escape", async ({
    browser,
    request,
  }) => {
    test.setTimeout(90_000);
    const { newcomer } = await setUp(browser, request);
    const context = await browser.newContext({
      storageState: newcomer.storage,
      viewport: { width: 390, height: 844 },
    });
    const page = await context.newPage();
    await gotoHydrated(page, "/feed");
    const summary = page.getByRole("banner").locator("summary", { hasText: "Account menu" });
    // One menu at a time: opening the account menu closes the navigation menu.
    await page.getByRole("button", { name: "Open menu" }).click();
    await summary.click();
    await expect(page.getByRole("button", { name: "Open menu" })).toHaveAttribute(
      "aria-expanded",
      "false",
    );
    await expect(page.getByTestId("menu-backdrop")).toHaveCount(1);
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("menu-backdrop")).toHaveCount(0);

    await summary.focus();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("menu-backdrop")).toBeVisible();
    const banner = page.getByRole("banner");
    await expect(banner.getByRole("link", { name: "Profile", exact: true })).toBeVisible();
    await expectNoAxeViolations(page);
    // From the avatar round the menu (profile, settings, three theme buttons, sign out) and back.
    await expectFocusKeptIn(page, ["header details"], 8);
    await page.keyboard.press("Escape");
    await expect(banner.getByRole("link", { name: "Profile", exact: true })).toBeHidden();
    await expect(page.getByTestId("menu-backdrop")).toHaveCount(0);
    await expect(summary).toBeFocused();
    await context.close();
  });
});

test.describe("the composer", () => {
  test("Escape and Cancel fold it away and keep what was typed", async ({ browser, request }) => {
    test.setTimeout(90_000);
    const { newcomer } = await setUp(browser, request);
    const context = await browser.newContext({ storageState: newcomer.storage });
    const page = await context.newPage();
    await gotoHydrated(page, "/feed");
    await expect(page.getByText("Press n to start a post")).toBeVisible();
    await page.getByRole("link", { name: "Share some music…" }).click();
    const title = page.getByLabel("Track title");
    await expect(title).toBeFocused();
    await title.fill("Half-written draft");

    await page.keyboard.press("Escape");
    await expect(title).toBeHidden();
    const resume = page.getByRole("link", { name: "Continue your post…" });
    await expect(resume).toBeFocused();
    await resume.click();
    await expect(title).toHaveValue("Half-written draft");

    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(title).toBeHidden();
    await expect(resume).toBeFocused();
    await page.locator("body").press("n");
    await expect(title).toBeFocused();
    await expect(title).toHaveValue("Half-written draft");
    await context.close();
  });

  test("editing a post: Cancel goes back to the post, in both themes", async ({
    browser,
    request,
  }) => {
    test.setTimeout(90_000);
    const { poster, postId } = await setUp(browser, request);
    for (const theme of THEMES) {
      const context = await themedContext(browser, theme, 390, poster.storage);
      const page = await context.newPage();
      await gotoHydrated(page, `/post/${postId}/edit`);
      await expect(page.getByLabel("Track title")).toHaveValue(POST_TITLE);
      await expectNoHorizontalOverflow(page, "post edit");
      await expectNoAxeViolations(page);
      await page.getByRole("link", { name: "Cancel", exact: true }).click();
      await expect(page).toHaveURL(`/post/${postId}`);
      await context.close();
    }
  });

  test("the n shortcut is not offered on a touch screen", async ({ browser, request }) => {
    test.setTimeout(90_000);
    const { newcomer } = await setUp(browser, request);
    const context = await browser.newContext({
      storageState: newcomer.storage,
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    await gotoHydrated(page, "/feed");
    expect(await page.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(true);
    await expect(page.getByRole("link", { name: "Share some music…" })).toBeVisible();
    await expect(page.getByText("Press n to start a post")).toBeHidden();
    await page.getByRole("link", { name: "Share some music…" }).tap();
    await expect(page.getByLabel("Track title")).toBeVisible();
    await expect(page.getByText("Press n to start a post")).toBeHidden();
    await expect(page.getByRole("button", { name: "Cancel", exact: true })).toBeVisible();
    await context.close();
  });
});

test.describe("installable", () => {
  test("the manifest is served, linked and names real icons", async ({ page, request }) => {
    const response = await request.get("/manifest.webmanifest");
    expect(response.ok()).toBe(true);
    expect(response.headers()["content-type"]).toContain("application/manifest+json");
    const manifest = (await response.json()) as {
      name: string;
      short_name: string;
      start_url: string;
      display: string;
      theme_color: string;
      background_color: string;
      icons: { src: string; sizes: string; type: string; purpose?: string }[];
    };
    expect(manifest).toMatchObject({
      name: "Soundtrail",
      start_url: "/feed",
      display: "standalone",
    });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/i);
    const pngs = manifest.icons.filter((icon) => icon.type === "image/png");
    expect(pngs.map((icon) => icon.sizes)).toEqual(expect.arrayContaining(["192x192", "512x512"]));
    expect(pngs.some((icon) => icon.purpose === "maskable")).toBe(true);
    for (const icon of pngs) {
      const file = await request.get(icon.src);
      expect(file.ok(), icon.src).toBe(true);
      const meta = await sharp(await file.body()).metadata();
      expect(`${meta.width}x${meta.height}`, icon.src).toBe(icon.sizes);
      expect(meta.format).toBe("png");
    }

    await gotoHydrated(page, "/feed");
    await expect(page.locator('link[rel="manifest"]')).toHaveAttribute(
      "href",
      "/manifest.webmanifest",
    );
    // "system" colour mode: one toolbar colour per scheme.
    await expect(page.locator('meta[name="theme-color"]')).toHaveCount(2);
    await expect(
      page.locator('meta[name="theme-color"][media="(prefers-color-scheme: dark)"]'),
    ).toHaveAttribute("content", "#030712");
  });
});

test.describe("offline", () => {
  test.use({ serviceWorkers: "allow" });

  test("with the network gone, the worker shows the offline page; live updates still flow", async ({
    browser,
    request,
  }) => {
    test.setTimeout(90_000);
    const { newcomer, postId } = await setUp(browser, request);
    const context = await browser.newContext({
      storageState: newcomer.storage,
      serviceWorkers: "allow",
    });
    const page = await context.newPage();
    await gotoHydrated(page, "/feed");
    // The worker installs, activates and takes the page over.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) {
        await new Promise((resolve) =>
          navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }),
        );
      }
    });
    // The event stream goes past the worker untouched.
    const streamOpened = await page.evaluate(
      () =>
        new Promise<boolean>((resolve) => {
          const source = new EventSource("/api/events");
          source.onopen = () => {
            source.close();
            resolve(true);
          };
          source.onerror = () => {
            source.close();
            resolve(false);
          };
        }),
    );
    expect(streamOpened).toBe(true);
    // Normal navigation under the worker still answers from the network.
    await gotoHydrated(page, `/post/${postId}`);
    await expect(page.getByRole("heading", { level: 1, name: POST_TITLE })).toBeVisible();

    // It keeps the offline page and its icons, and nothing of the person's.
    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const request of await cache.keys()) urls.push(new URL(request.url).pathname);
      }
      return urls.sort();
    });
    expect(cached).toEqual(["/favicon.svg", "/icon-192.png", "/offline.html"]);

    await context.setOffline(true);
    await page.goto(`/u/${newcomer.username}`);
    await expect(page.getByRole("heading", { level: 1, name: "You're offline" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Open your feed" })).toBeVisible();
    await attachScreenshot(page, "offline.png");
    await expectNoAxeViolations(page);

    await context.setOffline(false);
    await gotoHydrated(page, "/feed");
    await expect(page.getByRole("heading", { level: 1, name: "Your feed" })).toBeVisible();
    await context.close();
  });
});
