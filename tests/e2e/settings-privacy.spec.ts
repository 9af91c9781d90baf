import { createHmac } from "node:crypto";
import { inflateRawSync } from "node:zlib";
import { type Browser, type Page, test } from "@playwright/test";
import {
  COLOR_MODE_COOKIE,
  clickFollowButton,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  reloadHydrated,
} from "./fixtures";
import { type Person, signUp } from "./people";

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

async function pageAs(browser: Browser, person: Person, mode?: "light" | "dark"): Promise<Page> {
  const context = await browser.newContext({ storageState: person.storage });
  const baseURL = test.info().project.use.baseURL;
  if (mode && baseURL) {
    await context.addCookies([{ name: COLOR_MODE_COOKIE, value: mode, url: baseURL }]);
  }
  return context.newPage();
}

test.describe
  .serial("privacy settings", () => {
    const run = `${Date.now() % 1_000_000}`;
    let owner: Person;
    let requester: Person;

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(90_000);
      owner = await signUp(browser, request, `priv${run}`, "Paula Private");
      requester = await signUp(browser, request, `asker${run}`, "Rudi Requester");
    });

    test("with follow approval on, a request waits, is accepted, and then followers-only posts show", async ({
      browser,
    }) => {
      test.setTimeout(90_000);
      const paula = await pageAs(browser, owner);
      await gotoHydrated(paula, "/settings/privacy");
      await paula.getByRole("radio", { name: "People I approve" }).check();
      await paula.getByRole("radio", { name: "Followers" }).check();
      await paula.getByRole("button", { name: "Save privacy settings" }).click();
      await expect(paula.getByText("Privacy settings saved")).toBeVisible();
      await expect(paula.getByRole("radio", { name: "People I approve" })).toBeChecked();
      await expect(paula.getByText("Nobody is waiting for an answer.")).toBeVisible();

      // The composer starts from the default audience.
      await gotoHydrated(paula, "/feed");
      await paula.locator("body").press("n");
      await expect(paula.getByLabel("Who can see it")).toHaveValue("followers");
      await paula.getByLabel("Track title").fill("Approved Ears Only");
      await paula.getByRole("combobox", { name: "Artist", exact: true }).fill("Broadcast");
      await paula.getByRole("button", { name: "Share", exact: true }).click();
      await expect(paula.getByText("is on your feed")).toBeVisible();

      // A second person, in their own browser context, asks to follow.
      const rudi = await pageAs(browser, requester);
      await gotoHydrated(rudi, `/u/${owner.username}`);
      await expect(rudi.getByRole("heading", { level: 1, name: "Paula Private" })).toBeVisible();
      await expect(rudi.getByText("Approved Ears Only")).toHaveCount(0);
      await clickFollowButton(rudi, "Follow Paula Private");
      await expect(rudi.getByRole("button", { name: "Requested Paula Private" })).toBeVisible();
      await reloadHydrated(rudi);
      await expect(rudi.getByRole("button", { name: "Requested Paula Private" })).toBeVisible();
      await expect(rudi.getByText("Approved Ears Only")).toHaveCount(0);

      // The owner hears of it and answers from the requests list.
      await gotoHydrated(paula, "/notifications");
      await paula.getByRole("link", { name: /Rudi Requester asked to follow you/ }).click();
      await expect(paula).toHaveURL(/\/settings\/privacy#follow-requests$/);
      const requests = paula.getByRole("list", { name: "Follow requests" });
      await expect(requests).toContainText("Rudi Requester");
      await requests.getByRole("button", { name: "Accept Rudi Requester" }).click();
      await expect(paula.getByText("Rudi Requester follows you now")).toBeVisible();
      await expect(paula.getByText("Nobody is waiting for an answer.")).toBeVisible();

      // The requester hears of it and now sees the followers-only post.
      await gotoHydrated(rudi, "/notifications");
      await expect(
        rudi.getByRole("link", { name: /Paula Private accepted your follow request/ }),
      ).toBeVisible();
      await gotoHydrated(rudi, `/u/${owner.username}`);
      await expect(rudi.getByRole("button", { name: "Following Paula Private" })).toBeVisible();
      await expect(
        rudi.getByRole("link", { name: "Approved Ears Only", exact: true }),
      ).toBeVisible();
      await paula.context().close();
      await rudi.context().close();
    });

    test("a requester can cancel, and the owner can decline", async ({ browser, request }) => {
      test.setTimeout(60_000);
      const other = await signUp(browser, request, `other${run}`, "Olga Other");
      const olga = await pageAs(browser, other);
      await gotoHydrated(olga, `/u/${owner.username}`);
      await clickFollowButton(olga, "Follow Paula Private");
      await expect(olga.getByRole("button", { name: "Requested Paula Private" })).toBeVisible();
      await clickFollowButton(olga, "Requested Paula Private");
      await expect(olga.getByRole("button", { name: "Follow Paula Private" })).toBeVisible();
      await reloadHydrated(olga);
      await expect(olga.getByRole("button", { name: "Follow Paula Private" })).toBeVisible();
      await clickFollowButton(olga, "Follow Paula Private");
      await expect(olga.getByRole("button", { name: "Requested Paula Private" })).toBeVisible();

      const paula = await pageAs(browser, owner);
      await gotoHydrated(paula, "/settings/privacy");
      const requests = paula.getByRole("list", { name: "Follow requests" });
      await requests.getByRole("button", { name: "Decline Olga Other" }).click();
      await expect(paula.getByText("Declined Olga Other's request")).toBeVisible();
      await expect(paula.getByText("Nobody is waiting for an answer.")).toBeVisible();
      await reloadHydrated(olga);
      await expect(olga.getByRole("button", { name: "Follow Paula Private" })).toBeVisible();
      await expect(olga.getByText("Approved Ears Only")).toHaveCount(0);
      // She asks again, and this time the request stays waiting (the axe runs below see it).
      await clickFollowButton(olga, "Follow Paula Private");
      await expect(olga.getByRole("button", { name: "Requested Paula Private" })).toBeVisible();
      await paula.context().close();
      await olga.context().close();
    });

    test("someone hidden from search is not found by others", async ({ browser }) => {
      const paula = await pageAs(browser, owner);
      await gotoHydrated(paula, "/settings/privacy");
      await paula.getByRole("checkbox", { name: "Show me in search and suggestions" }).uncheck();
      await paula.getByRole("button", { name: "Save privacy settings" }).click();
      await expect(paula.getByText("Privacy settings saved")).toBeVisible();
      await expect(
        paula.getByRole("checkbox", { name: "Show me in search and suggestions" }),
      ).not.toBeChecked();

      const rudi = await pageAs(browser, requester);
      await gotoHydrated(rudi, `/search?q=${owner.username}&type=people`);
      await expect(rudi.getByText("Paula Private")).toHaveCount(0);
      await gotoHydrated(paula, `/search?q=${owner.username}&type=people`);
      await expect(paula.getByText("Paula Private").first()).toBeVisible();
      await paula.context().close();
      await rudi.context().close();
    });

    for (const mode of ["light", "dark"] as const) {
      test(`the privacy page with a waiting request passes axe in the ${mode} theme`, async ({
        browser,
      }) => {
        const paula = await pageAs(browser, owner, mode);
        await gotoHydrated(paula, "/settings/privacy");
        await expect(paula.locator("html")).toHaveAttribute("data-theme", mode);
        await expect(paula.getByRole("list", { name: "Follow requests" })).toContainText(
          "Olga Other",
        );
        await expectNoAxeViolations(paula);
        await paula.setViewportSize({ width: 390, height: 844 });
        await expectNoAxeViolations(paula);
        await paula.context().close();
      });
    }
  });

test("backup codes are regenerated in settings and shown once; the dark theme passes axe", async ({
  browser,
  request,
}) => {
  test.setTimeout(90_000);
  const person = await signUp(browser, request, `codes${Date.now() % 1_000_000}`, "Cody Codes");
  const page = await pageAs(browser, person, "dark");
  await gotoHydrated(page, "/settings/security");
  await page.getByLabel("Password", { exact: true }).fill("Heroes-Bowie-1977");
  await page.getByRole("button", { name: "Set up two-step sign-in" }).click();
  const secret = (await page.locator("code").first().textContent())?.trim() ?? "";
  await page.getByLabel("Code", { exact: true }).fill(totp(secret));
  await page.getByRole("button", { name: "Turn on two-step sign-in" }).click();
  const first = page.getByRole("list", { name: "Backup codes" }).getByRole("listitem");
  await expect(first).toHaveCount(10);
  const oldCodes = await first.allTextContents();

  await reloadHydrated(page);
  await expect(page.getByRole("button", { name: "Turn off two-step sign-in" })).toBeVisible();
  // The red button and everything else on the page keep their contrast in the dark theme.
  await expectNoAxeViolations(page);
  const section = page.getByRole("region", { name: "Backup codes" });
  await expect(section).toContainText("10 of 10 left");
  await section.getByRole("button", { name: "Get new backup codes" }).click();
  const fresh = section.getByRole("list", { name: "Backup codes" }).getByRole("listitem");
  await expect(fresh).toHaveCount(10);
  const newCodes = await fresh.allTextContents();
  expect(newCodes.some((code) => oldCodes.includes(code))).toBe(false);
  await expectNoAxeViolations(page);
  // Shown once: a reload shows how many are left, not the codes.
  await reloadHydrated(page);
  await expect(page.getByRole("list", { name: "Backup codes" })).toHaveCount(0);
  await page.context().close();
});

/** The files of a zip, read through its central directory. */
function readZip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const body = zip.subarray(start, start + size);
    files.set(name, method === 8 ? inflateRawSync(body) : Buffer.from(body));
    // Each entry's extra fields (yazl writes an extended timestamp) and comment follow its name.
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

test("prepares the data export in the background and the zip holds the person's posts", async ({
  browser,
  request,
}) => {
  test.setTimeout(90_000);
  const person = await signUp(browser, request, `export${Date.now() % 1_000_000}`, "Ezra Export");
  const page = await pageAs(browser, person);
  await gotoHydrated(page, "/feed");
  await page.locator("body").press("n");
  await page.getByLabel("Track title").fill("Exported Anthem");
  await page.getByRole("combobox", { name: "Artist", exact: true }).fill("Stereolab");
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page.getByText("is on your feed")).toBeVisible();

  await gotoHydrated(page, "/settings/data");
  await page.getByRole("button", { name: "Prepare my data" }).click();
  await expect(page.getByText("Preparing your data")).toBeVisible();
  const download = page.getByRole("link", { name: "Download my data (zip)" });
  await expect(download).toBeVisible({ timeout: 20_000 });
  await expectNoAxeViolations(page);
  const href = (await download.getAttribute("href")) ?? "";
  const response = await page.request.get(href);
  expect(response.headers()["content-type"]).toBe("application/zip");
  const files = readZip(await response.body());
  const posts = JSON.parse(files.get("posts.json")?.toString("utf8") ?? "[]") as {
    title: string;
  }[];
  expect(posts.map((p) => p.title)).toEqual(["Exported Anthem"]);
  // Someone else cannot use the link.
  const stranger = await pageAs(
    browser,
    await signUp(browser, request, `peek${Date.now() % 1_000_000}`, "Pia Peek"),
  );
  expect((await stranger.request.get(href)).status()).toBe(404);
  await stranger.context().close();
  await page.context().close();
});
