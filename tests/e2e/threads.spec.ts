import { type Browser, type Page, test } from "@playwright/test";
import { expect, expectNoAxeViolations, gotoHydrated, reloadHydrated } from "./fixtures";
import { type Person, signUp } from "./people";

async function pageAs(browser: Browser, person: Person, javaScriptEnabled = true) {
  const context = await browser.newContext({ storageState: person.storage, javaScriptEnabled });
  return context.newPage();
}

async function comment(page: Page, text: string) {
  await page.getByLabel(/^(Add a comment|Reply to @)/).fill(text);
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.getByLabel("Add a comment")).toHaveValue("");
}

test.describe
  .serial("comment threads", () => {
    const run = `${Date.now() % 1_000_000}`;
    let ana: Person;
    let ben: Person;
    let postId = "";

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(120_000);
      ana = await signUp(browser, request, `tana${run}`, "Thread Ana");
      ben = await signUp(browser, request, `tben${run}`, "Thread Ben");
      const page = await pageAs(browser, ana);
      await gotoHydrated(page, "/feed");
      await page.locator("body").press("n");
      await page.getByLabel("Track title").fill(`Thread tune ${run}`);
      await page.getByRole("combobox", { name: "Artist", exact: true }).fill("Low");
      await page.getByRole("button", { name: "Share", exact: true }).click();
      const link = page.getByRole("link", { name: `Thread tune ${run}` }).first();
      postId = (await link.getAttribute("href"))?.match(/\/post\/([0-9a-f-]{36})/)?.[1] ?? "";
      expect(postId).not.toBe("");
      await page.context().close();
    });

    test("a reply shows under the comment it answers; long threads open in place", async ({
      browser,
    }) => {
      const page = await pageAs(browser, ben);
      await gotoHydrated(page, `/post/${postId}`);
      await comment(page, "First thoughts");
      await comment(page, "A second, separate comment");
      const comments = page.getByRole("region", { name: /Comments/ });
      const first = comments.locator("li", { hasText: "First thoughts" }).first();
      await first
        .getByRole("link", { name: /^Reply to Thread Ben/ })
        .first()
        .click();
      await expect(page.getByLabel("Reply to @" + `tben${run}`)).toBeFocused();
      await page.keyboard.type("agreed");
      await page.getByRole("button", { name: "Comment", exact: true }).click();
      const replies = first.getByRole("list", { name: "Replies to Thread Ben" });
      await expect(replies.getByText(`@tben${run} agreed`)).toBeVisible();
      // Top-level comments stay newest first; the reply is not one of them.
      const tops = comments.locator("ul").first().locator(":scope > li");
      await expect(tops).toHaveCount(2);
      await expect(tops.first()).toContainText("A second, separate comment");

      // Four more replies: three show, the rest behind "Show n more replies".
      const ana1 = await pageAs(browser, ana);
      await gotoHydrated(ana1, `/post/${postId}`);
      const anaFirst = ana1
        .getByRole("region", { name: /Comments/ })
        .locator("li", { hasText: "First thoughts" })
        .first();
      for (const n of [1, 2, 3, 4]) {
        await anaFirst
          .getByRole("link", { name: /^Reply to Thread Ben/ })
          .first()
          .click();
        await ana1.keyboard.type(`reply ${n}`);
        await ana1.getByRole("button", { name: "Comment", exact: true }).click();
        // The thread opens fully after a reply, so the newest one always shows.
        await expect(
          anaFirst.getByRole("list", { name: "Replies to Thread Ben" }).getByText(`reply ${n}`),
        ).toBeVisible();
      }
      await reloadHydrated(page);
      await expect(replies.locator(":scope > li")).toHaveCount(3);
      await replies.getByText("agreed").waitFor();
      const more = first.getByRole("link", { name: "Show 2 more replies" });
      await more.click();
      await expect(replies.locator(":scope > li")).toHaveCount(5);
      await expect(replies.locator(":scope > li").last()).toContainText("reply 4");
      await expect(more).toBeHidden();
      await expectNoAxeViolations(page);
    });

    test("without JavaScript the thread link shows every reply", async ({ browser }) => {
      const page = await pageAs(browser, ben, false);
      await page.goto(`/post/${postId}`);
      const first = page.locator("li", { hasText: "First thoughts" }).first();
      await first.getByRole("link", { name: "Show 2 more replies" }).click();
      await expect(page).toHaveURL(/thread=/);
      const replies = first.getByRole("list", { name: "Replies to Thread Ben" });
      await expect(replies.locator(":scope > li")).toHaveCount(5);
    });
  });
