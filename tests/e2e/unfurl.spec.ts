import { type Browser, type Page, test } from "@playwright/test";
import { expect, expectNoAxeViolations, gotoHydrated } from "./fixtures";
import { type Person, signUp } from "./people";

/*
 * Link previews against the fake music service the suite's server is configured with
 * (playwright.config.ts: every UNFURL_*_URL points at it, PLAYER_FRAME_ORIGINS allows its
 * player page). Nothing here reaches the internet.
 */
const FAKE = process.env.FAKE_MUSIC_ORIGIN ?? "";

/** Shares a track with a streaming link from the feed's composer, as the page's person. */
async function shareTrack(page: Page, title: string, link: string) {
  await gotoHydrated(page, "/feed");
  await page.locator("body").press("n");
  await page.getByLabel("Track title").fill(title);
  await page.getByRole("combobox", { name: "Artist", exact: true }).fill("Portishead");
  await page.getByLabel("Streaming link").fill(link);
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page.getByText("is on your feed")).toBeVisible();
  return page.locator("article").filter({ hasText: title }).first();
}

test.describe
  .serial("link previews and players", () => {
    const run = `${Date.now() % 1_000_000}`;
    const trackId = `e2eTrack${run}`;
    let alice: Person;
    let postId = "";

    async function alicePage(browser: Browser): Promise<Page> {
      const context = await browser.newContext({ storageState: alice.storage });
      return context.newPage();
    }

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(60_000);
      alice = await signUp(browser, request, `unfurl${run}`, "Una Furl");
    });

    test("a shared link's card fills in with its artwork, and Play loads the player only then", async ({
      browser,
    }) => {
      expect(FAKE).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const page = await alicePage(browser);
      const card = await shareTrack(page, "Roads", `https://open.spotify.com/track/${trackId}`);
      // The post is there at once; its artwork arrives over the live stream, stored locally.
      const cover = card.locator(".post-music > img");
      await expect(cover).toHaveAttribute("src", /^\/art\/[0-9a-f]{64}\.webp$/, {
        timeout: 15_000,
      });
      await expect
        .poll(() => cover.evaluate((img: HTMLImageElement) => img.naturalWidth))
        .toBe(640);
      await expect(card.getByText("Roads (Live) · Portishead")).toBeVisible();
      const href = await card
        .getByRole("link", { name: "Roads", exact: true })
        .getAttribute("href");
      postId = href?.match(/\/post\/([0-9a-f-]{36})/)?.[1] ?? "";
      expect(postId).not.toBe("");

      // No third-party frame until asked for; the service's page is always one click away.
      await expect(card.locator("iframe")).toHaveCount(0);
      await expect(card.getByRole("link", { name: "Open in Spotify" })).toHaveAttribute(
        "href",
        `https://open.spotify.com/track/${trackId}`,
      );
      await expectNoAxeViolations(page);

      await card.getByRole("button", { name: /^Play/ }).click();
      const frame = card.locator('iframe[title="Spotify player: Roads"]');
      await expect(frame).toHaveAttribute("src", `${FAKE}/player?id=${trackId}&utm=1`);
      await expect(frame).toBeFocused();
      // The CSP lets this configured origin frame the player (and its page loads in it).
      await expect(
        card
          .frameLocator('iframe[title="Spotify player: Roads"]')
          .getByText(`Fake player for ${trackId}`),
      ).toBeVisible();
      await expect(card.getByText("Loading the player…")).toHaveCount(0);
      await page.context().close();
    });

    test("the post page shows the art and offers it as the Open Graph image", async ({
      browser,
    }) => {
      const page = await alicePage(browser);
      const response = await page.goto(`/post/${postId}`);
      const frameSrc = (response?.headers()["content-security-policy"] ?? "")
        .split(";")
        .map((d) => d.trim().split(" "))
        .find((d) => d[0] === "frame-src");
      expect(frameSrc).toContain(FAKE);
      expect(frameSrc).toContain("https://open.spotify.com");
      const art = await page.locator("article .post-music > img").getAttribute("src");
      expect(art).toMatch(/^\/art\/[0-9a-f]{64}\.webp$/);
      await expect(page.locator('meta[property="og:image"]')).toHaveAttribute(
        "content",
        new RegExp(`${art?.replace(/\./g, "\\.")}$`),
      );
      const image = await page.request.get(art ?? "");
      expect(image.status()).toBe(200);
      expect(image.headers()["content-type"]).toBe("image/webp");
      expect(image.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
      await page.context().close();
    });

    test("a player that does not load says so, and the service's page is still offered", async ({
      browser,
    }) => {
      const page = await alicePage(browser);
      const card = await shareTrack(
        page,
        "Wandering Star",
        `https://open.spotify.com/track/hang${run}`,
      );
      await expect(card.locator(".post-music > img")).toHaveAttribute("src", /\.webp$/, {
        timeout: 15_000,
      });
      // The page's clock, not the test's: the player's load timeout passes at once.
      await page.clock.install();
      await card.getByRole("button", { name: /^Play/ }).click();
      await expect(card.getByText("Loading the player…")).toBeVisible();
      await page.clock.runFor(16_000);
      await expect(card.getByRole("alert")).toHaveText(
        "The Spotify player did not load. Try the link below, or reload the page.",
      );
      await expect(card.locator("iframe")).toHaveCount(0);
      await expect(card.getByRole("link", { name: "Open in Spotify" })).toBeVisible();
      await page.context().close();
    });

    test("a player whose service cannot be reached says it did not load instead of a broken frame", async ({
      browser,
    }) => {
      const page = await alicePage(browser);
      const card = await shareTrack(
        page,
        "Unreachable Star",
        `https://open.spotify.com/track/unreachable${run}`,
      );
      // The player's host is unreachable: its frame fires `load` with the browser's error page.
      await page.route(/\/player\?|open\.spotify\.com\/embed/, (route) =>
        route.abort("namenotresolved"),
      );
      await card.getByRole("button", { name: /^Play/ }).click();
      await expect(card.getByRole("alert")).toHaveText(
        "The Spotify player did not load. Try the link below, or reload the page.",
      );
      await expect(card.locator("iframe")).toHaveCount(0);
      await expect(card.getByRole("link", { name: "Open in Spotify" })).toBeVisible();
      await page.context().close();
    });

    test("a link whose service does not answer still shows its post, with the generated cover", async ({
      browser,
    }) => {
      const page = await alicePage(browser);
      const card = await shareTrack(
        page,
        "Glory Box",
        `https://open.spotify.com/track/missing${run}`,
      );
      await expect(card).toBeVisible();
      await expect(card.locator(".post-music > img")).toHaveAttribute(
        "src",
        /^\/art\/[0-9a-f]{16}\.webp$/,
      );
      await expect(card.getByRole("button", { name: /^Play/ })).toBeVisible();
      await page.context().close();
    });
  });
