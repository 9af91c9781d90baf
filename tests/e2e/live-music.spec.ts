import { type Browser, type Page, test } from "@playwright/test";
import sharp from "sharp";
import {
  clickFollowButton,
  // Not a React hook: each browser context of this spec comes from its own client address.
  useOwnClientAddress as comeFromOwnAddress,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
} from "./fixtures";
import { type Person, signUp } from "./people";

// Music where people look: friends playing now on the feed, counts that move, your picture.

async function pageAs(
  browser: Browser,
  person: Person,
  baseURL: string,
  theme: "light" | "dark" = "light",
): Promise<Page> {
  const context = await browser.newContext({ storageState: person.storage });
  await context.addCookies([{ name: "st_theme", value: theme, url: baseURL }]);
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  return page;
}

/** Opens `path` and waits until the page's live stream (/api/events) is open on the server. */
async function gotoLive(page: Page, path: string): Promise<void> {
  const stream = page.waitForResponse(
    (response) => new URL(response.url()).pathname === "/api/events" && response.status() === 200,
  );
  await gotoHydrated(page, path);
  await stream;
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
  .serial("live music on the feed", () => {
    const run = `${Date.now() % 1_000_000}`;
    let ana: Person;
    let ben: Person;
    let token = "";

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(120_000);
      ana = await signUp(browser, request, `lmana${run}`, "Ana Strip");
      ben = await signUp(browser, request, `lmben${run}`, "Ben Playing");
    });

    test("a friend's scrobble appears in Ana's listening now strip live, in both themes without axe findings", async ({
      browser,
      baseURL,
      request,
    }) => {
      // Two themes of axe on a full feed: minutes on a shared 2-core machine.
      test.setTimeout(300_000);
      if (!baseURL) throw new Error("playwright.config.ts must set use.baseURL");
      // Ana follows Ben (his journey is for followers, the default).
      const anaPage = await pageAs(browser, ana, baseURL);
      await gotoHydrated(anaPage, `/u/${ben.username}`);
      await clickFollowButton(anaPage, "Follow Ben Playing");

      // Ben's player gets a token.
      const benPage = await pageAs(browser, ben, baseURL);
      await gotoHydrated(benPage, "/settings/scrobbling");
      await benPage.getByLabel("Token name").fill("Web Scrobbler");
      await benPage.getByRole("button", { name: "Create token" }).click();
      const field = benPage.getByLabel("New token");
      await expect(field).toHaveValue(/^[0-9a-f-]{36}$/);
      token = await field.inputValue();

      await gotoLive(anaPage, "/feed");
      await markDocument(anaPage);
      const strip = anaPage.getByRole("region", { name: "Listening now" });
      await expect(strip).toHaveCount(0);

      const sent = await request.post("/1/submit-listens", {
        headers: { Authorization: `Token ${token}`, "Content-Type": "application/json" },
        data: {
          listen_type: "playing_now",
          payload: [
            {
              track_metadata: {
                artist_name: "Broadcast",
                track_name: "Black Cat",
                release_name: "Tender Buttons",
                additional_info: { duration_ms: 600_000 },
              },
            },
          ],
        },
      });
      expect(sent.status()).toBe(200);

      // It arrives without a reload: Ben, the track, its cover, a link to his profile.
      await expect(strip).toBeVisible();
      const card = strip.getByRole("link", { name: /Ben Playing/ });
      await expect(card).toContainText("Black Cat");
      await expect(card).toContainText("Broadcast");
      await expect(card).toHaveAttribute("href", `/u/${ben.username}`);
      await expect(card.locator("img[src^='/art/']")).toHaveCount(1);
      await expectSameDocument(anaPage);
      await expectNoAxeViolations(anaPage);

      // Dark theme, a phone's width: still readable, nothing for axe.
      const dark = await pageAs(browser, ana, baseURL, "dark");
      await dark.setViewportSize({ width: 390, height: 844 });
      await gotoHydrated(dark, "/feed");
      await expect(dark.getByRole("region", { name: "Listening now" })).toContainText("Black Cat");
      await expect(dark.locator("html")).toHaveAttribute("data-theme", "dark");
      await expectNoAxeViolations(dark);

      // Ben pauses "now playing" in his privacy settings: it leaves Ana's strip live.
      await gotoHydrated(benPage, "/settings/privacy");
      await benPage.getByRole("checkbox", { name: "Pause “now playing”" }).check();
      await benPage.getByRole("button", { name: "Save journey settings" }).click();
      await expect(strip).toHaveCount(0);
      await expectSameDocument(anaPage);
      for (const page of [anaPage, benPage, dark]) await page.context().close();
    });

    test("like and comment counts move on a card when someone else likes or comments", async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(180_000);
      if (!baseURL) throw new Error("playwright.config.ts must set use.baseURL");
      const benPage = await pageAs(browser, ben, baseURL);
      const title = `Pendulum ${run}`;
      await gotoHydrated(benPage, "/feed");
      await benPage.locator("body").press("n");
      await benPage.getByLabel("Track title").fill(title);
      await benPage.getByRole("combobox", { name: "Artist", exact: true }).fill("Broadcast");
      await benPage.getByRole("button", { name: "Share", exact: true }).click();
      await expect(benPage.getByText(`“${title}” is on your feed.`)).toBeVisible();
      const href = await benPage
        .getByRole("link", { name: title, exact: true })
        .first()
        .getAttribute("href");
      const postId = href?.match(/\/post\/([0-9a-f-]{36})/)?.[1];
      if (!postId) throw new Error(`no post id in ${href}`);

      // Ana, a follower, has her feed open; Ben too.
      const anaPage = await pageAs(browser, ana, baseURL);
      await gotoLive(anaPage, "/feed");
      await gotoLive(benPage, "/feed");
      await markDocument(benPage);
      const benCard = benPage.locator(`#post-${postId}`);
      const likeOf = (card: typeof benCard) => card.locator("footer form button");
      const commentsOf = (card: typeof benCard) => card.locator("footer a[href$='#comments']");
      await expect(likeOf(benCard)).toHaveText("Like, 0 likes");
      await expect(commentsOf(benCard)).toHaveText("0 comments");

      // Ana likes it from her feed: Ben's card counts 1 without a reload.
      const anaCard = anaPage.locator(`#post-${postId}`);
      await likeOf(anaCard).click();
      await expect(likeOf(anaCard)).toHaveAttribute("aria-pressed", "true");
      await expect(likeOf(benCard)).toHaveText("Like, 1 like");
      await expect(likeOf(benCard)).toHaveAttribute("aria-pressed", "false");

      // Ana comments on the post page: the comment count moves on Ben's card, and on Ana's feed
      // card the like stays hers.
      await gotoHydrated(anaPage, `/post/${postId}`);
      await anaPage.getByLabel("Add a comment").fill("That bassline");
      await anaPage.getByRole("button", { name: "Comment", exact: true }).click();
      await expect(commentsOf(benCard)).toHaveText("1 comment");
      await expect(commentsOf(benCard)).toHaveAccessibleName("1 comment");
      await expectSameDocument(benPage);

      // Ben's own like from another tab moves his first tab's card, pressed.
      const benOther = await benPage.context().newPage();
      await comeFromOwnAddress(benOther);
      await gotoHydrated(benOther, `/post/${postId}`);
      await likeOf(benOther.locator(`#post-${postId}`)).click();
      await expect(likeOf(benCard)).toHaveText("Like, 2 likes");
      await expect(likeOf(benCard)).toHaveAttribute("aria-pressed", "true");
      await anaPage.context().close();
      await benPage.context().close();
    });

    test("the header shows the person's picture once they have one, their initial before", async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(90_000);
      if (!baseURL) throw new Error("playwright.config.ts must set use.baseURL");
      const page = await pageAs(browser, ana, baseURL);
      await gotoHydrated(page, "/feed");
      const summary = page.getByRole("banner").locator("summary", { hasText: "Account menu" });
      // No picture yet: the initial.
      await expect(summary.locator("img")).toHaveCount(0);
      await expect(summary).toContainText("A");

      await gotoHydrated(page, "/settings/profile");
      const picture = await sharp({
        create: { width: 400, height: 400, channels: 3, background: { r: 21, g: 128, b: 61 } },
      })
        .png()
        .toBuffer();
      await page
        .getByLabel("Choose a picture")
        .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: picture });
      await page.getByRole("button", { name: "Upload picture" }).click();
      await expect(page.getByText("Picture updated")).toBeVisible();
      await gotoHydrated(page, "/feed");
      await expect(summary.locator("img")).toHaveAttribute("src", /^\/media\/[0-9a-f-]{36}$/);
      await expect(summary).toHaveAccessibleName(/Account menu, Ana Strip/);
      await page.context().close();
    });
  });
