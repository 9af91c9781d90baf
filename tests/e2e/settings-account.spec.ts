import { type APIRequestContext, type Browser, type Page, test } from "@playwright/test";
import sharp from "sharp";
import {
  useOwnClientAddress as comeFromOwnAddress,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  reloadHydrated,
  signOutFromMenu,
} from "./fixtures";
import { lastMailTo, linkIn, SINK, type SinkMail } from "./mail-sink";
import { PASSWORD, type Person, signUp } from "./people";

/** A second browser, told apart from the first in the sessions list by its user agent. */
const OTHER_DEVICE_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

function unique(prefix: string): string {
  return `${prefix}${Date.now() % 1_000_000}${Math.floor(Math.random() * 100)}`;
}

function emailOf(person: Person): string {
  return `${person.username}@example.org`;
}

/** A page in a new context that carries the person's sign-up session. */
async function pageAs(browser: Browser, person: Person): Promise<Page> {
  const context = await browser.newContext({ storageState: person.storage });
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  return page;
}

/** A new context with its own session: signs in through the sign-in page. */
async function signInElsewhere(
  browser: Browser,
  email: string,
  password: string,
  userAgent?: string,
): Promise<Page> {
  const context = await browser.newContext({
    storageState: { cookies: [], origins: [] },
    userAgent,
  });
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  await signIn(page, email, password);
  await expect(page).toHaveURL(/\/feed$/);
  return page;
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await gotoHydrated(page, "/auth/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

async function signOut(page: Page): Promise<void> {
  await signOutFromMenu(page);
  await expect(page.getByRole("button", { name: "Sign out", exact: true })).toHaveCount(0);
}

async function mailsTo(request: APIRequestContext, address: string): Promise<SinkMail[]> {
  const all = (await (await request.get(`${SINK}/messages`)).json()) as SinkMail[];
  return all.filter((m) => m.to.includes(address));
}

const REFUSED = "That e-mail and password do not match an account.";

test("changes the e-mail through the link mailed to the new address, then signs in with it", async ({
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const person = await signUp(browser, request, unique("mover"), "Mo Mover");
  const oldEmail = emailOf(person);
  const newEmail = `${unique("moved")}@example.net`;
  const page = await pageAs(browser, person);
  await gotoHydrated(page, "/settings/account");
  await expect(page.getByText(`Now: ${oldEmail}`)).toBeVisible();

  // A malformed address is refused inline, and what was typed stays.
  await page.getByLabel("New e-mail").fill("not-an-address");
  await page.getByRole("button", { name: "Send confirmation link" }).click();
  await expect(page.getByText("Enter a valid e-mail address.")).toBeVisible();
  await expect(page.getByLabel("New e-mail")).toHaveValue("not-an-address");

  // Signed in a moment ago: no password is asked.
  await page.getByLabel("New e-mail").fill(newEmail);
  await page.getByRole("button", { name: "Send confirmation link" }).click();
  await expect(page.getByText("Check your new inbox")).toBeVisible();
  // Nothing changes until the link is opened.
  await expect(page.getByText(`Now: ${oldEmail}`)).toBeVisible();

  const confirmation = await lastMailTo(
    request,
    newEmail,
    (m) => m.subject === "Confirm your new e-mail for Soundtrail",
  );
  await page.goto(linkIn(confirmation, "/settings/confirm-email"));
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByText("E-mail confirmed")).toBeVisible();
  await gotoHydrated(page, "/settings/account");
  await expect(page.getByText(`Now: ${newEmail}`)).toBeVisible();
  await expect(page.getByText("(not confirmed yet)")).toHaveCount(0);

  // The old address was told of the change (after its own sign-up confirmation).
  const notice = await lastMailTo(
    request,
    oldEmail,
    (m) => m.subject === "Your Soundtrail e-mail is being changed",
  );
  // It names the new address masked ("ne•••@example.test"), never in full.
  const unfolded = notice.raw.replace(/=\r?\n/g, "");
  expect(unfolded).toContain(`@${newEmail.split("@")[1]}`);
  expect(unfolded).not.toContain(newEmail);
  const toOld = await mailsTo(request, oldEmail);
  expect(toOld.map((m) => m.subject)).toEqual([
    "Confirm your e-mail for Soundtrail",
    "Your Soundtrail e-mail is being changed",
  ]);

  await signOut(page);
  await signIn(page, oldEmail, PASSWORD);
  await expect(page.getByText(REFUSED)).toBeVisible();
  await signIn(page, newEmail, PASSWORD);
  await expect(page).toHaveURL(/\/feed$/);
  await page.context().close();
});

test("changes the password, which signs out the other devices; the new one signs in", async ({
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const person = await signUp(browser, request, unique("keys"), "Kim Keys");
  const email = emailOf(person);
  const newPassword = "Low-Bowie-Berlin-1977";
  const other = await signInElsewhere(browser, email, PASSWORD, OTHER_DEVICE_UA);

  const page = await pageAs(browser, person);
  await gotoHydrated(page, "/settings/security");
  const sessions = page.getByRole("list", { name: "Active sessions" });
  await expect(sessions.getByRole("listitem")).toHaveCount(2);
  await expect(sessions).toContainText("Firefox 128 on Linux");

  // A wrong current password is refused next to the field.
  await page.getByLabel("Current password").fill("Not-My-Password-1");
  await page.getByLabel("New password").fill(newPassword);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("That password is not right.")).toBeVisible();

  await page.getByLabel("Current password").fill(PASSWORD);
  await page.getByLabel("New password").fill(newPassword);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(
    page.getByText("Password changed. Every other device was signed out."),
  ).toBeVisible();
  // This device stays signed in; the list now holds only it.
  await reloadHydrated(page);
  await expect(sessions.getByRole("listitem")).toHaveCount(1);
  await expect(sessions).toContainText("This device");

  // The other device is signed out on its next request.
  await other.goto("/settings/security");
  await expect(other).toHaveURL(/\/auth\/login/);
  await expect(other.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();

  await signOut(page);
  await signIn(page, email, PASSWORD);
  await expect(page.getByText(REFUSED)).toBeVisible();
  await signIn(page, email, newPassword);
  await expect(page).toHaveURL(/\/feed$/);
  await page.context().close();
  await other.context().close();
});

test("ends another session from the sessions list; that browser is signed out on its next request", async ({
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const person = await signUp(browser, request, unique("twin"), "Tess Twin");
  const deviceB = await signInElsewhere(browser, emailOf(person), PASSWORD, OTHER_DEVICE_UA);
  const deviceA = await pageAs(browser, person);

  await gotoHydrated(deviceA, "/settings/security");
  const sessions = deviceA.getByRole("list", { name: "Active sessions" });
  await expect(sessions.getByRole("listitem")).toHaveCount(2);
  const current = sessions.getByRole("listitem").filter({ hasText: "This device" });
  await expect(current).toHaveCount(1);
  await expect(current.getByRole("button")).toHaveCount(0);
  const otherRow = sessions.getByRole("listitem").filter({ hasText: "Firefox 128 on Linux" });
  await expect(otherRow).toContainText("Signed in with password");
  await expectNoAxeViolations(deviceA);

  await otherRow.getByRole("button", { name: "Sign out Firefox 128 on Linux" }).click();
  await expect(deviceA.getByText("Session ended")).toBeVisible();
  await expect(sessions.getByRole("listitem")).toHaveCount(1);
  await expect(sessions).toContainText("This device");

  // B's next navigation lands on the sign-in page; A is still signed in.
  await deviceB.goto("/profile");
  await expect(deviceB).toHaveURL(/\/auth\/login\?redirectTo=%2Fprofile$/);
  await expect(deviceB.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
  await gotoHydrated(deviceA, "/profile");
  await expect(deviceA.getByRole("heading", { level: 1, name: "Tess Twin" })).toBeVisible();
  await deviceA.context().close();
  await deviceB.context().close();
});

test("deletes the account after typing the username; the old credentials are refused", async ({
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const person = await signUp(browser, request, unique("leaver"), "Lee Leaver");
  const email = emailOf(person);
  const page = await pageAs(browser, person);
  await gotoHydrated(page, "/settings/account");
  const confirm = page.getByLabel(`Type your username (${person.username}) to confirm`);

  // The wrong username is refused in place; nothing is deleted.
  await confirm.fill("someone_else");
  await page.getByRole("button", { name: "Delete my account" }).click();
  await expect(page.getByText(`Type your username, ${person.username}, to confirm.`)).toBeVisible();
  await expect(confirm).toHaveValue("someone_else");

  // Signed in a moment ago: the username is all that is asked.
  await confirm.fill(person.username);
  await page.getByRole("button", { name: "Delete my account" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText("Your account was deleted")).toBeVisible();

  // The session is gone with the account.
  await page.goto("/settings/account");
  await expect(page).toHaveURL(/\/auth\/login/);

  await signIn(page, email, PASSWORD);
  await expect(page.getByText(REFUSED)).toBeVisible();
  await expect(page).toHaveURL(/\/auth\/login/);
  await page.context().close();
});

test("a new picture shows on /profile and on the person's posts", async ({ browser, request }) => {
  test.setTimeout(120_000);
  const person = await signUp(browser, request, unique("pic"), "Pia Picture");
  const page = await pageAs(browser, person);
  await gotoHydrated(page, "/feed");
  await page.locator("body").press("n");
  await page.getByLabel("Track title").fill("Portrait Of Tracy");
  await page.getByRole("combobox", { name: "Artist", exact: true }).fill("Jaco Pastorius");
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page.getByText("is on your feed")).toBeVisible();

  // Before: no picture on the post, only the initial.
  await gotoHydrated(page, "/profile");
  const post = page.locator("article.post-card").filter({ hasText: "Portrait Of Tracy" });
  await expect(post).toHaveCount(1);
  await expect(post.locator("header img")).toHaveCount(0);

  const picture = await sharp({
    create: { width: 300, height: 200, channels: 3, background: { r: 190, g: 24, b: 93 } },
  })
    .png()
    .toBuffer();
  await gotoHydrated(page, "/settings/profile");
  await page
    .getByLabel("Choose a picture")
    .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: picture });
  await expect(page.getByRole("img", { name: /cropped square/ })).toBeVisible();
  await page.getByRole("button", { name: "Upload picture" }).click();
  await expect(page.getByText("Picture updated")).toBeVisible();

  await gotoHydrated(page, "/profile");
  const onPost = post.locator("header img");
  await expect(onPost).toHaveAttribute("src", /^\/media\//);
  const postSrc = (await onPost.getAttribute("src")) ?? "";
  // The same picture as the profile's own, served as a re-encoded square.
  const onProfile = page.locator(`img[src="${postSrc}"]`);
  expect(await onProfile.count()).toBeGreaterThanOrEqual(2);
  const image = await page.request.get(postSrc);
  expect(image.headers()["content-type"]).toBe("image/webp");
  const meta = await sharp(await image.body()).metadata();
  expect(meta.width).toBe(meta.height);
  // The centre of the crop is the colour that was uploaded.
  const { data } = await sharp(await image.body())
    .extract({
      left: Math.floor((meta.width ?? 2) / 2),
      top: Math.floor((meta.height ?? 2) / 2),
      width: 1,
      height: 1,
    })
    .raw()
    .toBuffer({ resolveWithObject: true });
  expect(Math.abs((data[0] ?? 0) - 190)).toBeLessThan(12);

  // And on the post in the feed.
  await gotoHydrated(page, "/feed");
  await expect(
    page
      .locator("article.post-card")
      .filter({ hasText: "Portrait Of Tracy" })
      .locator("header img"),
  ).toHaveAttribute("src", postSrc);
  await page.context().close();
});
