import { createHmac } from "node:crypto";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import {
  expectNoAxeViolations,
  gotoHydrated,
  signOutFromMenu,
  useOwnClientAddress,
} from "./fixtures";
import { lastMailTo, linkIn, SINK } from "./mail-sink";

const PASSWORD = "Heroes-Bowie-1977";

function unique(prefix: string) {
  return `${prefix}${Date.now() % 1_000_000}${Math.floor(Math.random() * 100)}`;
}

/** Signs up by e-mail and confirms through the mailed link; ends on /feed, signed in. */
async function createAccount(page: Page, request: APIRequestContext, name: string) {
  const email = `${name}@example.org`;
  await gotoHydrated(page, "/auth/signup");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByLabel("Username").fill(name);
  await page.getByLabel("Display name").fill(`Fan ${name}`);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  await page.goto(linkIn(await lastMailTo(request, email), "/auth/confirm"));
  await expect(page).toHaveURL(/\/feed$/);
  return email;
}

async function signOut(page: Page) {
  await signOutFromMenu(page);
  await expect(page).not.toHaveURL(/\/feed$/);
  await expect(page.getByRole("button", { name: "Sign out", exact: true })).toHaveCount(0);
}

/** RFC 6238 code for a base32 secret, `offset` periods from now. */
function totp(secret: string, offset = 0): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const ch of secret.replace(/=+$/, "").toUpperCase()) {
    bits += alphabet.indexOf(ch).toString(2).padStart(5, "0");
  }
  const bytes = Buffer.from(bits.match(/.{8}/g)?.map((b) => Number.parseInt(b, 2)) ?? []);
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + offset));
  const mac = createHmac("sha1", bytes).update(counter).digest();
  const at = (mac.at(-1) ?? 0) & 15;
  const value = (mac.readUInt32BE(at) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, "0");
}

test.describe("every way in", () => {
  test.beforeEach(async ({ page }) => {
    await useOwnClientAddress(page);
  });

  test("signs in with a one-time code sent by e-mail", async ({ page, request }) => {
    const name = unique("coder");
    const email = await createAccount(page, request, name);
    await signOut(page);

    await gotoHydrated(page, "/auth/login");
    await page.getByRole("button", { name: "E-mail me a sign-in code" }).click();
    await expect(page.getByText("You must provide either an email or phone number.")).toBeVisible();

    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "E-mail me a sign-in code" }).click();
    await expect(page.getByRole("heading", { name: "Enter your code" })).toBeVisible();
    const mail = await lastMailTo(request, email, (m) => /is your Soundtrail code/.test(m.subject));
    const code = mail.subject.match(/\d{6}/)?.[0] ?? "";
    await page.getByLabel("Code", { exact: true }).fill(code);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/feed$/);
  });

  test("signs up with a phone number confirmed by a texted code", async ({ page, request }) => {
    const phone = `+4915${String(Date.now()).slice(-8)}`;
    await gotoHydrated(page, "/auth/signup");
    await page.getByRole("link", { name: "Use a phone number instead" }).click();
    await page.getByLabel("Phone").fill(phone);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Username").fill(unique("phone"));
    await page.getByLabel("Display name").fill("Phone Fan");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("heading", { name: "Confirm your phone" })).toBeVisible();
    await expectNoAxeViolations(page);

    let code = "";
    await expect
      .poll(async () => {
        const texts = (await (await request.get(`${SINK}/sms`)).json()) as {
          to: string;
          body: string;
        }[];
        code =
          texts
            .filter((t) => t.to === phone)
            .at(-1)
            ?.body.match(/\d{6}/)?.[0] ?? "";
        return code;
      })
      .not.toBe("");
    await page.getByLabel("Code", { exact: true }).fill(code);
    await page.getByRole("button", { name: "Confirm and continue" }).click();
    await expect(page).toHaveURL(/\/feed$/);
  });

  test("a guest posts, then saves the account and keeps the post", async ({ page, request }) => {
    await gotoHydrated(page, "/auth/login");
    await page.getByRole("button", { name: "Continue as guest" }).click();
    await expect(page).toHaveURL(/\/feed$/);
    await expect(page.getByText("You are using Soundtrail as a guest.")).toBeVisible();

    const title = `Guest track ${Date.now()}`;
    await page.getByRole("link", { name: "Share some music…" }).click();
    await page.getByLabel("Track title").fill(title);
    await page.getByRole("combobox", { name: "Artist" }).fill("The Guests");
    await page.getByRole("button", { name: "Share", exact: true }).click();
    await expect(page.getByText(title).first()).toBeVisible();

    await page.getByRole("link", { name: "Save your account" }).click();
    const name = unique("saved");
    const email = `${name}@example.org`;
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Username").fill(name);
    await page.getByLabel("Display name").fill("Saved Guest");
    await page.getByRole("button", { name: "Save my account" }).click();
    await expect(page.getByText("Your account is saved")).toBeVisible();
    await page.goto(linkIn(await lastMailTo(request, email), "/settings/confirm-email"));
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByText("E-mail confirmed")).toBeVisible();
    await expect(page.getByText("You are using Soundtrail as a guest.")).toHaveCount(0);

    await signOut(page);
    await gotoHydrated(page, "/auth/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/\/feed$/);
    await gotoHydrated(page, "/profile");
    await expect(page.getByText(title).first()).toBeVisible();
  });

  test("resets a forgotten password through a mailed link", async ({ page, request }) => {
    const name = unique("forgot");
    const email = await createAccount(page, request, name);
    await signOut(page);

    await gotoHydrated(page, "/auth/login");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send me a link" }).click();
    await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();

    const reset = await lastMailTo(request, email, (m) =>
      /Reset your Soundtrail password/.test(m.subject),
    );
    await gotoHydrated(page, linkIn(reset, "/auth/reset-password"));
    await page.getByLabel("Password").fill("password");
    await page.getByRole("button", { name: "Save new password" }).click();
    await expect(page.getByText(/at least 10 characters/i).first()).toBeVisible();
    await page.getByLabel("Password").fill("New-Heroes-Bowie-1977");
    await page.getByRole("button", { name: "Save new password" }).click();
    await expect(page).toHaveURL(/\/auth\/login/);
    await expect(page.getByText("Password changed")).toBeVisible();

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("New-Heroes-Bowie-1977");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/\/feed$/);
  });

  test("turns on two-step sign-in, then signs in with a code; a replayed code is refused", async ({
    page,
    request,
  }) => {
    const name = unique("totp");
    const email = await createAccount(page, request, name);
    await gotoHydrated(page, "/settings/security");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Set up two-step sign-in" }).click();
    await expect(
      page.getByRole("img", { name: "QR code for your authenticator app" }),
    ).toBeVisible();
    const secret = (await page.locator("code").first().textContent())?.trim() ?? "";
    expect(secret).toMatch(/^[A-Z2-7]+$/);
    await expectNoAxeViolations(page);

    const enrolmentCode = totp(secret);
    await page.getByLabel("Code", { exact: true }).fill(enrolmentCode);
    await page.getByRole("button", { name: "Turn on two-step sign-in" }).click();
    await expect(
      page.getByRole("list", { name: "Backup codes" }).getByRole("listitem"),
    ).toHaveCount(10);

    await signOut(page);
    await gotoHydrated(page, "/auth/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/\/auth\/two-factor/);
    // No session yet: the feed still sends us to sign in.
    const cookies = await page.context().cookies();
    expect(cookies.some((c) => c.name.endsWith("session_token"))).toBe(false);

    await page.getByLabel("Code", { exact: true }).fill(enrolmentCode);
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByText("That code was already used.")).toBeVisible();

    await gotoHydrated(page, "/auth/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/\/auth\/two-factor/);
    await page.getByLabel("Code", { exact: true }).fill(totp(secret, 1));
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page).toHaveURL(/\/feed$/);
  });

  test("hides OAuth buttons for providers that are not configured", async ({ page }) => {
    await gotoHydrated(page, "/auth/login");
    await expect(
      page.getByRole("button", { name: /Continue with (Spotify|Google|GitHub)/ }),
    ).toHaveCount(0);
    await expectNoAxeViolations(page);
  });
});
