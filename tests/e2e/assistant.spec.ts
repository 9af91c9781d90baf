import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, type Page, test } from "@playwright/test";
import { E2E_MEMBER, E2E_PASSWORD } from "../support/e2e-accounts";
import { type FakeLlmServer, startFakeLlmServer } from "../support/fake-llm-server";
import {
  COLOR_MODE_COOKIE,
  clickFollowButton,
  useOwnClientAddress as comeFromOwnAddress,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  reloadHydrated,
} from "./fixtures";
import {
  BUILD_DIR,
  killOwnServers,
  type OwnServer,
  SLOT,
  sparePort,
  startOwnServer,
  waitForReady,
} from "./own-server";
import { type Person, signUp } from "./people";

// The music assistant (issue 14): top artists from the person's posts, a recommendation link,
// a drafted post published, conversations that survive a reload, Stop, axe in both themes.

async function pageAs(
  browser: Browser,
  person: Person,
  theme: "light" | "dark" = "light",
): Promise<Page> {
  const context = await browser.newContext({ storageState: person.storage });
  const baseURL = test.info().project.use.baseURL ?? "";
  await context.addCookies([{ name: COLOR_MODE_COOKIE, value: theme, url: baseURL }]);
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  return page;
}

async function share(page: Page, title: string, artist: string) {
  await gotoHydrated(page, "/feed");
  await page.locator("body").press("n");
  await page.getByLabel("Track title").fill(title);
  await page.getByRole("combobox", { name: "Artist", exact: true }).fill(artist);
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page.getByText(`“${title}” is on your feed.`)).toBeVisible();
}

/** Types a message into the composer and sends it with Enter. */
async function ask(page: Page, message: string) {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(message);
  await box.press("Enter");
}

const messages = (page: Page) => page.getByRole("list", { name: "Messages" });

test.describe
  .serial("assistant", () => {
    const run = `${Date.now() % 1_000_000}`;
    const mine = `Radiohead ${run}`;
    const theirs = `Portishead ${run}`;
    let ana: Person;
    let ben: Person;

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(150_000);
      ana = await signUp(browser, request, `ana${run}`, "Ana Asker");
      ben = await signUp(browser, request, `ben${run}`, "Ben Curator");
      const benPage = await pageAs(browser, ben);
      await share(benPage, "Glory Box", theirs);
      await benPage.context().close();
      const page = await pageAs(browser, ana);
      await share(page, "Reckoner", mine);
      await share(page, "Nude", mine);
      await gotoHydrated(page, `/u/ben${run}`);
      await clickFollowButton(page, "Follow Ben Curator");
      await expect(page.getByRole("button", { name: "Following Ben Curator" })).toBeVisible();
      await page.context().close();
    });

    test("asks for top artists, sees an artist from their posts, and finds the conversation after a reload", async ({
      browser,
    }) => {
      const page = await pageAs(browser, ana);
      await gotoHydrated(page, "/chatbot");
      await expect(page.getByRole("heading", { name: "Assistant", level: 1 })).toBeVisible();
      await ask(page, "my top artsts this month");
      const reply = messages(page).getByRole("listitem").filter({ hasText: "Your top artist" });
      await expect(reply.getByRole("link", { name: mine })).toBeVisible();
      await expect(reply).toContainText("posted twice");
      await expect(page).toHaveURL(/\/chatbot\?c=[0-9a-f-]{36}$/);
      await expect(page.getByRole("status", { name: "Assistant replies" })).toContainText(
        "The assistant replied: Your top artist this month is",
      );

      await reloadHydrated(page);
      await expect(
        page.getByRole("heading", { name: "my top artsts this month", level: 1 }),
      ).toBeVisible();
      await expect(messages(page).getByRole("link", { name: mine })).toBeVisible();
      await expect(
        page
          .getByRole("navigation", { name: "Conversations" })
          .getByRole("link", { name: "my top artsts this month" }),
      ).toHaveAttribute("aria-current", "page");
      await page.context().close();
    });

    test("follows a recommendation link to the post", async ({ browser }) => {
      const page = await pageAs(browser, ana);
      await gotoHydrated(page, "/chatbot");
      await page.getByRole("button", { name: "Recommend me something new" }).click();
      const link = messages(page).getByRole("link", { name: `“Glory Box” by ${theirs}` });
      await expect(link).toBeVisible();
      await link.click();
      await expect(page).toHaveURL(/\/post\/[0-9a-f-]{36}$/);
      await expect(page.getByText("Glory Box").first()).toBeVisible();
      await page.context().close();
    });

    test("drafts a post about a track, edits it and publishes it", async ({ browser }) => {
      const page = await pageAs(browser, ana);
      await gotoHydrated(page, "/chatbot");
      await ask(page, "draft a post about Glory Box");
      const card = page.getByRole("form", { name: "Draft post" });
      await expect(card.getByLabel("Track title")).toHaveValue("Glory Box");
      await expect(card.getByLabel("Artist")).toHaveValue(theirs);
      await card.getByLabel("Post text").fill(`Trip-hop Sunday ${run}`);
      await card.getByRole("button", { name: "Publish" }).click();
      await expect(page).toHaveURL(/\/post\/[0-9a-f-]{36}$/);
      await expect(page.getByText(`Trip-hop Sunday ${run}`)).toBeVisible();
      await page.context().close();
    });

    test("without JavaScript the form still sends, and the answer is there after the reload", async ({
      browser,
    }) => {
      const context = await browser.newContext({
        storageState: ana.storage,
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      await comeFromOwnAddress(page);
      await page.goto("/chatbot");
      await page.getByRole("textbox", { name: "Message" }).fill(`who else here likes ${theirs}?`);
      await page.getByRole("button", { name: "Send" }).click();
      await expect(page).toHaveURL(/\/chatbot\?c=[0-9a-f-]{36}$/);
      await expect(messages(page).getByRole("link", { name: "Ben Curator" })).toBeVisible();
      await context.close();
    });

    test("a message over the limit gets a clear message and is not sent", async ({ browser }) => {
      const page = await pageAs(browser, ana);
      await gotoHydrated(page, "/chatbot");
      await ask(page, "x".repeat(1001));
      await expect(
        page.getByRole("alert").filter({ hasText: "Keep your message under 1,000 characters." }),
      ).toBeVisible();
      await expect(messages(page).getByRole("listitem")).toHaveCount(0);
      await page.context().close();
    });

    test("renames a conversation and deletes another", async ({ browser }) => {
      const page = await pageAs(browser, ana);
      await gotoHydrated(page, "/chatbot");
      const list = page.getByRole("navigation", { name: "Conversations" });
      await list.getByRole("button", { name: "Rename “my top artsts this month”" }).click();
      await list.getByLabel("New name").fill("Top artists");
      await list.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("heading", { name: "Top artists", level: 1 })).toBeVisible();
      await expect(list.getByRole("link", { name: "Top artists" })).toHaveAttribute(
        "aria-current",
        "page",
      );
      await list.getByRole("button", { name: "Delete “draft a post about Glory Box”" }).click();
      const confirm = page.getByRole("dialog", { name: "Delete “draft a post about Glory Box”?" });
      await confirm.getByRole("button", { name: "Delete conversation" }).click();
      await expect(page.getByText("Conversation deleted")).toBeVisible();
      await expect(list.getByRole("link", { name: "draft a post about Glory Box" })).toHaveCount(0);
      await reloadHydrated(page);
      await expect(list.getByRole("link", { name: "Top artists" })).toBeVisible();
      await expect(list.getByRole("link", { name: "draft a post about Glory Box" })).toHaveCount(0);
      await page.context().close();
    });

    test("axe finds nothing on /chatbot in light and dark, on a phone too", async ({ browser }) => {
      test.setTimeout(120_000);
      for (const theme of ["light", "dark"] as const) {
        const page = await pageAs(browser, ana, theme);
        await gotoHydrated(page, "/chatbot");
        await page.getByRole("link", { name: "Top artists", exact: true }).click();
        await expect(messages(page).getByRole("link", { name: mine })).toBeVisible();
        await expectNoAxeViolations(page);
        await page.setViewportSize({ width: 390, height: 844 });
        const toggle = page.getByRole("button", { name: /^Conversations \(\d+\)$/ });
        await expect(toggle).toHaveAttribute("aria-expanded", "false");
        await toggle.click();
        await expect(toggle).toHaveAttribute("aria-expanded", "true");
        await expectNoAxeViolations(page);
        await page.context().close();
      }
    });
  });

test.describe
  .serial("assistant with a language model that streams slowly", () => {
    const port = sparePort(7);
    const baseURL = `http://127.0.0.1:${port}`;
    let dataDir = "";
    let server: OwnServer | null = null;
    let llm: FakeLlmServer | null = null;

    test.beforeAll(async () => {
      test.setTimeout(120_000);
      dataDir = mkdtempSync(path.join(tmpdir(), `st-assistant-${SLOT}-`));
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
      delete env.DATABASE_URL;
      const seeded = spawnSync(process.execPath, [path.join(BUILD_DIR, "e2e-seed.mjs")], {
        env,
        encoding: "utf8",
      });
      if (seeded.status !== 0)
        throw new Error(`e2e seed failed:\n${seeded.stdout}\n${seeded.stderr}`);
      // The model writes two pieces and then keeps the reply open: only Stop can end it.
      llm = await startFakeLlmServer(() => ({ kind: "hang", pieces: ["Once upon ", "a time"] }));
      server = startOwnServer({
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: baseURL,
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        LLM_BASE_URL: llm.url,
        LLM_MODEL: "fake-model",
        LLM_TIMEOUT_SECONDS: "120",
      });
      await waitForReady(server, port);
    });

    test.afterAll(async () => {
      if (server && server.child.exitCode === null) {
        server.child.kill("SIGTERM");
        await server.exited;
      }
      await llm?.stop();
      killOwnServers();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    test("Stop ends a streaming reply, and the part written so far is kept", async ({
      browser,
    }) => {
      test.setTimeout(90_000);
      const context = await browser.newContext({
        baseURL,
        storageState: { cookies: [], origins: [] },
      });
      await context.addCookies([{ name: COLOR_MODE_COOKIE, value: "light", url: baseURL }]);
      const page = await context.newPage();
      await gotoHydrated(page, "/auth/login");
      await page.getByLabel("Email").fill(E2E_MEMBER.email);
      await page.getByLabel("Password").fill(E2E_PASSWORD);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect(page).toHaveURL(/\/feed$/);

      await gotoHydrated(page, "/chatbot");
      await ask(page, "tell me a story");
      const reply = messages(page).getByRole("listitem").filter({ hasText: "Once upon a time" });
      await expect(reply).toBeVisible();
      const stop = page.getByRole("button", { name: "Stop" });
      await expect(stop).toBeVisible();
      await expect(page.getByRole("button", { name: "Send" })).toHaveCount(0);
      await stop.click();
      await expect(reply.getByText("Stopped")).toBeVisible();
      await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
      await expect(stop).toHaveCount(0);
      // The server stopped the model too: it closed its request upstream.
      await llm?.closedByClient;
      await expect(page).toHaveURL(/\/chatbot\?c=[0-9a-f-]{36}$/);
      await expect(async () => {
        await reloadHydrated(page);
        const stored = messages(page).getByRole("listitem").filter({ hasText: "Once upon a time" });
        await expect(stored.getByText("Stopped")).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 15_000 });
      await context.close();
    });
  });
