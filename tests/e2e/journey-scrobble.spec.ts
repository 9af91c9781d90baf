import { type Browser, type Page, test } from "@playwright/test";
import { COLOR_MODE_COOKIE, expect, expectNoAxeViolations, gotoHydrated } from "./fixtures";
import { type Person, signUp } from "./people";

async function pageAs(browser: Browser, person: Person, mode?: "light" | "dark"): Promise<Page> {
  const context = await browser.newContext({ storageState: person.storage });
  const baseURL = test.info().project.use.baseURL;
  if (mode && baseURL) {
    await context.addCookies([{ name: COLOR_MODE_COOKIE, value: mode, url: baseURL }]);
  }
  return context.newPage();
}

/** Creates a token on Settings → Connected players and returns it as the page shows it, once. */
async function createToken(page: Page, name: string): Promise<string> {
  await page.getByLabel("Token name").fill(name);
  await page.getByRole("button", { name: "Create token" }).click();
  const field = page.getByLabel("New token");
  await expect(field).toHaveValue(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  // Settled: the list below has it (the page reloaded its data after the action).
  await expect(page.getByRole("list", { name: "Working tokens" })).toContainText(name);
  await expect(page.getByRole("button", { name: "Create token" })).toBeEnabled();
  return field.inputValue();
}

test.describe
  .serial("live scrobbling through the ListenBrainz API", () => {
    const run = `${Date.now() % 1_000_000}`;
    let person: Person;

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(90_000);
      person = await signUp(browser, request, `scrob${run}`, "Sofia Scrobbler");
    });

    test("a token made in settings lets a player show now playing, until it is revoked", async ({
      browser,
      request,
    }) => {
      test.setTimeout(90_000);
      const page = await pageAs(browser, person);
      await gotoHydrated(page, "/settings");
      await page
        .getByRole("navigation", { name: "All settings" })
        .getByRole("link", { name: /Connected players/ })
        .click();
      await expect(page).toHaveURL(/\/settings\/scrobbling$/);
      await expect(
        page.getByRole("heading", { name: "Connected players", level: 2 }),
      ).toBeVisible();
      await expect(page.getByText("No player is connected yet.")).toBeVisible();

      // A name is required, and the reason is shown by the field.
      await page.getByRole("button", { name: "Create token" }).click();
      await expect(
        page.getByText("Give the token a name, such as the player that will use it."),
      ).toBeVisible();

      const token = await createToken(page, "Navidrome at home");
      const tokens = page.getByRole("list", { name: "Working tokens" });
      await expect(tokens).toContainText("Navidrome at home");
      await expect(tokens).toContainText(`…${token.slice(-4)}`);
      await expect(tokens).toContainText("never used yet");

      // The player checks its token as Navidrome does: a GET that carries "{}" as its body.
      const validate = await request.fetch("/1/validate-token", {
        method: "GET",
        headers: { Authorization: `Token ${token}` },
        data: "{}",
      });
      expect(validate.status()).toBe(200);
      expect(await validate.json()).toEqual({
        code: 200,
        message: "Token valid.",
        valid: true,
        user_name: person.username,
      });

      // It says what is playing, as Web Scrobbler sends it.
      const playing = await request.post("/1/submit-listens", {
        headers: {
          Authorization: `Token ${token}`,
          "Content-Type": "application/json; charset=UTF-8",
        },
        data: {
          listen_type: "playing_now",
          payload: [
            {
              track_metadata: {
                artist_name: "Broadcast",
                track_name: "Black Cat",
                release_name: "Tender Buttons",
                additional_info: {
                  submission_client: "Web Scrobbler",
                  submission_client_version: "3.9.0",
                  music_service_name: "Bandcamp",
                  duration: 214,
                },
              },
            },
          ],
        },
      });
      expect(playing.status()).toBe(200);
      expect(await playing.json()).toEqual({ status: "ok" });
      expect(playing.headers()["x-ratelimit-limit"]).toBeTruthy();

      await gotoHydrated(page, "/profile");
      const nowPlaying = page.getByRole("region", { name: "Now playing" });
      await expect(nowPlaying).toContainText("Black Cat");
      await expect(nowPlaying).toContainText("Broadcast");

      // Back in settings the token is never shown again; it was used.
      await gotoHydrated(page, "/settings/scrobbling");
      await expect(page.getByLabel("New token")).toHaveCount(0);
      await expect(page.getByText(token)).toHaveCount(0);
      await expect(page.getByRole("list", { name: "Working tokens" })).toContainText("last used");

      await page.getByRole("button", { name: "Revoke Navidrome at home" }).click();
      const dialog = page.getByRole("dialog", { name: "Revoke “Navidrome at home”?" });
      await expect(dialog).toBeVisible();
      await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
      await expect(page.getByText("Revoked “Navidrome at home”")).toBeVisible();
      await expect(page.getByRole("list", { name: "Revoked tokens" })).toContainText(
        "Navidrome at home",
      );
      await expect(page.getByText("No player is connected yet.")).toBeVisible();

      const refused = await request.post("/1/submit-listens", {
        headers: { Authorization: `Token ${token}` },
        data: {
          listen_type: "single",
          payload: [
            {
              listened_at: Math.floor(Date.now() / 1000) - 60,
              track_metadata: { artist_name: "Broadcast", track_name: "Black Cat" },
            },
          ],
        },
      });
      expect(refused.status()).toBe(401);
      expect(await refused.json()).toEqual({ code: 401, error: "Invalid authorization token." });
      await page.context().close();
    });

    test("the server takes what players send: extension origins, preflights, ListenBrainz's size limit", async ({
      browser,
      request,
    }) => {
      test.setTimeout(60_000);
      const page = await pageAs(browser, person);
      await gotoHydrated(page, "/settings/scrobbling");
      const token = await createToken(page, "Web Scrobbler");
      await page.context().close();

      // A browser extension's fetch carries its own Origin: no CSRF refusal for a token API.
      const preflight = await request.fetch("/1/submit-listens", {
        method: "OPTIONS",
        headers: {
          Origin: "chrome-extension://hhinaapppaileiechjoiifaancjggfjm",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization,content-type",
        },
      });
      expect(preflight.status()).toBe(200);
      expect(preflight.headers()["access-control-allow-origin"]).toBe("*");
      expect(preflight.headers()["access-control-allow-headers"]).toBe(
        "Authorization, Content-Type",
      );

      const listenedAt = Math.floor(Date.now() / 1000) - 120;
      const fromExtension = await request.post("/1/submit-listens", {
        headers: {
          Origin: "chrome-extension://hhinaapppaileiechjoiifaancjggfjm",
          Authorization: `Token ${token}`,
          "Content-Type": "text/plain;charset=UTF-8",
        },
        data: JSON.stringify({
          listen_type: "import",
          payload: [
            {
              listened_at: listenedAt,
              track_metadata: {
                artist_name: "Stereolab",
                track_name: "French Disko",
                additional_info: { submission_client: "Web Scrobbler", duration: 259 },
              },
            },
          ],
        }),
      });
      expect(fromExtension.status()).toBe(200);
      expect(await fromExtension.json()).toEqual({ status: "ok" });

      const tooLarge = await request.post("/1/submit-listens", {
        headers: { Authorization: `Token ${token}`, "Content-Type": "application/json" },
        data: "x".repeat(10_240_001),
      });
      expect(tooLarge.status()).toBe(400);
      expect(await tooLarge.json()).toEqual({
        code: 400,
        error: "Payload too large. Payload cannot exceed 10240000 bytes",
      });
    });

    test("the connected players page fits a phone screen", async ({ browser }) => {
      const context = await browser.newContext({
        storageState: person.storage,
        viewport: { width: 360, height: 740 },
      });
      const page = await context.newPage();
      await gotoHydrated(page, "/settings/scrobbling");
      await createToken(page, "Pano Scrobbler on my phone");
      await expect(page.getByRole("button", { name: "Copy token" })).toBeVisible();
      // What sticks out past the right edge, named so a failure says where to look.
      const wide = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        return [...document.querySelectorAll("body *")]
          .filter((el) => el.getBoundingClientRect().right > width + 0.5)
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()} ${(el.textContent ?? "").slice(0, 40)}`);
      });
      expect(wide, "nothing wider than the screen").toEqual([]);
      await page.screenshot({ path: test.info().outputPath("phone.png"), fullPage: true });
      await context.close();
    });

    for (const mode of ["light", "dark"] as const) {
      test(`the connected players page, with a new token shown, passes axe in ${mode} mode`, async ({
        browser,
      }) => {
        const page = await pageAs(browser, person, mode);
        await gotoHydrated(page, "/settings/scrobbling");
        await createToken(page, `Jellyfin ${mode}`);
        await expectNoAxeViolations(page);
        await page.context().close();
      });
    }
  });
