import { expect, gotoHydrated, test } from "./fixtures";

const membersOnly = ["/profile", "/search", "/notifications", "/chatbot", "/settings", "/admin"];

test.describe("signed-out visitors", () => {
  for (const path of membersOnly) {
    test(`opening ${path} asks to sign in and remembers where they were going`, async ({
      page,
    }) => {
      const response = await page.goto(path);
      await expect(page).toHaveURL(`/auth/login?redirectTo=${encodeURIComponent(path)}`);
      expect(new URL(page.url()).searchParams.get("redirectTo")).toBe(path);
      expect(response?.request().redirectedFrom()?.url()).toMatch(new RegExp(`${path}$`));
      await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    });
  }

  test("the query string is remembered too", async ({ page }) => {
    await page.goto("/search?q=radiohead");
    expect(new URL(page.url()).pathname).toBe("/auth/login");
    expect(new URL(page.url()).searchParams.get("redirectTo")).toBe("/search?q=radiohead");
  });

  const publicPages = [
    { path: "/", heading: "Share your music journey with friends." },
    { path: "/feed", heading: "Public feed" },
    { path: "/auth/login", heading: "Sign in" },
  ];
  for (const { path, heading } of publicPages) {
    test(`${path} opens without a redirect`, async ({ page }) => {
      const response = await page.goto(path);
      expect(response?.status()).toBe(200);
      expect(response?.request().redirectedFrom()).toBeNull();
      await expect(page).toHaveURL(path);
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    });
  }

  test("following a person's link in the public feed ends on sign-in with their preview", async ({
    page,
  }) => {
    await gotoHydrated(page, "/feed");
    // Survives only if the app navigates in place instead of loading a new document.
    await page.evaluate(() => {
      (window as { stillSamePage?: boolean }).stillSamePage = true;
    });
    const person = page.locator('main a[href^="/u/"]').first();
    const href = (await person.getAttribute("href")) ?? "";
    await person.click();
    await expect(page).toHaveURL(`/auth/login?${new URLSearchParams({ redirectTo: href })}`);
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Shared with you" })).toBeVisible();
    expect(await page.evaluate(() => (window as { stillSamePage?: boolean }).stillSamePage)).toBe(
      true,
    );
  });
});
