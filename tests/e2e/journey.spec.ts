import os from "node:os";
import path from "node:path";
import {
  E2E_PASSWORD,
  JOURNEY_FOLLOWER,
  JOURNEY_OWNER,
  JOURNEY_PLAYS,
  JOURNEY_STRANGER,
} from "../support/e2e-accounts";
import { expect, expectNoAxeViolations, gotoHydrated, test } from "./fixtures";
import { signInSeeded } from "./people";

// Jo (seeded with plays, journey shared with followers by default), Fay who follows Jo, and Stan
// who does not: see tests/support/seeds/journey.ts.
const SLOT = process.env.E2E_SLOT ?? "0";
const state = (who: string) => path.join(os.tmpdir(), `soundtrail-e2e-${SLOT}-journey-${who}.json`);
const OWNER_STATE = state("owner");
const FOLLOWER_STATE = state("follower");
const STRANGER_STATE = state("stranger");
const JOURNEY_PATH = `/u/${JOURNEY_OWNER.username}/journey`;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(60_000);
  await signInSeeded(browser, JOURNEY_OWNER.email, E2E_PASSWORD, OWNER_STATE);
  await signInSeeded(browser, JOURNEY_FOLLOWER.email, E2E_PASSWORD, FOLLOWER_STATE);
  await signInSeeded(browser, JOURNEY_STRANGER.email, E2E_PASSWORD, STRANGER_STATE);
});

test.describe("the owner", () => {
  test.use({ storageState: OWNER_STATE });

  test("sees their top artists on their profile and the listening clock on their journey", async ({
    page,
  }) => {
    await gotoHydrated(page, "/profile");
    const section = page.getByRole("region", { name: "Your journey" });
    const top = section.getByRole("list", { name: "Top artists of the last 30 days" });
    await expect(top.getByRole("listitem")).toHaveText([
      /Cocteau Twins \(6 plays\)/,
      /Slowdive \(4 plays\)/,
      /Mazzy Star \(2 plays\)/,
    ]);
    await section.getByRole("link", { name: "See the full journey" }).click();
    await expect(page).toHaveURL(new RegExp(`${JOURNEY_PATH}$`));
    await expect(page.getByRole("heading", { name: "Your journey", level: 1 })).toBeVisible();
    await expect(
      page.getByRole("list", { name: "Top artists" }).getByRole("listitem").first(),
    ).toContainText("Cocteau Twins");
    const total = JOURNEY_PLAYS.reduce((sum, p) => sum + p.plays, 0);
    const plays = page.locator("dl > div", { has: page.locator("dt", { hasText: /^Plays$/ }) });
    await expect(plays.locator("dd")).toHaveText(String(total));

    // The heatmap is drawn in the browser, and its numbers are a table too.
    const clock = page.getByRole("region", { name: "Listening clock", exact: true });
    await expect(clock.locator(".recharts-surface")).toBeVisible();
    await clock.getByText("Show as a table").click();
    const table = clock.getByRole("table");
    await expect(table).toBeVisible();
    const cells = await table.locator("tbody td").allInnerTexts();
    expect(cells.map(Number).reduce((sum, n) => sum + n, 0)).toBe(total);

    // Chapters: the taste shifts of the seeded history; the owner titles one.
    const chapters = page.getByRole("region", { name: "Chapters" });
    await expect(chapters.getByRole("listitem")).toHaveCount(2);
    const firstChapter = chapters.getByRole("listitem").first();
    await firstChapter.locator("summary").click();
    await firstChapter.getByLabel("Title").fill("Burial winter");
    await firstChapter.getByRole("button", { name: "Save chapter" }).click();
    await expect(chapters.getByRole("heading", { name: "Burial winter" })).toBeVisible();

    // The period is in the URL, and a reversed custom range says what is wrong.
    await page.getByRole("link", { name: "All time" }).click();
    await expect(page).toHaveURL(/period=all/);
    await expect(page.getByRole("link", { name: "All time" })).toHaveAttribute(
      "aria-current",
      "page",
    );
    await page.getByLabel("From", { exact: true }).fill("2025-06-10");
    await page.getByLabel("To", { exact: true }).fill("2025-06-01");
    await page.getByRole("button", { name: "Show range" }).click();
    await expect(page.getByRole("alert")).toContainText(
      "The start date must be on or before the end date.",
    );
  });

  test("the journey page passes axe in light and dark, and fits a phone", async ({
    page,
    setColorMode,
  }) => {
    for (const mode of ["light", "dark"] as const) {
      await setColorMode(mode);
      await gotoHydrated(page, JOURNEY_PATH);
      await expect(
        page
          .getByRole("region", { name: "Plays over time", exact: true })
          .locator(".recharts-surface"),
      ).toBeVisible();
      // The page's own disclosures; the header's account menu is one too, and its backdrop
      // would cover the page.
      for (const details of await page.locator("main details").all()) {
        await details.locator("summary").click();
      }
      await expectNoAxeViolations(page);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await gotoHydrated(page, JOURNEY_PATH);
    await expectNoAxeViolations(page);
    const tooWide = await page.evaluate(() => {
      const limit = document.documentElement.clientWidth;
      const scrollsInside = (el: Element) => {
        for (let a = el.parentElement; a; a = a.parentElement) {
          if (["auto", "scroll"].includes(getComputedStyle(a).overflowX)) return true;
        }
        return false;
      };
      return [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > limit + 1 && !scrollsInside(el))
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 80))
        .slice(0, 5);
    });
    expect(tooWide).toEqual([]);
  });
});

test.describe("a recap card", () => {
  test.use({ storageState: OWNER_STATE });

  test("is made on the journey, downloaded, and posted to the feed with its picture", async ({
    page,
    setColorMode,
  }) => {
    test.setTimeout(60_000);
    await gotoHydrated(page, JOURNEY_PATH);
    const recap = page.getByRole("region", { name: "Recap card" });
    await recap.getByRole("button", { name: "Make recap card" }).click();
    const card = recap.getByRole("img", { name: /^Recap card: Last 30 days/ });
    await expect(card).toBeVisible({ timeout: 20_000 });
    expect(
      await card.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]),
    ).toEqual([1080, 1350]);

    // Download saves the PNG under a name that says whose and which period.
    const downloading = page.waitForEvent("download");
    await recap.getByRole("link", { name: "Download PNG" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(
      `soundtrail-recap-${JOURNEY_OWNER.username}-month.png`,
    );

    // The page with the card and the post form passes axe in both themes.
    for (const mode of ["dark", "light"] as const) {
      await setColorMode(mode);
      await gotoHydrated(page, JOURNEY_PATH);
      await recap.getByRole("button", { name: "Make recap card" }).click();
      await expect(card).toBeVisible({ timeout: 20_000 });
      await expectNoAxeViolations(page);
    }

    // Posting: the journey's audience (followers) is the default; a note goes with it.
    const form = page.getByRole("form", { name: "Post the recap card to the feed" });
    await expect(form.getByLabel("Who can see the post")).toHaveValue("followers");
    await form.getByLabel("Note (optional)").fill("My month in dream pop");
    const postButton = form.getByRole("button", { name: "Post to feed" });
    await postButton.scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await postButton.click();
    await expect(page).toHaveURL(/\/feed$/, { timeout: 20_000 });
    const post = page.getByRole("article").filter({ hasText: "My recap: Last 30 days" }).first();
    await expect(post).toContainText("My month in dream pop");
    // The feed opens at its top, where the new post is, and the post says it is a recap.
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await expect(post).toBeInViewport();
    await expect(post).toContainText("Recap");
    await expect(post).not.toContainText("Playlist");
    const picture = post.getByRole("img", {
      name: `Shared with “My recap: Last 30 days” by ${JOURNEY_OWNER.displayName}`,
    });
    await expect(picture).toBeVisible();
    await expect
      .poll(() => picture.evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBe(1080);
  });
});

test.describe("a follower", () => {
  test.use({ storageState: FOLLOWER_STATE });

  test("sees the journey on the profile, with the taste match", async ({ page }) => {
    await gotoHydrated(page, `/u/${JOURNEY_OWNER.username}`);
    const section = page.getByRole("region", { name: "Journey" });
    await expect(
      section.getByRole("list", { name: "Top artists of the last 30 days" }).getByRole("listitem"),
    ).toHaveCount(JOURNEY_PLAYS.length);
    // Fay has no plays of her own: the match says how to get one.
    await expect(
      section.getByText("Bring in your own plays to see how your taste matches."),
    ).toBeVisible();
    await gotoHydrated(page, JOURNEY_PATH);
    await expect(page.getByRole("heading", { name: "Jo Journey's journey" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Listening clock", exact: true })).toBeVisible();
  });
});

test.describe("a stranger", () => {
  test.use({ storageState: STRANGER_STATE });

  test("is told the journey is for followers, and sees none of it", async ({ page }) => {
    await gotoHydrated(page, `/u/${JOURNEY_OWNER.username}`);
    await expect(
      page.getByText("Jo Journey shares their journey with followers only."),
    ).toBeVisible();
    await gotoHydrated(page, JOURNEY_PATH);
    await expect(
      page.getByText("Jo Journey shares their journey with followers only."),
    ).toBeVisible();
    await expect(page.getByText("Cocteau Twins")).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Listening clock" })).toHaveCount(0);
  });
});
