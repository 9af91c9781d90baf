import { expect, expectNoAxeViolations, gotoHydrated, test } from "./fixtures";

const NAV_LINKS = ["Feed", "Search", "Notifications", "Assistant", "Profile", "Settings"];

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
    await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(0);

    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "System theme" })).toBeFocused();
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

  test("pressing Enter on a focused navigation link opens that page", async ({ page }) => {
    await gotoHydrated(page, "/feed");
    const search = page.getByRole("navigation", { name: "Main" }).getByRole("link", {
      name: "Search",
    });
    await page.keyboard.press("Tab"); // Skip to content
    await page.keyboard.press("Tab"); // logo
    await page.keyboard.press("Tab"); // Feed
    await page.keyboard.press("Tab"); // Search
    await expect(search).toBeFocused();
    await page.keyboard.press("Enter");
    // Search is for members: a signed-out visitor is asked to sign in first.
    await expect(page).toHaveURL("/auth/login?redirectTo=%2Fsearch");
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
    await expect(nav.getByRole("link", { name: "Settings" })).toBeVisible();

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
