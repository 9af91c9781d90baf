import { type Browser, type Page, test } from "@playwright/test";
import sharp from "sharp";
import { E2E_MEMBER } from "../support/e2e-accounts";
import {
  COLOR_MODE_COOKIE,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  reloadHydrated,
} from "./fixtures";
import { type Person, signUp } from "./people";

const SECTIONS = [
  ["/settings", "Your name, username, bio and picture"],
  ["/settings/profile", "Profile"],
  ["/settings/account", "Account"],
  ["/settings/security", "Where you are signed in"],
  ["/settings/notifications", "Notifications"],
  ["/settings/privacy", "Privacy"],
  ["/settings/listening", "Listening history"],
  ["/settings/data", "Your data"],
  ["/settings/appearance", "Appearance"],
] as const;

function unique(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
}

async function pageAs(
  browser: Browser,
  person: Person,
  options: { mode?: "light" | "dark"; viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const context = await browser.newContext({
    storageState: person.storage,
    viewport: options.viewport,
  });
  const baseURL = test.info().project.use.baseURL;
  if (options.mode && baseURL) {
    await context.addCookies([{ name: COLOR_MODE_COOKIE, value: options.mode, url: baseURL }]);
  }
  return context.newPage();
}

let person: Person;

test.beforeAll(async ({ browser, request }) => {
  person = await signUp(browser, request, unique("set"), "Sam Settings");
});

test("edits the profile in settings and sees it on /profile", async ({ browser }) => {
  const page = await pageAs(browser, person);
  await gotoHydrated(page, "/profile");
  await page.getByRole("link", { name: "Edit profile" }).click();
  await expect(page).toHaveURL(/\/settings\/profile$/);
  await expect(page.getByRole("heading", { name: "Profile", level: 2 })).toBeVisible();

  // A taken username is refused as it is typed, with the reason, whatever its case.
  const username = page.getByLabel("Username");
  await username.fill(E2E_MEMBER.username.toUpperCase());
  await expect(page.getByText("That username is taken. Try another one.")).toBeVisible();
  await username.fill("no spaces");
  await expect(page.getByText("Use 3–30 letters, digits, “_” or “.”.")).toBeVisible();
  const renamed = unique("sam");
  await username.fill(renamed);
  await expect(page.getByText(`${renamed} is available.`)).toBeVisible();

  await page.getByLabel("Display name").fill("Sam Renamed");
  await page.getByLabel("Bio").fill("Krautrock and kitchen radio.");
  await expect(page.getByText("272 of 300 characters left.")).toBeVisible();
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.getByText("Profile saved")).toBeVisible();

  // A picture: cropped to a square in the browser, re-encoded on the server.
  const picture = await sharp({
    create: { width: 1200, height: 800, channels: 3, background: { r: 21, g: 128, b: 61 } },
  })
    .png()
    .toBuffer();
  await page
    .getByLabel("Choose a picture")
    .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: picture });
  await expect(page.getByRole("img", { name: /cropped square/ })).toBeVisible();
  await page.getByRole("button", { name: "Upload picture" }).click();
  await expect(page.getByText("Picture updated")).toBeVisible();

  // A file that is not an image is refused with a clear message, next to the field.
  await page.getByLabel("Choose a picture").setInputFiles({
    name: "notes.png",
    mimeType: "image/png",
    buffer: Buffer.from("not really a picture"),
  });
  await page.getByRole("button", { name: "Upload picture" }).click();
  await expect(page.getByText(/That file is not an image we can read/)).toBeVisible();

  await gotoHydrated(page, "/profile");
  await expect(page.getByRole("heading", { level: 1, name: "Sam Renamed" })).toBeVisible();
  await expect(page.locator("#main").getByText(`@${renamed}`)).toBeVisible();
  await expect(page.getByText("Krautrock and kitchen radio.")).toBeVisible();
  const avatar = page.locator("header img[src^='/media/']").first();
  await expect(avatar).toBeVisible();
  const src = (await avatar.getAttribute("src")) ?? "";
  const image = await page.request.get(src);
  expect(image.headers()["content-type"]).toBe("image/webp");
  const meta = await sharp(await image.body()).metadata();
  expect([meta.width, meta.height]).toEqual([512, 512]);
  await page.context().close();
});

test("changes a notification preference and it stays changed", async ({ browser }) => {
  const page = await pageAs(browser, person);
  await gotoHydrated(page, "/settings/notifications");
  const likesByMail = page.getByRole("checkbox", { name: "Likes on your posts by e-mail" });
  const followsInApp = page.getByRole("checkbox", { name: "New followers in the app" });
  await expect(likesByMail).not.toBeChecked();
  await expect(followsInApp).toBeChecked();
  await likesByMail.check();
  await followsInApp.uncheck();
  await page.getByRole("button", { name: "Save notification settings" }).click();
  await expect(page.getByText("Notification settings saved")).toBeVisible();
  await reloadHydrated(page);
  await expect(page.getByRole("checkbox", { name: "Likes on your posts by e-mail" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "New followers in the app" })).not.toBeChecked();
  await page.context().close();
});

test("a phone starts from the list of sections; a wide screen has the side menu", async ({
  browser,
}) => {
  const phone = await pageAs(browser, person, { viewport: { width: 390, height: 844 } });
  await gotoHydrated(phone, "/settings");
  await expect(phone.getByRole("navigation", { name: "Settings sections" })).toBeHidden();
  await phone
    .getByRole("navigation", { name: "All settings" })
    .getByRole("link", { name: /Privacy/ })
    .click();
  await expect(phone).toHaveURL(/\/settings\/privacy$/);
  await expect(phone.getByText("You have not blocked anyone.")).toBeVisible();
  await phone.getByRole("link", { name: "All settings" }).click();
  await expect(phone).toHaveURL(/\/settings$/);
  await phone.context().close();

  const wide = await pageAs(browser, person, { viewport: { width: 1280, height: 900 } });
  await gotoHydrated(wide, "/settings/account");
  const menu = wide.getByRole("navigation", { name: "Settings sections" });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole("link", { name: "Account" })).toHaveAttribute("aria-current", "page");
  await menu.getByRole("link", { name: "Security" }).click();
  await expect(wide.getByRole("list", { name: "Active sessions" })).toContainText("This device");
  await wide.context().close();
});

for (const mode of ["light", "dark"] as const) {
  test(`every settings section passes axe in the ${mode} theme`, async ({ browser }) => {
    test.setTimeout(120_000);
    const page = await pageAs(browser, person, { mode });
    for (const [path, text] of SECTIONS) {
      await gotoHydrated(page, path);
      await expect(page.locator("html")).toHaveAttribute("data-theme", mode);
      await expect(page.locator("#main").getByText(text, { exact: true }).first()).toBeVisible();
      await expectNoAxeViolations(page);
    }
    await page.context().close();
  });
}
