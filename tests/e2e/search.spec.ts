import { type Browser, type Page, test } from "@playwright/test";
import {
  COLOR_MODE_COOKIE,
  clickFollowButton,
  useOwnClientAddress as comeFromOwnAddress,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  reloadHydrated,
} from "./fixtures";
import { type Person, signUp } from "./people";

// Search (issue 12): people with a typo, posts by a word, tabs in the URL, #tag links, axe.

async function pageAs(
  browser: Browser,
  person: Person,
  options: { theme?: "light" | "dark"; javaScriptEnabled?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    storageState: person.storage,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  const baseURL = test.info().project.use.baseURL ?? "";
  await context.addCookies([
    { name: COLOR_MODE_COOKIE, value: options.theme ?? "light", url: baseURL },
  ]);
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  return page;
}

test.describe
  .serial("search", () => {
    const run = `${Date.now() % 1_000_000}`;
    const tag = `glacial${run}`;
    const title = `Hoppipolla ${run}`;
    let sam: Person;
    let jon: Person;

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(120_000);
      sam = await signUp(browser, request, `sam${run}`, "Sam Searcher");
      jon = await signUp(browser, request, `jonathan${run}`, "Jonathan Björkman");
      const page = await pageAs(browser, jon);
      await gotoHydrated(page, "/feed");
      await page.locator("body").press("n");
      await page.getByLabel("Track title").fill(title);
      await page.getByRole("combobox", { name: "Artist", exact: true }).fill("Sigur Rós");
      await page.getByLabel("Note").fill(`Goosebumps every single time #${tag}`);
      await page.getByRole("button", { name: "Share", exact: true }).click();
      await expect(page.getByText(`“${title}” is on your feed.`)).toBeVisible();
      await page.context().close();
    });

    test("a misspelt, accent-less name finds the person, who can be followed from the results", async ({
      browser,
    }) => {
      const page = await pageAs(browser, sam);
      await gotoHydrated(page, "/search");
      await expect(page.getByRole("heading", { name: "Trending tags this week" })).toBeVisible();
      const box = page.getByRole("combobox", { name: "Search people, posts, music and tags" });
      await box.fill("jonahtan bjorkman");
      await box.press("Enter");
      await expect(page).toHaveURL(/\/search\?q=jonahtan\+bjorkman$/);

      await page
        .getByRole("navigation", { name: "Result types" })
        .getByRole("link", { name: "People" })
        .click();
      await expect(page).toHaveURL(/type=people/);
      const results = page.getByRole("list", { name: "People matching “jonahtan bjorkman”" });
      const row = results.getByRole("listitem").filter({ hasText: `@jonathan${run}` });
      await expect(row.getByRole("link", { name: "Jonathan Björkman" })).toBeVisible();
      await expect(row.getByText("0 followers")).toBeVisible();
      await clickFollowButton(page, "Follow Jonathan Björkman", row);
      await expect(
        row.getByRole("button", { name: "Following Jonathan Björkman" }),
      ).toHaveAttribute("aria-pressed", "true");
      await expect(row.getByText("1 follower")).toBeVisible();
      // The follow was stored: a fresh load shows it.
      await reloadHydrated(page);
      await expect(page.getByRole("button", { name: "Following Jonathan Björkman" })).toBeVisible();

      // Back and forward walk through the searches.
      await page.goBack();
      await expect(page).toHaveURL(/\/search\?q=jonahtan\+bjorkman$/);
      await page.goForward();
      await expect(page).toHaveURL(/type=people/);
    });

    test("a word from a note finds the post, marked, and opens it", async ({ browser }) => {
      const page = await pageAs(browser, sam);
      await gotoHydrated(page, "/search?q=goosebumps&type=posts");
      const list = page.getByRole("list", { name: "Posts matching “goosebumps”" });
      const result = list.getByRole("article").filter({ hasText: title });
      await expect(result.locator("mark").first()).toHaveText("Goosebumps");
      await result.getByRole("link", { name: title }).click();
      await expect(page).toHaveURL(/\/post\/[0-9a-f-]{36}$/);
      await expect(page.getByRole("heading", { name: title })).toBeVisible();

      // The post's #tag link lands on the tag's results.
      await page
        .getByRole("link", { name: `#${tag}` })
        .first()
        .click();
      await expect(page).toHaveURL(`/search?q=%23${tag}&type=tags`);
      await expect(page.getByRole("heading", { name: new RegExp(`${tag}.*1 post`) })).toBeVisible();
      await expect(
        page.getByRole("list", { name: `Posts tagged #${tag}` }).getByRole("article"),
      ).toHaveCount(1);
    });

    test("tabs move by keyboard and keep the query; music groups what people posted", async ({
      browser,
    }) => {
      const page = await pageAs(browser, sam);
      await gotoHydrated(page, "/search?q=sigur%20ros");
      const tabs = page.getByRole("navigation", { name: "Result types" });
      await tabs.getByRole("link", { name: "Top" }).focus();
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowRight");
      await expect(tabs.getByRole("link", { name: "Music" })).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(page).toHaveURL(/q=sigur\+ros&type=music/);
      await expect(tabs.getByRole("link", { name: "Music" })).toHaveAttribute(
        "aria-current",
        "page",
      );
      const artists = page.getByRole("list", { name: "Artists" });
      await artists.getByRole("link", { name: /Sigur Rós/ }).click();
      await expect(page).toHaveURL(/artist=Sigur\+R%C3%B3s/);
      await expect(page.getByRole("heading", { name: "Posts about Sigur Rós" })).toBeVisible();
      await expect(page.getByRole("article").filter({ hasText: title })).toBeVisible();
    });

    test("Ctrl-K, type, arrow down and Enter open a suggestion; recent searches can be cleared", async ({
      browser,
    }) => {
      const page = await pageAs(browser, sam);
      await gotoHydrated(page, "/search?q=goosebumps");
      await page.getByRole("heading", { name: "Search", level: 1 }).click();
      await page.keyboard.press("Control+k");
      const box = page.getByRole("combobox", { name: "Search people, posts, music and tags" });
      await expect(box).toBeFocused();
      await box.fill("jonath");
      const list = page.getByRole("listbox", { name: "Suggestions" });
      await expect(list.getByRole("option", { name: /Jonathan Björkman/ })).toBeVisible();
      await expect(box).toHaveAttribute("aria-expanded", "true");
      await box.press("ArrowDown");
      await expect(list.getByRole("option").first()).toHaveAttribute("aria-selected", "true");
      await expect(box).toHaveAttribute("aria-activedescendant", /.+/);
      await box.press("Enter");
      await expect(page).toHaveURL(`/u/jonathan${run}`);

      await gotoHydrated(page, "/search");
      await page.keyboard.press("/");
      await expect(box).toBeFocused();
      const recent = page.getByRole("listbox", { name: "Recent searches" });
      await expect(recent.getByRole("option", { name: "jonath" })).toBeVisible();
      await box.press("Escape");
      await expect(box).toHaveAttribute("aria-expanded", "false");
      await box.press("ArrowDown");
      await page.getByRole("button", { name: "Clear recent searches" }).click();
      await expect(box).toHaveAttribute("aria-expanded", "false");
      await reloadHydrated(page);
      await box.focus();
      await expect(page.getByRole("listbox", { name: "Recent searches" })).toBeHidden();
    });

    test("the header's box on any page: Ctrl-K, type, arrow down, Enter; on a phone behind a button", async ({
      browser,
    }) => {
      const page = await pageAs(browser, sam);
      await gotoHydrated(page, "/notifications");
      const box = page
        .getByRole("banner")
        .getByRole("combobox", { name: "Search people, posts, music and tags" });
      await page.getByRole("heading", { level: 1 }).click();
      await page.keyboard.press("Control+k");
      await expect(box).toBeFocused();
      await box.pressSequentially("sigur");
      const list = page.getByRole("listbox", { name: "Suggestions" });
      const artist = list.getByRole("option", { name: /^Sigur Rós \d+ posts?$/ });
      await expect(artist).toBeVisible();
      // People come first when a name matches too: arrow down to the artist.
      const names = await list.getByRole("option").allTextContents();
      const index = names.findIndex((name) => /^Sigur Rós\s*\d+ posts?$/.test(name));
      expect(index).toBeGreaterThanOrEqual(0);
      for (let i = 0; i <= index; i++) await box.press("ArrowDown");
      await expect(artist).toHaveAttribute("aria-selected", "true");
      await box.press("Enter");
      await expect(page).toHaveURL(/artist=Sigur\+R%C3%B3s/);
      await expect(page.getByRole("article").filter({ hasText: title })).toBeVisible();
      // On /search itself the page's box is the only one, and the shortcut goes to it.
      await expect(page.getByRole("combobox")).toHaveCount(1);

      // A phone: the box hides behind the header's search button; Enter searches.
      await page.setViewportSize({ width: 390, height: 800 });
      await gotoHydrated(page, "/feed");
      const reveal = page.getByRole("banner").getByRole("button", { name: "Search" });
      await expect(box).toBeHidden();
      await reveal.click();
      await expect(reveal).toHaveAttribute("aria-expanded", "true");
      await box.fill("goosebumps");
      await box.press("Enter");
      await expect(page).toHaveURL(/\/search\?q=goosebumps/);
      await expect(page.getByRole("article").filter({ hasText: title })).toBeVisible();
      await page.context().close();
    });

    test("works without JavaScript", async ({ browser }) => {
      const page = await pageAs(browser, sam, { javaScriptEnabled: false });
      await page.goto("/search");
      await page.getByRole("combobox").fill("goosebumps");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await expect(page).toHaveURL(/q=goosebumps/);
      await expect(page.getByRole("article").filter({ hasText: title })).toBeVisible();
    });

    for (const theme of ["light", "dark"] as const) {
      test(`axe finds nothing on /search in ${theme} mode`, async ({ browser }) => {
        // Four pages through axe: about 6 s each, more on a busy machine.
        test.setTimeout(120_000);
        const page = await pageAs(browser, sam, { theme });
        for (const path of [
          "/search",
          "/search?q=goosebumps",
          `/search?q=%23${tag}&type=tags`,
          "/search?q=zzqqxxnothing",
        ]) {
          await gotoHydrated(page, path);
          await expect(page.getByRole("heading", { name: "Search", level: 1 })).toBeVisible();
          await expectNoAxeViolations(page);
        }
      });
    }
  });
