import { bodyBackground, expect, gotoHydrated, luminance, test } from "./fixtures";

/** The `data-theme` of the <html> tag in server-rendered HTML. */
const serverTheme = (html: string) => html.match(/<html\b[^>]*\bdata-theme="([^"]*)"/)?.[1];

test.describe("colour mode", () => {
  test("choosing Dark theme keeps the page dark and the server renders it dark after a reload", async ({
    page,
    context,
  }) => {
    await gotoHydrated(page, "/");
    const html = page.locator("html");
    await expect(html).toHaveAttribute("data-theme", "system");

    await page.getByRole("button", { name: "Dark theme" }).click();
    // The toast comes from the root loader's revalidation, so the round trip is complete.
    await expect(page.locator(".Toastify__toast").filter({ hasText: "Dark theme" })).toBeVisible();

    await expect(html).toHaveAttribute("data-theme", "dark");
    await expect(page.getByRole("button", { name: "Dark theme" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    expect(luminance(await bodyBackground(page))).toBeLessThan(0.05);
    const cookies = await context.cookies();
    // React Router's cookie encoding: base64 of the JSON value.
    const stored = cookies.find((cookie) => cookie.name === "st_theme")?.value ?? "";
    expect(JSON.parse(Buffer.from(decodeURIComponent(stored), "base64").toString())).toBe("dark");

    // The server itself renders the saved theme, so the page never flashes light first.
    const fetched = await page.request.get("/");
    expect(serverTheme(await fetched.text())).toBe("dark");
    const reloaded = await page.reload();
    expect(serverTheme((await reloaded?.text()) ?? "")).toBe("dark");
    await expect(html).toHaveAttribute("data-theme", "dark");
  });

  test("a saved Dark theme is already in the server HTML, so the page never flashes light", async ({
    page,
    setColorMode,
  }) => {
    await setColorMode("dark");
    const response = await page.goto("/");
    expect(serverTheme((await response?.text()) ?? "")).toBe("dark");
    const fetched = await page.request.get("/feed");
    expect(serverTheme(await fetched.text())).toBe("dark");

    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    expect(luminance(await bodyBackground(page))).toBeLessThan(0.05);
    await expect(page.getByRole("button", { name: "Dark theme" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
  });

  test("without a saved theme the server HTML says System", async ({ page }) => {
    const response = await page.goto("/");
    expect(serverTheme((await response?.text()) ?? "")).toBe("system");
    await expect(page.getByRole("button", { name: "System theme" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
  });

  test("the theme toast shows bottom right and waits while hovered", async ({ page }) => {
    await gotoHydrated(page, "/");
    await page.getByRole("button", { name: "Dark theme" }).click();

    const toast = page.locator(".Toastify__toast").filter({ hasText: "Dark theme" });
    await expect(toast).toBeVisible();
    await expect(toast).toContainText("Saved for this browser.");
    await expect(page.locator(".Toastify .Toastify__toast-container--bottom-right")).toContainText(
      "Dark theme",
    );

    const viewport = page.viewportSize();
    const box = await toast.boundingBox();
    if (!viewport || !box) throw new Error("toast or viewport has no size");
    expect(box.x + box.width / 2).toBeGreaterThan(viewport.width / 2);
    expect(box.y + box.height / 2).toBeGreaterThan(viewport.height / 2);

    const progress = toast.locator(".Toastify__progress-bar");
    const playState = () => progress.evaluate((el) => getComputedStyle(el).animationPlayState);
    await expect.poll(playState).toBe("running");

    await toast.hover();
    await expect.poll(playState).toBe("paused");
    // Longer than the 5 s auto-close: a hovered toast must stay.
    await page.waitForTimeout(5_500);
    await expect(toast).toBeVisible();
    expect(await playState()).toBe("paused");

    await page.mouse.move(5, 5);
    await expect.poll(playState).toBe("running");
    await expect(toast).toHaveCount(0, { timeout: 7_000 });
  });

  test("with the System preference the page follows a dark device setting", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "system");
    expect(luminance(await bodyBackground(page))).toBeLessThan(0.05);

    await page.emulateMedia({ colorScheme: "light" });
    await expect.poll(async () => luminance(await bodyBackground(page))).toBeGreaterThan(0.9);
  });
});
