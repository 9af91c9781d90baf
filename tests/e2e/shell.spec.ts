import { expect, expectNoAxeViolations, gotoHydrated, test, waitForHydration } from "./fixtures";
import { signUp } from "./people";

/** What a signed-out visitor is offered: only what they can open (spec §6). */
const NAV_LINKS = ["Feed"];
const MEMBER_LINKS = ["Search", "Notifications", "Assistant", "Profile", "Settings", "Admin"];

test.describe("app shell keyboard navigation", () => {
  test("Tab reaches Skip to content, then the logo, then the main navigation in order", async ({
    page,
  }) => {
    await gotoHydrated(page, "/feed");

    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    // Visually hidden until focused, then shown on screen.
    const box = await skip.boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(20);

    await page.keyboard.press("Tab");
    await expect(page.getByRole("banner").getByRole("link", { name: "Soundtrail" })).toBeFocused();

    const nav = page.getByRole("navigation", { name: "Main" });
    for (const name of NAV_LINKS) {
      await page.keyboard.press("Tab");
      await expect(nav.getByRole("link", { name, exact: true })).toBeFocused();
    }
    for (const name of MEMBER_LINKS) {
      await expect(nav.getByRole("link", { name, exact: true })).toHaveCount(0);
    }

    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "System theme" })).toBeFocused();
  });

  test("a signed-out visitor is offered Sign in and Join, not pages that bounce", async ({
    page,
  }) => {
    await gotoHydrated(page, "/feed");
    const banner = page.getByRole("banner");
    await expect(banner.getByRole("link", { name: "Sign in" })).toBeVisible();
    await expect(banner.getByRole("link", { name: "Join" })).toBeVisible();
    await expect(
      page.getByRole("contentinfo").getByRole("link", { name: "Create an account" }),
    ).toBeVisible();
  });

  test("Skip to content moves keyboard focus past the header", async ({ page }) => {
    await gotoHydrated(page, "/feed");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    // The next stop is the first control inside the main content, not the header's navigation.
    await expect
      .poll(() =>
        page.evaluate(() => {
          const active = document.activeElement;
          return Boolean(
            active && active !== document.body && document.getElementById("main")?.contains(active),
          );
        }),
      )
      .toBe(true);
    await expect(page.getByRole("navigation", { name: "Main" }).locator(":focus")).toHaveCount(0);
  });

  test("pressing Enter on the focused Sign in link opens the sign-in page", async ({ page }) => {
    await gotoHydrated(page, "/feed");
    const signIn = page.getByRole("banner").getByRole("link", { name: "Sign in" });
    await signIn.focus();
    await expect(signIn).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL("/auth/login");
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  });

  test("the feed has no accessibility violations", async ({ page }) => {
    await gotoHydrated(page, "/feed");
    await expect(page.getByRole("heading", { level: 1, name: "Public feed" })).toBeVisible();
    await expectNoAxeViolations(page);
  });
});

test.describe("app shell on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the navigation hides behind Open menu and Escape closes it again", async ({ page }) => {
    await gotoHydrated(page, "/feed");
    const nav = page.getByRole("navigation", { name: "Main" });
    const feedLink = nav.getByRole("link", { name: "Feed", exact: true });
    await expect(feedLink).toBeHidden();

    const open = page.getByRole("button", { name: "Open menu" });
    await expect(open).toHaveAttribute("aria-expanded", "false");
    await open.click();

    const close = page.getByRole("button", { name: "Close menu" });
    await expect(close).toHaveAttribute("aria-expanded", "true");
    await expect(feedLink).toBeVisible();
    await expect(nav.getByRole("link", { name: "Settings" })).toHaveCount(0);
    await expect(page.getByRole("banner").getByRole("link", { name: "Join" })).toBeVisible();

    await page.keyboard.press("Escape");
    await expect(feedLink).toBeHidden();
    await expect(page.getByRole("button", { name: "Open menu" })).toHaveAttribute(
      "aria-expanded",
      "false",
    );
  });

  test("the feed has no accessibility violations on a phone", async ({ page }) => {
    await gotoHydrated(page, "/feed");
    await expectNoAxeViolations(page);
  });
});

test.describe("the account menu", () => {
  test("opens from the avatar by keyboard; Escape closes it and gives focus back", async ({
    browser,
    request,
  }) => {
    const person = await signUp(browser, request, `menu${Date.now() % 1_000_000}`, "Menu Mia");
    const context = await browser.newContext({ storageState: person.storage });
    const page = await context.newPage();
    await gotoHydrated(page, "/feed");
    const summary = page.getByRole("banner").locator("summary", { hasText: "Account menu" });
    await expect(summary).toContainText("Account menu, Menu Mia");
    // Profile, settings and sign out live in the menu, not in the header's row of links.
    await expect(
      page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }),
    ).toHaveCount(0);
    await summary.focus();
    await page.keyboard.press("Enter");
    const banner = page.getByRole("banner");
    const profile = banner.getByRole("link", { name: "Profile", exact: true });
    await expect(profile).toBeVisible();
    await expect(banner.getByRole("link", { name: "Admin" })).toHaveCount(0);
    await expect(banner.getByRole("button", { name: "Dark theme" })).toBeVisible();
    await expectNoAxeViolations(page);
    await page.keyboard.press("Tab");
    await expect(profile).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(profile).toBeHidden();
    await expect(summary).toBeFocused();
    await page.keyboard.press("Enter");
    await banner.getByRole("link", { name: "Settings", exact: true }).click();
    await expect(page).toHaveURL(/\/settings/);
    await expect(banner.getByRole("link", { name: "Profile", exact: true })).toBeHidden();
    await context.close();
  });

  test("opened before the page is hydrated, it stays open with its items", async ({
    browser,
    request,
  }) => {
    const person = await signUp(browser, request, `early${Date.now() % 1_000_000}`, "Early Eli");
    const context = await browser.newContext({ storageState: person.storage });
    const page = await context.newPage();
    // Hold the page's scripts until the menu is open.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/assets/*.js", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/feed");
    const summary = page.getByRole("banner").locator("summary", { hasText: "Account menu" });
    await summary.click();
    const signOut = page.getByRole("button", { name: "Sign out", exact: true });
    await expect(signOut).toBeVisible();
    release();
    await waitForHydration(page);
    // Hydrated: the items are React's now, and still there.
    await expect(signOut).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(signOut).toBeHidden();
    await context.close();
  });
});
