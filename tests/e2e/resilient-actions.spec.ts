import { type Browser, type Page, test } from "@playwright/test";
import {
  COLOR_MODE_COOKIE,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  reloadHydrated,
} from "./fixtures";
import { type Person, signUp } from "./people";

/**
 * Resilient actions (issue 38, ADR 037): with the browser's network cut in the middle of an
 * action, every send keeps what was typed and shown, says so in place, never shows an error
 * screen, and goes through once the connection is back — exactly once (the server's state is
 * read afterwards from a fresh page).
 */

const OFFLINE = "You're offline — we'll send it when you're back";
const OFFLINE_SAVE = "You're offline — we'll save it when you're back";

/** Counts the POSTs to `path` (its `.data` request) that the server answered. */
function countAnsweredPosts(page: Page, path: string) {
  const answered = { count: 0 };
  page.on("requestfinished", (request) => {
    if (request.method() === "POST" && new URL(request.url()).pathname === `${path}.data`) {
      answered.count++;
    }
  });
  return answered;
}

/** Each page's route discovery requests (`/__manifest`) under way, and when one last moved. */
const discovery = new WeakMap<Page, { inFlight: number; lastAt: number }>();

function watchDiscovery(page: Page): void {
  const state = { inFlight: 0, lastAt: Date.now() };
  discovery.set(page, state);
  const isManifest = (url: string) => new URL(url).pathname === "/__manifest";
  page.on("request", (request) => {
    if (!isManifest(request.url())) return;
    state.inFlight++;
    state.lastAt = Date.now();
  });
  const settled = (request: { url(): string }) => {
    if (!isManifest(request.url())) return;
    state.inFlight--;
    state.lastAt = Date.now();
  };
  page.on("requestfinished", settled);
  page.on("requestfailed", settled);
}

/**
 * Cuts the network once the page has learned its links' routes. React Router discovers them
 * after the page is up (a `/__manifest` request shortly after hydration); cut before that
 * answer, a send to a page with a parameter (`/post/:id`) needs the discovery first and the
 * router itself gives up offline — the network going away in the page's first second, which
 * these tests are not about.
 */
async function goOffline(page: Page): Promise<void> {
  const state = discovery.get(page);
  if (state) {
    await expect
      .poll(() => state.inFlight === 0 && Date.now() - state.lastAt > 500, { timeout: 20_000 })
      .toBe(true);
  }
  await page.context().setOffline(true);
}

async function pageAs(browser: Browser, person: Person, theme?: "light" | "dark") {
  const context = await browser.newContext({ storageState: person.storage });
  if (theme) {
    await context.addCookies([
      { name: COLOR_MODE_COOKIE, value: theme, url: test.info().project.use.baseURL ?? "" },
    ]);
  }
  const page = await context.newPage();
  watchDiscovery(page);
  return page;
}

/** No error screen took the page: the header and the main content are still the app's. */
async function expectNoErrorScreen(page: Page) {
  await expect(page.getByText("Internal Server Error")).toHaveCount(0);
  await expect(page.getByText("Something went wrong")).toHaveCount(0);
  await expect(page.getByRole("banner")).toBeVisible();
}

/** What a fresh page (a new context, online) shows: the server's state, not the tab's. */
async function freshPage(browser: Browser, person: Person, path: string) {
  const page = await pageAs(browser, person);
  await gotoHydrated(page, path);
  return page;
}

test.describe
  .serial("sends that survive the network going away", () => {
    const run = `${Date.now() % 1_000_000}`;
    let alice: Person;
    let bob: Person;
    let postId = "";

    // Each test waits for real retries (1 s and up) on a shared, loaded machine.
    test.beforeEach(() => test.setTimeout(60_000));

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(90_000);
      alice = await signUp(browser, request, `ra${run}`, "Resilient Alice");
      bob = await signUp(browser, request, `rb${run}`, "Resilient Bob");
    });

    test("a post shared offline keeps its fields, says so, goes out once online, and the focus lands on it", async ({
      browser,
    }) => {
      const page = await pageAs(browser, alice);
      await gotoHydrated(page, "/feed");
      await page.locator("body").press("n");
      await page.getByLabel("Track title").fill("Offline Anthem");
      await page.getByRole("combobox", { name: "Artist", exact: true }).fill("The Blips");
      await page.getByLabel("Note").fill("Written on a train");

      await goOffline(page);
      await page.getByRole("button", { name: "Share", exact: true }).click();
      await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toBeVisible();
      await expectNoErrorScreen(page);
      await expect(page.getByLabel("Track title")).toHaveValue("Offline Anthem");
      await expect(page.getByLabel("Note")).toHaveValue("Written on a train");

      await page.context().setOffline(false);
      const post = page.locator("article").filter({ hasText: "Offline Anthem" });
      await expect(post).toHaveCount(1);
      // The focus is on the new post, not on <body>.
      await expect(post).toBeFocused();
      await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toHaveCount(0);
      const href = await post.getByRole("link", { name: "Offline Anthem" }).getAttribute("href");
      postId = href?.match(/\/post\/([0-9a-f-]{36})/)?.[1] ?? "";
      expect(postId).not.toBe("");

      const fresh = await freshPage(browser, alice, `/u/ra${run}`);
      await expect(fresh.locator("article").filter({ hasText: "Offline Anthem" })).toHaveCount(1);
      await fresh.context().close();
      await page.context().close();
    });

    test("a post whose answer was lost is sent again and still appears once", async ({
      browser,
    }) => {
      const page = await pageAs(browser, alice);
      await gotoHydrated(page, "/feed");
      await page.locator("body").press("n");
      await page.getByLabel("Track title").fill("Lost Answer Song");
      await page.getByRole("combobox", { name: "Artist", exact: true }).fill("The Blips");
      // The server takes the post, but its answer never reaches the browser.
      let cut = 0;
      await page.route(/\/feed\.data/, async (route) => {
        if (route.request().method() !== "POST" || cut > 0) return route.fallback();
        cut++;
        await route.fetch();
        await route.abort("internetdisconnected");
      });
      await page.getByRole("button", { name: "Share", exact: true }).click();
      // Sent again by itself (the browser is online): one post, focused.
      const post = page.locator("article").filter({ hasText: "Lost Answer Song" });
      await expect(post).toHaveCount(1);
      await expect(post).toBeFocused();
      expect(cut).toBe(1);
      const fresh = await freshPage(browser, alice, `/u/ra${run}`);
      await expect(fresh.locator("article").filter({ hasText: "Lost Answer Song" })).toHaveCount(1);
      await fresh.context().close();
      await page.context().close();
    });

    test("a like pressed offline stays pressed, says so, and counts once online", async ({
      browser,
    }) => {
      const page = await pageAs(browser, bob);
      await gotoHydrated(page, `/post/${postId}`);
      const like = page.getByRole("button", { name: "Like, 0 likes" }).first();
      await goOffline(page);
      await like.click();
      const liked = page.getByRole("button", { name: "Like, 1 like" }).first();
      await expect(liked).toHaveAttribute("aria-pressed", "true");
      await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toBeVisible();
      await expectNoErrorScreen(page);

      await page.context().setOffline(false);
      await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toHaveCount(0);
      await expect(liked).toHaveAttribute("aria-pressed", "true");

      const fresh = await freshPage(browser, bob, `/post/${postId}`);
      await expect(fresh.getByRole("button", { name: "Like, 1 like" }).first()).toHaveAttribute(
        "aria-pressed",
        "true",
      );
      await fresh.context().close();
      await page.context().close();
    });

    test("a comment and a reply sent offline keep their text, go out once online, and take the focus", async ({
      browser,
    }) => {
      const page = await pageAs(browser, bob);
      await gotoHydrated(page, `/post/${postId}`);
      const box = page.getByLabel("Add a comment");
      await box.fill("Sent from a tunnel");
      await goOffline(page);
      await page.getByRole("button", { name: "Comment", exact: true }).click();
      await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toBeVisible();
      await expect(box).toHaveValue("Sent from a tunnel");
      await expect(page.getByText("Not sent yet")).toBeVisible();
      await expectNoErrorScreen(page);

      await page.context().setOffline(false);
      const comment = page.locator("li[id^=comment-]").filter({ hasText: "Sent from a tunnel" });
      await expect(comment).toHaveCount(1);
      await expect(comment).toBeFocused();
      await expect(box).toHaveValue("");
      await expect(page.getByText("Not sent yet")).toHaveCount(0);

      // A reply, offline too.
      await comment.getByRole("link", { name: /^Reply/ }).click();
      const replyBox = page.getByLabel(`Reply to @rb${run}`);
      await expect(replyBox).toBeFocused();
      await replyBox.pressSequentially("and back again");
      await goOffline(page);
      await page.getByRole("button", { name: "Comment", exact: true }).click();
      await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toBeVisible();
      await expect(replyBox).toHaveValue(`@rb${run} and back again`);
      await page.context().setOffline(false);
      // The reply's item sits inside its thread's (which contains its text too): the last one.
      await expect(page.getByText("and back again")).toHaveCount(1);
      const reply = page.locator("li[id^=comment-]").filter({ hasText: "and back again" }).last();
      await expect(reply).toBeFocused();

      const fresh = await freshPage(browser, bob, `/post/${postId}`);
      await expect(fresh.getByRole("heading", { name: "Comments (2)" })).toBeVisible();
      await expect(fresh.getByText("Sent from a tunnel")).toHaveCount(1);
      await expect(fresh.getByText("and back again")).toHaveCount(1);
      await fresh.context().close();
      await page.context().close();
    });

    test("a comment whose answer was lost is sent again and still appears once", async ({
      browser,
    }) => {
      const page = await pageAs(browser, bob);
      await gotoHydrated(page, `/post/${postId}`);
      let cut = 0;
      await page.route(/\/post\/[^/]+\.data/, async (route) => {
        if (route.request().method() !== "POST" || cut > 0) return route.fallback();
        cut++;
        await route.fetch();
        await route.abort("internetdisconnected");
      });
      await page.getByLabel("Add a comment").fill("Said only once");
      await page.getByRole("button", { name: "Comment", exact: true }).click();
      const comment = page.locator("li[id^=comment-]").filter({ hasText: "Said only once" });
      await expect(comment).toHaveCount(1);
      await expect(comment).toBeFocused();
      expect(cut).toBe(1);
      const fresh = await freshPage(browser, bob, `/post/${postId}`);
      await expect(fresh.getByRole("heading", { name: "Comments (3)" })).toBeVisible();
      await expect(fresh.getByText("Said only once")).toHaveCount(1);
      await fresh.context().close();
      await page.context().close();
    });

    test("a follow pressed offline stays, says so, and goes through once online", async ({
      browser,
    }) => {
      const page = await pageAs(browser, bob);
      await gotoHydrated(page, `/u/ra${run}`);
      await goOffline(page);
      await page.getByRole("button", { name: "Follow Resilient Alice" }).click();
      await expect(page.getByRole("button", { name: "Following Resilient Alice" })).toBeVisible();
      await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toBeVisible();
      await expectNoErrorScreen(page);
      await page.context().setOffline(false);
      await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toHaveCount(0);

      const fresh = await freshPage(browser, bob, `/u/ra${run}`);
      await expect(
        fresh.getByRole("button", { name: "Following Resilient Alice" }),
      ).toHaveAttribute("aria-pressed", "true");
      await fresh.context().close();
      await page.context().close();
    });

    test("drafts of a post and a comment survive a reload and go once sent", async ({
      browser,
    }) => {
      const page = await pageAs(browser, bob);
      await gotoHydrated(page, `/post/${postId}`);
      await page.getByLabel("Add a comment").fill("Half a thought");
      await reloadHydrated(page);
      await expect(page.getByLabel("Add a comment")).toHaveValue("Half a thought");

      await gotoHydrated(page, "/feed");
      await page.locator("body").press("n");
      await page.getByLabel("Track title").fill("Draft Song");
      await page.getByLabel("Note").fill("Not finished");
      await reloadHydrated(page);
      await expect(page.getByRole("link", { name: "Continue your post…" })).toBeVisible();
      await page.getByRole("link", { name: "Continue your post…" }).click();
      await expect(page.getByLabel("Track title")).toHaveValue("Draft Song");
      await expect(page.getByLabel("Note")).toHaveValue("Not finished");
      await page.getByRole("combobox", { name: "Artist", exact: true }).fill("Draft Band");
      await page.getByRole("button", { name: "Share", exact: true }).click();
      await expect(page.locator("article").filter({ hasText: "Draft Song" })).toBeFocused();
      await reloadHydrated(page);
      await expect(page.getByRole("link", { name: "Share some music…" })).toBeVisible();
      await page.context().close();
    });

    for (const theme of ["light", "dark"] as const) {
      test(`the post page and the feed with a send waiting have no axe violations (${theme})`, async ({
        browser,
      }) => {
        const page = await pageAs(browser, bob, theme);
        await gotoHydrated(page, `/post/${postId}`);
        // Each theme's own words: both tests comment on the same post.
        await page.getByLabel("Add a comment").fill(`Waiting to go (${theme})`);
        await goOffline(page);
        await page.getByRole("button", { name: "Comment", exact: true }).click();
        await expect(page.getByRole("status").filter({ hasText: OFFLINE })).toBeVisible();
        await expectNoAxeViolations(page);
        await page.context().setOffline(false);
        await expect(
          page.locator("li[id^=comment-]").filter({ hasText: `Waiting to go (${theme})` }),
        ).toBeFocused();
        await gotoHydrated(page, "/feed?tab=everyone");
        await expectNoAxeViolations(page);
        await page.context().close();
      });
    }

    test("a profile saved offline keeps what was typed, says so, and is saved once online", async ({
      browser,
    }) => {
      const page = await pageAs(browser, alice);
      await gotoHydrated(page, "/settings/profile");
      const answered = countAnsweredPosts(page, "/settings/profile");
      await page.getByLabel("Display name").fill("Alice on a Train");
      await page.getByLabel("Bio").fill("Written between two tunnels");
      await page.getByLabel("Favourite genres").fill("dub, ambient");

      await goOffline(page);
      await page.getByRole("button", { name: "Save profile" }).click();
      await expect(page.getByRole("status").filter({ hasText: OFFLINE_SAVE })).toBeVisible();
      await expectNoErrorScreen(page);
      await expect(page.getByLabel("Display name")).toHaveValue("Alice on a Train");
      await expect(page.getByLabel("Bio")).toHaveValue("Written between two tunnels");
      await expect(page.getByLabel("Favourite genres")).toHaveValue("dub, ambient");
      expect(answered.count).toBe(0);

      await page.context().setOffline(false);
      await expect(page.getByText("Profile saved")).toBeVisible();
      await expect(page.getByRole("status").filter({ hasText: OFFLINE_SAVE })).toHaveCount(0);
      await expectNoErrorScreen(page);
      expect(answered.count).toBe(1);

      const fresh = await freshPage(browser, alice, "/settings/profile");
      await expect(fresh.getByLabel("Display name")).toHaveValue("Alice on a Train");
      await expect(fresh.getByLabel("Bio")).toHaveValue("Written between two tunnels");
      await expect(fresh.getByLabel("Favourite genres")).toHaveValue("dub, ambient");
      await fresh.context().close();
      await page.context().close();
    });

    test("notification preferences saved offline stay ticked as chosen and are saved once online", async ({
      browser,
    }) => {
      const page = await pageAs(browser, bob);
      await gotoHydrated(page, "/settings/notifications");
      const answered = countAnsweredPosts(page, "/settings/notifications");
      const likesInApp = page.getByRole("checkbox", { name: "Likes on your posts in the app" });
      const followsByMail = page.getByRole("checkbox", { name: "New followers by e-mail" });
      const wasInApp = await likesInApp.isChecked();
      const wasByMail = await followsByMail.isChecked();
      await likesInApp.setChecked(!wasInApp);
      await followsByMail.setChecked(!wasByMail);

      await goOffline(page);
      await page.getByRole("button", { name: "Save notification settings" }).click();
      const status = page.getByRole("status").filter({ hasText: OFFLINE_SAVE });
      await expect(status).toBeVisible();
      await expectNoErrorScreen(page);
      await expect(likesInApp).toBeChecked({ checked: !wasInApp });
      await expect(followsByMail).toBeChecked({ checked: !wasByMail });
      expect(answered.count).toBe(0);

      await page.context().setOffline(false);
      await expect(page.getByText("Notification settings saved")).toBeVisible();
      await expect(status).toHaveCount(0);
      expect(answered.count).toBe(1);

      const fresh = await freshPage(browser, bob, "/settings/notifications");
      await expect(
        fresh.getByRole("checkbox", { name: "Likes on your posts in the app" }),
      ).toBeChecked({ checked: !wasInApp });
      await expect(fresh.getByRole("checkbox", { name: "New followers by e-mail" })).toBeChecked({
        checked: !wasByMail,
      });
      await fresh.context().close();
      await page.context().close();
    });

    test("privacy and journey settings saved offline are kept and saved once online, with no axe violations", async ({
      browser,
    }) => {
      const page = await pageAs(browser, bob, "dark");
      await gotoHydrated(page, "/settings/privacy");
      const answered = countAnsweredPosts(page, "/settings/privacy");
      const paused = page.getByRole("checkbox", { name: "Pause “now playing”" });
      const wasPaused = await paused.isChecked();
      await paused.setChecked(!wasPaused);

      await goOffline(page);
      await page.getByRole("button", { name: "Save journey settings" }).click();
      const status = page.getByRole("status").filter({ hasText: OFFLINE_SAVE });
      await expect(status).toHaveCount(1);
      await expect(status).toBeVisible();
      await expectNoErrorScreen(page);
      await expect(paused).toBeChecked({ checked: !wasPaused });
      await expectNoAxeViolations(page);

      await page.context().setOffline(false);
      await expect(page.getByText("Journey settings saved")).toBeVisible();
      await expect(status).toHaveCount(0);
      expect(answered.count).toBe(1);

      const fresh = await freshPage(browser, bob, "/settings/privacy");
      await expect(fresh.getByRole("checkbox", { name: "Pause “now playing”" })).toBeChecked({
        checked: !wasPaused,
      });
      await fresh.context().close();
      await page.context().close();
    });
  });
