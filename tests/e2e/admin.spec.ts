import os from "node:os";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Browser, Page } from "@playwright/test";
import {
  BULK_COUNT,
  bulkAccount,
  E2E_ADMIN,
  E2E_MEMBER,
  E2E_PASSWORD,
  E2E_TARGET,
  REPORTED_COMMENT,
  SEEDED_COMMENTS,
  SEEDED_POST_TITLE,
} from "../support/e2e-accounts";
import { expect, expectNoAxeViolations, gotoHydrated, openAccountMenu, test } from "./fixtures";
import { signInSeeded } from "./people";

const SINK = `http://127.0.0.1:${process.env.SMTP_SINK_HTTP_PORT ?? 2526}`;
const SLOT = process.env.E2E_SLOT ?? "0";
const ADMIN_STATE = path.join(os.tmpdir(), `soundtrail-e2e-${SLOT}-admin-state.json`);
const MEMBER_STATE = path.join(os.tmpdir(), `soundtrail-e2e-${SLOT}-member-state.json`);

interface SinkMail {
  to: string[];
  subject: string;
  raw: string;
}

async function mailsWithSubject(request: APIRequestContext, subject: string): Promise<SinkMail[]> {
  const all = (await (await request.get(`${SINK}/messages`)).json()) as SinkMail[];
  return all.filter((mail) => mail.subject === subject);
}

/** The decoded text of a raw mail: quoted-printable soft breaks and escapes undone. */
function decoded(raw: string): string {
  return raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Each header on one line (folded header lines joined). */
function unfoldedHeaders(raw: string): string {
  return raw.replace(/\r?\n(?=[ \t])/g, "");
}

/**
 * axe on an admin page. The mail preview is left out: its content is the admin's own HTML, and
 * its frame is sandboxed without scripts, so axe cannot run inside it (it would wait forever).
 */
async function expectAdminPageAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page })
    .exclude('iframe[title="Preview of the mail"]')
    .analyze();
  const violations = results.violations.map((violation) => ({
    rule: violation.id,
    help: violation.help,
    nodes: violation.nodes.map((node) => node.target.join(" ")),
  }));
  expect(violations, "axe accessibility violations").toEqual([]);
}

function signIn(browser: Browser, email: string, statePath: string) {
  return signInSeeded(browser, email, E2E_PASSWORD, statePath);
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(60_000);
  await signIn(browser, E2E_ADMIN.email, ADMIN_STATE);
  await signIn(browser, E2E_MEMBER.email, MEMBER_STATE);
});

test.describe("admin area: who gets in", () => {
  test("a signed-out visitor is sent to sign in, and the endpoint answers 401", async ({
    page,
    request,
  }) => {
    await page.goto("/admin/users");
    await expect(page).toHaveURL(/\/auth\/login\?redirectTo=%2Fadmin%2Fusers$/);
    const response = await request.post("/api/send-email-batch", { data: { emails: [] } });
    expect(response.status()).toBe(401);
    expect(await response.json()).toEqual({
      ok: false,
      message: "Sign in to continue.",
      fieldErrors: {},
    });
  });

  test.describe("as a member", () => {
    test.use({ storageState: MEMBER_STATE });

    test("opening /admin lands on the feed; admin calls answer 403", async ({ page }) => {
      await page.goto("/admin");
      await expect(page).toHaveURL(/\/feed$/);
      await page.goto("/admin/email");
      await expect(page).toHaveURL(/\/feed$/);
      await openAccountMenu(page);
      await expect(page.getByRole("link", { name: "Admin" })).toHaveCount(0);

      const batch = await page.request.post("/api/send-email-batch", {
        data: { emails: [] },
        headers: { Origin: new URL(page.url()).origin },
      });
      expect(batch.status()).toBe(403);
      const ban = await page.request.post("/admin/users.data", {
        form: { intent: "ban", userId: E2E_ADMIN.id, reason: "coup" },
        headers: { Origin: new URL(page.url()).origin },
      });
      expect(ban.status()).toBe(403);
    });
  });
});

test.describe("admin area", () => {
  test.use({ storageState: ADMIN_STATE });

  test("an admin sees the counts and the per-day charts", async ({ page }) => {
    await gotoHydrated(page, "/admin");
    await expect(page.getByRole("heading", { name: "Admin", level: 1 })).toBeVisible();
    const nav = page.getByRole("navigation", { name: "Admin sections" });
    await expect(nav.getByRole("link", { name: "Statistics" })).toHaveAttribute(
      "aria-current",
      "page",
    );
    const count = async (label: string) =>
      Number(
        (
          await page
            .locator("dt", { hasText: new RegExp(`^${label}$`) })
            .locator("+ dd")
            .textContent()
        )?.replaceAll(",", ""),
      );
    const profiles = await count("Profiles");
    expect(profiles).toBeGreaterThanOrEqual(BULK_COUNT + 3);
    expect(await count("Posts")).toBeGreaterThanOrEqual(1);
    expect(await count("Comments")).toBeGreaterThanOrEqual(SEEDED_COMMENTS - 1);
    await expect(page.locator("dt", { hasText: "Last 7 days" })).toBeVisible();
    // Both charts draw bars, and their numbers are available as tables.
    await expect(page.locator(".recharts-surface")).toHaveCount(2);
    await page.getByText("Show as a table").first().click();
    await expect(
      page.getByRole("table", { name: "New accounts per day" }).getByRole("row"),
    ).toHaveCount(31);

    // The same exact count as the users list.
    await gotoHydrated(page, "/admin/users");
    await expect(page.getByRole("heading", { name: `Users (${profiles})` })).toBeVisible();
  });

  test("pages through the comments and deletes one with a reason", async ({ page }) => {
    await gotoHydrated(page, "/admin/comments");
    const pager = page.getByRole("navigation", { name: "Comments pages" });
    await expect(pager.getByText(/^Page 1 of \d+$/)).toBeVisible();
    await expect(pager.getByRole("link", { name: "Previous" })).toHaveCount(0);
    const comments = page.getByRole("article");
    await expect(comments).toHaveCount(12);
    // Newest first, with author, text, post link and date.
    const newest = comments.first();
    await expect(newest).toContainText(`Seeded comment ${SEEDED_COMMENTS}`);
    await expect(newest).toContainText(`@${bulkAccount(SEEDED_COMMENTS).username}`);
    await expect(newest.getByRole("link", { name: /On “Seeded track/ })).toBeVisible();

    await pager.getByRole("link", { name: "Next" }).click();
    await expect(pager.getByText(/^Page 2 of \d+$/)).toBeVisible();
    await expect(page).toHaveURL(/\?page=2$/);
    await expect(pager.getByRole("link", { name: "Previous" })).toBeVisible();
    await pager.getByRole("link", { name: "Previous" }).click();
    await expect(pager.getByText(/^Page 1 of/)).toBeVisible();

    await page
      .getByRole("button", { name: `Delete comment by @${bulkAccount(SEEDED_COMMENTS).username}` })
      .click();
    const dialog = page.getByRole("dialog", { name: "Delete this comment?" });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Reason").fill("Off-topic spam");
    await dialog.getByRole("button", { name: "Delete comment" }).click();
    await expect(page.getByText("Comment deleted.")).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(page.getByText(`Seeded comment ${SEEDED_COMMENTS}`, { exact: true })).toHaveCount(
      0,
    );

    await gotoHydrated(page, "/admin/audit");
    const entry = page.getByRole("row").filter({ hasText: "Deleted a comment" }).first();
    await expect(entry).toContainText("Off-topic spam");
    await expect(entry).toContainText(`@${E2E_ADMIN.username}`);
  });

  test("pages through the users, manages the admin role and bans", async ({ page }) => {
    await gotoHydrated(page, "/admin/users");
    const pager = page.getByRole("navigation", { name: "Users pages" });
    const label = (await pager.getByText(/^Page 1 of \d+$/).textContent()) ?? "";
    const totalPages = Number(label.split(" of ")[1]);
    expect(totalPages).toBeGreaterThanOrEqual(Math.ceil((BULK_COUNT + 3) / 12));
    await expect(page.getByRole("table").getByRole("row")).toHaveCount(13);
    await expect(page.getByRole("columnheader", { name: "User ID" })).toBeVisible();

    await pager.getByRole("link", { name: "Next" }).click();
    await expect(pager.getByText(`Page 2 of ${totalPages}`)).toBeVisible();

    // The admin is the oldest account: on the last page, where there is no Next.
    await gotoHydrated(page, `/admin/users?page=${totalPages}`);
    await expect(pager.getByRole("link", { name: "Next" })).toHaveCount(0);
    await page
      .getByRole("button", { name: `Remove admin role from @${E2E_ADMIN.username}` })
      .click();
    await expect(page.getByText("You are the last admin.", { exact: false })).toBeVisible();

    // The target is the newest seeded account: first page (unless other tests added accounts).
    const target = E2E_TARGET;
    await gotoHydrated(page, "/admin/users?page=1");
    const row = page.getByRole("row").filter({ hasText: `@${target.username}` });
    await expect(row).toBeVisible();
    await row.getByRole("button", { name: `Make admin: @${target.username}` }).click();
    await expect(page.getByText("Admin role granted.")).toBeVisible();
    await expect(row.getByRole("listitem").filter({ hasText: "admin" })).toBeVisible();
    await row.getByRole("button", { name: `Remove admin role from @${target.username}` }).click();
    await expect(page.getByText("Admin role removed.")).toBeVisible();

    await row.getByRole("button", { name: `Ban @${target.username}` }).click();
    const dialog = page.getByRole("dialog", { name: `Ban @${target.username}?` });
    await dialog.getByLabel("Reason").fill("Spamming links");
    await dialog.getByRole("button", { name: "Ban" }).click();
    await expect(page.getByText(/^Banned\. 0 sessions ended\.$/)).toBeVisible();
    await expect(row).toContainText("Banned: Spamming links");
    await row.getByRole("button", { name: `Unban @${target.username}` }).click();
    await expect(page.getByText("Ban lifted.")).toBeVisible();
    await expect(row).toContainText("Active");
  });

  test("reviews reports: resolves the one about a post, deletes the reported comment", async ({
    page,
  }) => {
    await gotoHydrated(page, "/admin/reports");
    await expect(page.getByRole("link", { name: "Open", exact: true })).toHaveAttribute(
      "aria-current",
      "page",
    );
    const postReport = page.getByRole("article", { name: /^Report of a post/ });
    await expect(postReport).toContainText("Copyright");
    await expect(postReport).toContainText("reported by @bulk_002");
    await expect(postReport).toContainText(SEEDED_POST_TITLE);
    await postReport.getByRole("button", { name: "Resolve" }).click();
    await expect(page.getByText("Report resolved.")).toBeVisible();
    await expect(postReport).toHaveCount(0);

    const commentReport = page.getByRole("article", { name: /^Report of a comment/ });
    await expect(commentReport).toContainText(REPORTED_COMMENT);
    await commentReport.getByRole("button", { name: "Delete the reported comment" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this comment?" });
    await dialog.getByLabel("Reason").fill("Harassing another fan");
    await dialog.getByRole("button", { name: "Delete comment" }).click();
    await expect(page.getByText("Comment deleted.")).toBeVisible();
    await expect(page.getByText("No open reports. All clear.")).toBeVisible();

    await page.getByRole("link", { name: "Resolved", exact: true }).click();
    await expect(page.getByRole("article", { name: /^Report of a post/ })).toBeVisible();
    await gotoHydrated(page, "/admin/audit");
    await expect(page.getByRole("row").filter({ hasText: "Resolved a report" })).toHaveCount(1);
    await expect(page.getByRole("row").filter({ hasText: "Harassing another fan" })).toContainText(
      "Deleted a comment",
    );
  });

  test("sends a bulk mail to 250 accounts with the right greetings, each with an unsubscribe link", async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const subject = `Spring news ${Date.now()}`;
    await gotoHydrated(page, "/admin/email");
    await page.getByLabel("Subject").fill(subject);
    await page.getByLabel("Body (HTML)").fill("<p>Hi {{display_name}}!</p><p>@{{username}}</p>");
    await page.getByLabel("Choose people").check();
    await page.getByLabel("Filter people").fill("bulk_");
    await page.getByRole("button", { name: `Select all matching (${BULK_COUNT})` }).click();
    await expect(page.getByText(`${BULK_COUNT} people will get this mail.`)).toBeVisible();

    // The preview shows the first recipient's greeting, in a sandboxed frame.
    const preview = page.frameLocator('iframe[title="Preview of the mail"]');
    await expect(preview.getByText(`Hi ${bulkAccount(1).displayName}!`)).toBeVisible();
    await page.getByLabel("Preview for").selectOption({ label: `bulk_005 (@bulk_005)` });
    await expect(preview.getByText("Hi bulk_005!")).toBeVisible();
    await expect(page.locator('iframe[title="Preview of the mail"]')).toHaveAttribute(
      "sandbox",
      "",
    );

    await page.getByRole("button", { name: "Send bulk e-mail" }).click();
    await expect(
      page.getByText(`“${subject}” went out to ${BULK_COUNT} of ${BULK_COUNT} people.`),
    ).toBeVisible({
      timeout: 60_000,
    });

    // "Went out" includes mails being delivered in the background at that moment: wait for them.
    await expect
      .poll(async () => (await mailsWithSubject(request, subject)).length)
      .toBe(BULK_COUNT);
    const mails = await mailsWithSubject(request, subject);
    const byRecipient = new Map(mails.map((mail) => [mail.to[0], mail]));
    expect(byRecipient.size).toBe(BULK_COUNT);
    for (let n = 1; n <= BULK_COUNT; n++) {
      const account = bulkAccount(n);
      const body = decoded(byRecipient.get(account.email)?.raw ?? "");
      expect(body, account.email).toContain(`Hi ${account.displayName ?? account.username}!`);
      expect(body, account.email).toContain(`@${account.username}`);
    }
    const headers = unfoldedHeaders(byRecipient.get(bulkAccount(250).email)?.raw ?? "");
    expect(headers).toMatch(
      /^List-Unsubscribe: <http:\/\/127\.0\.0\.1:\d+\/unsubscribe\?token=[^>]+>/m,
    );
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);

    await expect(page.getByRole("row").filter({ hasText: subject })).toContainText(
      `${BULK_COUNT} of ${BULK_COUNT}`,
    );
  });

  test("when the mail server refuses one batch, the others go out and a retry sends the rest once", async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const refused = Array.from({ length: 100 }, (_, i) => bulkAccount(101 + i).email);
    await request.put(`${SINK}/refuse`, { data: { addresses: refused } });
    try {
      const subject = `Tour dates ${Date.now()}`;
      await gotoHydrated(page, "/admin/email");
      await page.getByLabel("Subject").fill(subject);
      await page.getByLabel("Body (HTML)").fill("<p>Hello {{display_name}}</p>");
      await page.getByLabel("Choose people").check();
      await page.getByLabel("Filter people").fill("bulk_");
      await page.getByRole("button", { name: `Select all matching (${BULK_COUNT})` }).click();
      await page.getByRole("button", { name: "Send bulk e-mail" }).click();

      await expect(
        page.getByRole("alert").filter({ hasText: "Failed to send some emails" }),
      ).toBeVisible({
        timeout: 60_000,
      });
      await expect(
        page.getByText("150 of 250 went out; 100 did not (1 of 3 batches"),
      ).toBeVisible();
      await expect.poll(async () => (await mailsWithSubject(request, subject)).length).toBe(150);
      await page.getByText("Show who did not get it").click();
      await expect(page.getByText(`${bulkAccount(150).email}:`)).toBeVisible();

      await request.delete(`${SINK}/refuse`);
      await page.getByRole("button", { name: "Retry failed (100)" }).click();
      await expect(page.getByText(`“${subject}” went out to 100 of 100 people.`)).toBeVisible({
        timeout: 60_000,
      });
      await expect
        .poll(async () => (await mailsWithSubject(request, subject)).length)
        .toBe(BULK_COUNT);
      const mails = await mailsWithSubject(request, subject);
      expect(new Set(mails.map((mail) => mail.to[0])).size).toBe(BULK_COUNT);
    } finally {
      await request.delete(`${SINK}/refuse`);
    }
  });

  test("the admin pages pass axe in light and dark, and fit a phone", async ({
    page,
    setColorMode,
  }) => {
    test.setTimeout(90_000);
    const pages = [
      "/admin",
      "/admin/comments",
      "/admin/users",
      "/admin/reports",
      "/admin/reports?status=resolved",
      "/admin/audit",
      "/admin/email",
    ];
    for (const mode of ["light", "dark"] as const) {
      await setColorMode(mode);
      for (const url of pages) {
        await gotoHydrated(page, url);
        await expectAdminPageAccessible(page);
      }
    }
    await page.setViewportSize({ width: 390, height: 844 });
    for (const url of pages) {
      await gotoHydrated(page, url);
      // Nothing sticks out sideways (wide tables and the section nav scroll in their own box).
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
      expect(tooWide, url).toEqual([]);
    }
    // Keyboard: the section nav is reachable and works with Enter.
    await gotoHydrated(page, "/admin");
    const users = page.getByRole("navigation", { name: "Admin sections" }).getByRole("link", {
      name: "Users",
    });
    await users.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/admin\/users$/);
  });
});

test.describe("unsubscribing", () => {
  test("the link in a bulk mail works signed out, with one click and a confirmation", async ({
    page,
    request,
    browser,
  }) => {
    const all = (await (await request.get(`${SINK}/messages`)).json()) as SinkMail[];
    const mail = all.find(
      (m) => m.to[0] === bulkAccount(250).email && m.subject.startsWith("Spring news"),
    );
    test.skip(!mail, "needs the bulk mail test's mails");
    const link = unfoldedHeaders(mail?.raw ?? "").match(/^List-Unsubscribe: <([^>]+)>/m)?.[1] ?? "";
    const url = new URL(link);

    await gotoHydrated(page, `${url.pathname}${url.search}`);
    await expect(
      page.getByRole("heading", { name: "Unsubscribe from announcements?" }),
    ).toBeVisible();
    await expectNoAxeViolations(page);
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(page.getByRole("heading", { name: "You are unsubscribed" })).toBeVisible();

    // The admin's recipient list now leaves them out.
    const admin = await browser.newContext({ storageState: ADMIN_STATE });
    const adminPage = await admin.newPage();
    await gotoHydrated(adminPage, "/admin/email");
    await adminPage.getByLabel("Choose people").check();
    await adminPage.getByLabel("Filter people").fill(bulkAccount(250).username);
    await expect(adminPage.getByText("(unsubscribed)")).toBeVisible();
    await admin.close();

    await page.getByRole("button", { name: "Subscribe again" }).click();
    await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();

    // A mail program's RFC 8058 one-click POST works without cookies or a page.
    const oneClick = await request.post(`${url.pathname}${url.search}`, {
      form: { "List-Unsubscribe": "One-Click" },
    });
    expect(oneClick.status()).toBe(200);
    await page.goto(`${url.pathname}${url.search}`);
    await expect(page.getByRole("heading", { name: "You are unsubscribed" })).toBeVisible();

    const forged = await page.goto("/unsubscribe?token=forged");
    expect(forged?.status()).toBe(400);
    await expect(
      page.getByText("This unsubscribe link is not valid.", { exact: false }),
    ).toBeVisible();
  });
});
