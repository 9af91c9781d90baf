import { type Browser, type Page, test } from "@playwright/test";
import { expect, expectNoAxeViolations, gotoHydrated } from "./fixtures";
import { type Person, signUp } from "./people";

async function pageAs(browser: Browser, person: Person): Promise<Page> {
  const context = await browser.newContext({ storageState: person.storage });
  return context.newPage();
}

/**
 * How long a live change may take to show: a reload of the page's data after the event (the
 * journey's is heavy) on a machine other sessions keep busy. A deadline, never a timing.
 */
const LIVE = { timeout: 30_000 };

test.describe
  .serial("recent listens on the profile", () => {
    const run = `${Date.now() % 1_000_000}`;
    let person: Person;
    let token = "";

    test.beforeAll(async ({ browser, request }) => {
      test.setTimeout(90_000);
      person = await signUp(browser, request, `recent${run}`, "Rita Recent");
    });

    test("listens a player sends show on the profile; love one, delete one, the journey follows", async ({
      browser,
      request,
    }) => {
      test.setTimeout(120_000);
      const page = await pageAs(browser, person);
      await gotoHydrated(page, "/settings/scrobbling");
      await page.getByLabel("Token name").fill("Web Scrobbler");
      await page.getByRole("button", { name: "Create token" }).click();
      const field = page.getByLabel("New token");
      await expect(field).toHaveValue(/^[0-9a-f-]{36}$/);
      token = await field.inputValue();

      // Open the profile and wait until its live stream (/api/events) is open on the server.
      const stream = page.waitForResponse(
        (response) =>
          new URL(response.url()).pathname === "/api/events" && response.status() === 200,
      );
      await gotoHydrated(page, "/profile");
      await stream;
      const section = page.getByRole("region", { name: "Recent listens" });
      await expect(section).toContainText("No listens yet.");

      // A player sends three plays, then says what is playing now.
      const at = Math.floor(Date.now() / 1000) - 3600;
      const headers = { Authorization: `Token ${token}`, "Content-Type": "application/json" };
      const sent = await request.post("/1/submit-listens", {
        headers,
        data: {
          listen_type: "import",
          payload: [
            ["Broadcast", "Black Cat"],
            ["Stereolab", "French Disko"],
            ["Broadcast", "Come On Let's Go"],
          ].map(([artist, track], i) => ({
            listened_at: at + i * 300,
            track_metadata: { artist_name: artist, track_name: track },
          })),
        },
      });
      expect(sent.status()).toBe(200);
      await request.post("/1/submit-listens", {
        headers,
        data: {
          listen_type: "playing_now",
          payload: [{ track_metadata: { artist_name: "Low", track_name: "Words" } }],
        },
      });

      // The open profile shows them as they arrive (no reload).
      await expect(page.getByRole("region", { name: "Now playing" })).toContainText("Words");
      const list = section.getByRole("list", { name: "Recent listens" });
      await expect(list.getByRole("listitem")).toHaveCount(3);
      await expect(list.getByRole("listitem").first()).toContainText("Come On Let's Go");
      await expect(page.getByText("3 plays in the last 30 days")).toBeVisible({ timeout: 30_000 });
      await expectNoAxeViolations(page);

      // Love one: the heart says so, and the player's API lists it.
      const heart = list.getByRole("button", { name: "Love French Disko by Stereolab" });
      await expect(heart).toHaveAttribute("aria-pressed", "false");
      await heart.click();
      await expect(heart).toHaveAttribute("aria-pressed", "true");
      await expect
        .poll(async () => {
          const answer = await request.get(
            `/1/feedback/user/${person.username}/get-feedback?metadata=true`,
            { headers: { Authorization: `Token ${token}` } },
          );
          const body = (await answer.json()) as {
            feedback: { track_metadata: { track_name: string } | null }[];
          };
          return body.feedback.map((f) => f.track_metadata?.track_name);
        })
        .toEqual(["French Disko"]);
      await page.reload();
      await expect(
        page.getByRole("button", { name: "Love French Disko by Stereolab" }),
      ).toHaveAttribute("aria-pressed", "true");
      await expect(page.getByRole("list", { name: "Loved tracks" })).toContainText("French Disko");

      // Delete one: it leaves the list and the journey's count follows.
      await page
        .getByRole("button", { name: "Delete this listen of Black Cat by Broadcast" })
        .click();
      await expect(list.getByRole("listitem")).toHaveCount(2);
      await expect(list.getByText("Black Cat")).toHaveCount(0);
      // The journey's aggregates are brought up to date by a background job, which tells the open
      // page when it is done (no reload); a generous deadline for a busy machine, no timing.
      await expect(page.getByText("2 plays in the last 30 days")).toBeVisible({ timeout: 30_000 });
      const count = await request.get(`/1/user/${person.username}/listen-count`, {
        headers: { Authorization: `Token ${token}` },
      });
      expect(await count.json()).toEqual({ payload: { count: 2 } });
    });

    test("a follower sees them live on the journey page; loves and a delete there, the numbers follow", async ({
      browser,
      request,
    }) => {
      // Two sign-ups, four pages and a background job on a shared machine: minutes, not seconds.
      test.setTimeout(300_000);
      const fan = await signUp(browser, request, `fan${run}`, "Fay Follower");
      const fanPage = await pageAs(browser, fan);
      await gotoHydrated(fanPage, `/u/${person.username}`);
      await fanPage.getByRole("button", { name: "Follow Rita Recent" }).click();
      await expect(fanPage.getByRole("button", { name: "Following Rita Recent" })).toBeVisible();

      // Both open the journey (all time), each page's live stream open on the server.
      const journey = `/u/${person.username}/journey?period=all`;
      const openJourney = async (page: Page) => {
        const stream = page.waitForResponse(
          (response) =>
            new URL(response.url()).pathname === "/api/events" && response.status() === 200,
        );
        await gotoHydrated(page, journey);
        await stream;
        return page.getByRole("region", { name: "Recent listens" });
      };
      const ownerPage = await pageAs(browser, person);
      const mine = await openJourney(ownerPage);
      const theirs = await openJourney(fanPage);
      const plays = (page: Page) =>
        page.locator("dt", { hasText: /^Plays$/ }).locator("xpath=following-sibling::dd[1]");
      for (const [page, section] of [
        [ownerPage, mine],
        [fanPage, theirs],
      ] as const) {
        await expect(
          section.getByRole("list", { name: "Recent listens" }).getByRole("listitem"),
        ).toHaveCount(2);
        await expect(plays(page)).toHaveText("2", LIVE);
      }
      await expectNoAxeViolations(fanPage);

      // The player sends a play and what is playing now: both pages follow without a reload,
      // "now playing" on top of the listens, the journey's numbers once its aggregates are done.
      const headers = { Authorization: `Token ${token}`, "Content-Type": "application/json" };
      const sent = await request.post("/1/submit-listens", {
        headers,
        data: {
          listen_type: "single",
          payload: [
            {
              listened_at: Math.floor(Date.now() / 1000) - 120,
              track_metadata: { artist_name: "Broadcast", track_name: "Pendulum" },
            },
          ],
        },
      });
      expect(sent.status()).toBe(200);
      await request.post("/1/submit-listens", {
        headers,
        data: {
          listen_type: "playing_now",
          payload: [{ track_metadata: { artist_name: "Low", track_name: "Monkey" } }],
        },
      });
      for (const [page, section] of [
        [ownerPage, mine],
        [fanPage, theirs],
      ] as const) {
        await expect(section.getByRole("region", { name: "Now playing" })).toContainText(
          "Monkey",
          LIVE,
        );
        const list = section.getByRole("list", { name: "Recent listens" });
        await expect(list.getByRole("listitem")).toHaveCount(3, LIVE);
        await expect(list.getByRole("listitem").first()).toContainText("Pendulum", LIVE);
        await expect(plays(page)).toHaveText("3", LIVE);
      }

      // The follower loves one (their own love), the owner deletes another on the journey page:
      // it leaves both pages and the numbers follow, live.
      const fanHeart = theirs.getByRole("button", { name: "Love Pendulum by Broadcast" });
      await fanHeart.click();
      await expect(fanHeart).toHaveAttribute("aria-pressed", "true");
      await expect(theirs.getByRole("button", { name: /^Delete this listen/ })).toHaveCount(0);
      await mine
        .getByRole("button", { name: "Delete this listen of Come On Let's Go by Broadcast" })
        .click();
      for (const [page, section] of [
        [ownerPage, mine],
        [fanPage, theirs],
      ] as const) {
        const list = section.getByRole("list", { name: "Recent listens" });
        await expect(list.getByRole("listitem")).toHaveCount(2, LIVE);
        await expect(list.getByText("Come On Let's Go")).toHaveCount(0, LIVE);
        await expect(plays(page)).toHaveText("2", LIVE);
      }
      const count = await request.get(`/1/user/${person.username}/listen-count`, {
        headers: { Authorization: `Token ${token}` },
      });
      expect(await count.json()).toEqual({ payload: { count: 2 } });
      // The owner's loves stay theirs: the follower's heart is not on the owner's page.
      await expect(
        mine.getByRole("button", { name: "Love Pendulum by Broadcast" }),
      ).toHaveAttribute("aria-pressed", "false");
    });

    test("someone the journey is not shared with sees no recent listens", async ({
      browser,
      request,
    }) => {
      test.setTimeout(90_000);
      const stranger = await signUp(browser, request, `stranger${run}`, "Sam Stranger");
      const page = await pageAs(browser, stranger);
      await gotoHydrated(page, `/u/${person.username}`);
      await expect(page.getByRole("heading", { name: "Rita Recent", level: 1 })).toBeVisible();
      await expect(page.getByRole("region", { name: "Recent listens" })).toHaveCount(0);
      const read = await request.get(`/1/user/${person.username}/listens`);
      expect(read.status()).toBe(401);
      expect(((await read.json()) as { code: number }).code).toBe(401);
    });
  });
