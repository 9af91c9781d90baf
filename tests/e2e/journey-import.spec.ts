import type { Browser, Page } from "@playwright/test";
import {
  COLOR_MODE_COOKIE,
  useOwnClientAddress as comeFromOwnAddress,
  expect,
  expectNoAxeViolations,
  gotoHydrated,
  test,
} from "./fixtures";
import { type Person, signUp } from "./people";

// Importing a Spotify listening history from Settings › Listening history.

const PLAYS = 12_000;

/** A Spotify extended streaming history: PLAYS plays, one short play and one podcast episode. */
function spotifyHistory(): Buffer {
  const start = Date.UTC(2022, 0, 1);
  const artists = ["Beach House", "Low", "Slowdive", "Mazzy Star"];
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < PLAYS; i++) {
    rows.push({
      ts: new Date(start + i * 300_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
      ms_played: 180_000,
      master_metadata_track_name: `Track ${i}`,
      master_metadata_album_artist_name: artists[i % (i % 7 === 0 ? 1 : 4)],
      master_metadata_album_album_name: "An Album",
      episode_name: null,
      incognito_mode: false,
    });
  }
  rows.push({
    ts: "2022-03-01T10:00:00Z",
    ms_played: 5_000,
    master_metadata_track_name: "Skipped",
    master_metadata_album_artist_name: "Low",
  });
  rows.push({
    ts: "2022-03-01T11:00:00Z",
    ms_played: 1_800_000,
    episode_name: "An episode",
    episode_show_name: "A podcast",
  });
  return Buffer.from(JSON.stringify(rows, null, 1));
}

async function pageAs(browser: Browser, person: Person, mode: "light" | "dark"): Promise<Page> {
  const context = await browser.newContext({ storageState: person.storage });
  const baseURL = test.info().project.use.baseURL ?? "";
  await context.addCookies([{ name: COLOR_MODE_COOKIE, value: mode, url: baseURL }]);
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  return page;
}

test("a Spotify history is previewed, imported with progress, and the person is notified", async ({
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const person = await signUp(
    browser,
    request,
    `importer${Date.now() % 1_000_000}`,
    "Ivy Importer",
  );
  const page = await pageAs(browser, person, "light");

  // The section is in the settings menu.
  await gotoHydrated(page, "/settings");
  await page
    .getByRole("navigation", { name: "All settings" })
    .getByRole("link", { name: /Listening history/ })
    .click();
  await expect(page).toHaveURL(/\/settings\/listening$/);
  await expect(page.getByRole("heading", { name: "Listening history", level: 2 })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Spotify" })).toBeVisible();

  await page.getByLabel("History files").setInputFiles({
    name: "Streaming_History_Audio_2022.json",
    mimeType: "application/json",
    buffer: spotifyHistory(),
  });
  await page.getByRole("button", { name: "Read files" }).click();

  const preview = page.getByRole("region", { name: "Preview" });
  await expect(preview).toBeVisible({ timeout: 30_000 });
  await expect(preview.getByTestId("preview-plays")).toHaveText("12,000");
  await expect(preview.getByText("2021-12-31 – 2022-02-11")).toBeVisible();
  await expect(
    preview.getByRole("region", { name: "Top artists" }).getByRole("listitem").first(),
  ).toHaveText("Beach House (4,286)");
  const leftOut = preview.getByRole("region", { name: "Left out" });
  await expect(leftOut.getByText("Shorter than 30 seconds: 1")).toBeVisible();
  await expect(leftOut.getByText("Podcast episodes: 1")).toBeVisible();

  // The page with its preview passes axe in both themes.
  await expectNoAxeViolations(page);
  const dark = await pageAs(browser, person, "dark");
  await gotoHydrated(dark, "/settings/listening");
  await expect(dark.getByRole("region", { name: "Preview" })).toBeVisible();
  await expect(dark.locator("html")).toHaveAttribute("data-theme", "dark");
  await expectNoAxeViolations(dark);
  await dark.context().close();

  await preview.getByRole("button", { name: "Import 12,000 plays" }).click();
  // Right after confirming: the progress bar, or (on a fast machine) already the result.
  await expect(
    page
      .getByRole("progressbar", { name: /of 12,000 plays/ })
      .or(page.getByText("12,000 plays added, 0 already there")),
  ).toBeVisible();

  // Leaving and coming back keeps the import going; the page follows it to the end by itself.
  await gotoHydrated(page, "/feed");
  await gotoHydrated(page, "/settings/listening");
  const past = page.getByRole("region", { name: "Past imports" });
  await expect(past.getByText("12,000 plays added, 0 already there")).toBeVisible({
    timeout: 60_000,
  });
  await expect(past.getByText("Done", { exact: true })).toBeVisible();
  await expect(page.getByRole("progressbar")).toHaveCount(0);
  await expectNoAxeViolations(page);

  await gotoHydrated(page, "/notifications");
  await expect(
    page.getByRole("link", { name: /Your listening history import is done: 12,000 plays added/ }),
  ).toBeVisible();
  await page.context().close();
});

test("a large history shows how much is uploaded, then the preview", async ({
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const person = await signUp(
    browser,
    request,
    `uploader${Date.now() % 1_000_000}`,
    "Uma Uploader",
  );
  const page = await pageAs(browser, person, "light");
  await gotoHydrated(page, "/settings/listening");

  // A refusal comes back through the upload as before: the server's message, on the page.
  await page.getByLabel("History files").setInputFiles({
    name: "notes.json",
    mimeType: "application/json",
    buffer: Buffer.from('{"not": "a history"}'),
  });
  await page.getByRole("button", { name: "Read files" }).click();
  await expect(page.getByRole("alert")).toContainText(
    "None of these files is a listening history we can read.",
  );

  const file = spotifyHistory();
  expect(file.byteLength).toBeGreaterThan(2 * 1024 * 1024);
  await page.getByLabel("History files").setInputFiles({
    name: "Streaming_History_Audio_2022.json",
    mimeType: "application/json",
    buffer: file,
  });
  // A slow uplink (about 512 KB/s), so the upload lasts long enough to be seen.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 20,
    downloadThroughput: -1,
    uploadThroughput: 512 * 1024,
  });
  await page.getByRole("button", { name: "Read files" }).click();

  const bar = page.getByRole("progressbar", { name: "Uploading your files" });
  await expect(bar).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("button", { name: /^Uploading… \d+%$/ })).toBeDisabled();
  await expect
    .poll(async () => Number(await bar.getAttribute("value")), { timeout: 15_000 })
    .toBeGreaterThan(0);
  await expectNoAxeViolations(page);

  // Once sent, the bar goes and the server reads the files into the preview.
  const preview = page.getByRole("region", { name: "Preview" });
  await expect(preview).toBeVisible({ timeout: 60_000 });
  await expect(preview.getByTestId("preview-plays")).toHaveText("12,000");
  await expect(bar).toHaveCount(0);
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  await page.context().close();
});
