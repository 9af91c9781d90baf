import { SHARED_POSTS } from "../support/e2e-accounts";
import { expect, expectNoAxeViolations, test } from "./fixtures";

test.describe("landing page", () => {
  test("shows the Soundtrail title, description and social preview tags", async ({ page }) => {
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    await expect(page).toHaveTitle("Soundtrail");
    await expect(page.locator('meta[name="description"]')).toHaveAttribute(
      "content",
      "Share your music journey with friends",
    );
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute(
      "content",
      "Soundtrail",
    );
    await expect(
      page.getByRole("heading", { level: 1, name: "Share your music journey with friends." }),
    ).toBeVisible();
  });

  test("Happening now lists the latest public posts, never a private one", async ({ page }) => {
    await page.goto("/");
    const latest = page.getByRole("list", { name: "Latest public posts" });
    await expect(latest.getByRole("listitem").first()).toBeVisible();
    expect(await latest.getByRole("listitem").count()).toBeLessThanOrEqual(3);
    await expect(page.getByText("No public posts yet")).toHaveCount(0);
    await expect(page.getByText(SHARED_POSTS.followersOnly.title)).toHaveCount(0);
    await page.getByRole("link", { name: "See the whole public feed" }).click();
    await expect(page).toHaveURL("/feed");
  });

  test("the sign-up call to action leads to the sign-up page", async ({ page }) => {
    await page.goto("/");
    const cta = page.getByRole("main").getByRole("link", { name: "Create your account" });
    await expect(cta).toBeVisible();
    await expect(cta).toHaveAttribute("href", "/auth/signup");
    await cta.click();
    await expect(page).toHaveURL("/auth/signup");
    await expect(page.getByRole("heading", { name: "Create your account" })).toBeVisible();
  });

  test("has no accessibility violations in the light theme", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "system");
    await expectNoAxeViolations(page);
  });

  test("has no accessibility violations in the dark theme", async ({ page, setColorMode }) => {
    await setColorMode("dark");
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await expectNoAxeViolations(page);
  });
});
