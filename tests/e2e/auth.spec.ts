import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { gotoHydrated, signOutFromMenu, useOwnClientAddress } from "./fixtures";

const SINK = `http://127.0.0.1:${process.env.SMTP_SINK_HTTP_PORT ?? 2526}`;

interface Mail {
  to: string[];
  subject: string;
  raw: string;
}

async function mailsTo(request: APIRequestContext, address: string): Promise<Mail[]> {
  const all = (await (await request.get(`${SINK}/messages`)).json()) as Mail[];
  return all.filter((m) => m.to.includes(address));
}

function confirmLink(raw: string): string {
  const unfolded = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = unfolded.match(/https?:\/\/[^\s"<>]+\/auth\/confirm\?token=[A-Za-z0-9._%-]+/);
  if (!match) throw new Error("no confirmation link in the mail");
  return match[0];
}

async function signUp(page: Page, email: string, username: string) {
  await gotoHydrated(page, "/auth/signup");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("Heroes-Bowie-1977");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Display name").fill("Bowie Fan");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
}

test.describe("accounts", () => {
  test.beforeEach(async ({ page }) => {
    await useOwnClientAddress(page);
  });

  test("sign up, confirm by e-mail, land on the feed signed in, sign out, sign in again", async ({
    page,
    request,
  }) => {
    const email = `ziggy-${Date.now()}@example.org`;
    await signUp(page, email, `ziggy${Date.now() % 100000}`);

    await expect.poll(async () => (await mailsTo(request, email)).length).toBe(1);
    const mails = await mailsTo(request, email);
    expect(mails[0]?.subject).toBe("Confirm your e-mail for Soundtrail");
    const link = new URL(confirmLink(mails[0]?.raw ?? ""));

    await page.goto(`${link.pathname}${link.search}`);
    await expect(page).toHaveURL(/\/feed$/);
    await expect(page.getByRole("heading", { name: "Your feed", exact: true })).toBeVisible();
    await expect(page.getByText("E-mail confirmed")).toBeVisible();

    // A signed-in visitor opening the login page is sent to the feed.
    await page.goto("/auth/login");
    await expect(page).toHaveURL(/\/feed$/);

    // A second tab of the same browser follows the sign-out on its own.
    const otherTab = await page.context().newPage();
    await gotoHydrated(otherTab, "/settings");
    await expect(otherTab.getByRole("heading", { name: "Settings" })).toBeVisible();

    await signOutFromMenu(page);
    await expect(page).toHaveURL(/\/$/);
    await expect(otherTab).toHaveURL(/\/auth\/login/);
    await otherTab.close();
    await page.goto("/profile");
    await expect(page).toHaveURL(/\/auth\/login\?redirectTo=%2Fprofile$/);

    // Signing in from there lands on the remembered destination.
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("Heroes-Bowie-1977");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole("heading", { name: "Bowie Fan" })).toBeVisible();
  });

  test("a weak password is refused next to the field and nothing typed is lost", async ({
    page,
  }) => {
    await gotoHydrated(page, "/auth/signup");
    await page.getByLabel("Email").fill("weak@example.org");
    await page.getByLabel("Password").fill("password");
    await page.getByLabel("Username").fill("weak_one");
    await page.getByLabel("Display name").fill("Weak One");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByText("This password is too common")).toBeVisible();
    await expect(page.getByText("Use at least 10 characters")).toBeVisible();
    await expect(page.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Email")).toHaveValue("weak@example.org");
    await expect(page.getByLabel("Username")).toHaveValue("weak_one");
  });

  test("missing e-mail or password gets the spec's message", async ({ page }) => {
    await gotoHydrated(page, "/auth/login");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(
      page.getByText("You must provide either an email or phone number and a password"),
    ).toBeVisible();
  });

  test("wrong credentials get one generic message", async ({ page }) => {
    await gotoHydrated(page, "/auth/login");
    await page.getByLabel("Email").fill("nobody@example.org");
    await page.getByLabel("Password").fill("Not-The-Password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("That e-mail and password do not match an account.")).toBeVisible();
  });

  test("a forged confirmation link explains itself and offers a new link", async ({ page }) => {
    await page.goto("/auth/confirm?token=forged");
    await expect(
      page.getByText("This confirmation link has expired, was already used, or is not valid."),
    ).toBeVisible();
    await page.getByLabel("Email").fill("someone@example.org");
    await page.getByRole("button", { name: "Send a new link" }).click();
    await expect(page.getByText("a new link is on its way")).toBeVisible();
  });
});
