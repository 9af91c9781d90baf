import os from "node:os";
import path from "node:path";
import { E2E_MEMBER, E2E_PASSWORD } from "../support/e2e-accounts";
import { expect, expectNoAxeViolations, test } from "./fixtures";
import { signInSeeded } from "./people";

const MEMBER_STATE = path.join(
  os.tmpdir(),
  `soundtrail-e2e-${process.env.E2E_SLOT ?? "0"}-not-found-member.json`,
);

test.describe("unknown pages", () => {
  test("an unknown page answers 404 and says which page was not found", async ({ page }) => {
    const response = await page.goto("/does-not-exist");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "Not Found" })).toBeVisible();
    await expect(page.getByText("Page not found: /does-not-exist")).toBeVisible();
    // The app's header, navigation and footer stay around it (issue 38), one <main>.
    await expect(page.getByRole("banner")).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.getByRole("contentinfo")).toBeVisible();
    await expect(page.getByRole("main")).toHaveCount(1);
  });

  for (const theme of ["light", "dark"] as const) {
    test(`an unknown page has no axe violations (${theme})`, async ({ page, setColorMode }) => {
      await setColorMode(theme);
      const response = await page.goto("/no-such-page");
      expect(response?.status()).toBe(404);
      await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
      await expectNoAxeViolations(page);
    });
  }

  test("an unknown page under /auth/ answers 404 too", async ({ page }) => {
    const response = await page.goto("/auth/nope");
    expect(response?.status()).toBe(404);
    // The status message matches the code (it once read "404 / Internal Server Error").
    await expect(page.getByRole("heading", { level: 1, name: "Not Found" })).toBeVisible();
    await expect(page.getByText("Page not found: /auth/nope")).toBeVisible();
    // Inside the sign-in pages' layout: their logo link and colour switch stay.
    await expect(page.getByRole("banner").getByRole("link", { name: /Soundtrail/ })).toBeVisible();
    await expect(page.getByRole("main")).toHaveCount(1);
  });

  test("a post that does not exist sends a signed-out visitor to sign in", async ({ page }) => {
    await page.goto("/post/anything");
    await expect(page).toHaveURL("/auth/login?redirectTo=%2Fpost%2Fanything");
  });

  test.describe("signed in", () => {
    test.beforeAll(async ({ browser }) => {
      await signInSeeded(browser, E2E_MEMBER.email, E2E_PASSWORD, MEMBER_STATE);
    });
    test.use({ storageState: MEMBER_STATE });

    test("a post that does not exist is the 404 page", async ({ page }) => {
      const response = await page.goto("/post/anything");
      expect(response?.status()).toBe(404);
      await expect(page.getByRole("heading", { level: 1, name: "Not Found" })).toBeVisible();
      await expect(page.getByText("Page not found: /post/anything")).toBeVisible();
      // The app's layout stays around the error: the header, its navigation and the footer.
      await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
      await expect(page.getByRole("contentinfo")).toBeVisible();
      await expect(page.getByRole("main")).toHaveCount(1);
      await expectNoAxeViolations(page);
    });
  });

  test("the Go Home button on the error page leads back to the landing page", async ({ page }) => {
    await page.goto("/does-not-exist");
    const goHome = page.getByRole("link", { name: "Go Home" });
    await expect(goHome).toBeVisible();
    await goHome.click();
    await expect(page).toHaveURL("/");
    await expect(
      page.getByRole("heading", { level: 1, name: "Share your music journey with friends." }),
    ).toBeVisible();
  });

  test("the 404 page has no accessibility violations", async ({ page }) => {
    await page.goto("/does-not-exist");
    await expect(page.getByText("Page not found: /does-not-exist")).toBeVisible();
    await expectNoAxeViolations(page);
  });
});
