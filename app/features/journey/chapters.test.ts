import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { listens } from "~/db/schema";
import { atTheEdge } from "~/lib/route-errors.server";
import * as userJourneyRoute from "~/routes/_app/user-journey";
import { contextFor, outcomeOf, viewerOf } from "../../../tests/support/admin-fixtures";
import { createTestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { saveJourneySettings } from "./access.server";
import { detectChapters, listChapters, saveChapter, syncChapters } from "./chapters.server";
import { loadJourney } from "./journey-page.server";

const { action: journeyAction } = atTheEdge(userJourneyRoute);

withTestDatabase();

type Args<F extends (args: never) => unknown> = Parameters<F>[0];

/** 2024: Jan–Jun mostly Slowdive and Low, Jul–Dec mostly Burial and Kode9; a quiet August. */
async function plantTasteShift(userId: string) {
  const rows: (typeof listens.$inferInsert)[] = [];
  for (let month = 0; month < 12; month++) {
    const before = month < 6;
    const plays = month === 7 ? 5 : 40;
    for (let i = 0; i < plays; i++) {
      const artist = before ? (i % 4 === 0 ? "Low" : "Slowdive") : i % 3 === 0 ? "Kode9" : "Burial";
      // One shared artist in both halves, a little.
      const name = i === 0 ? "Portishead" : artist;
      rows.push({
        userId,
        listenedAt: new Date(Date.UTC(2024, month, 1 + (i % 28), 12, i)),
        artistName: name,
        trackName: `Track ${i}`,
        artistKey: name.toLowerCase(),
        trackKey: `track ${i}`,
        source: "scrobble",
      });
    }
  }
  await getDb().insert(listens).values(rows);
}

describe("chapters", () => {
  it("starts a chapter where the artist mix shifts, not in quiet months", () => {
    const month = (m: string, counts: Record<string, number>) => ({
      month: m,
      counts: new Map(Object.entries(counts)),
    });
    expect(
      detectChapters([
        month("2024-01", { a: 30, b: 10 }),
        month("2024-02", { a: 25, b: 15 }),
        month("2024-03", { c: 3 }),
        month("2024-04", { c: 30, d: 10 }),
        month("2024-05", { c: 20, d: 20, a: 2 }),
      ]),
    ).toEqual([
      { startsOn: "2024-01-01", endsOn: "2024-03-31" },
      { startsOn: "2024-04-01", endsOn: "2024-05-31" },
    ]);
    expect(detectChapters([])).toEqual([]);
  });

  it("finds the planted shift, keeps titles on a new sync, and shows them to others", async () => {
    const person = await createTestUser();
    const friend = await createTestUser();
    await plantTasteShift(person.id);
    const chapters = await syncChapters({ userId: person.id, hiddenArtists: [] });
    expect(chapters.map((c) => [c.startsOn, c.endsOn])).toEqual([
      ["2024-01-01", "2024-06-30"],
      ["2024-07-01", "2024-12-31"],
    ]);
    const second = chapters[1];
    if (!second) throw new Error("expected two chapters");
    await saveChapter({
      userId: person.id,
      chapterId: second.id,
      title: "Night bus",
      note: "Dubstep year.",
    });
    await syncChapters({ userId: person.id, hiddenArtists: [] });
    expect((await listChapters({ userId: person.id }))[1]).toMatchObject({
      startsOn: "2024-07-01",
      title: "Night bus",
      note: "Dubstep year.",
    });
    await saveJourneySettings({
      userId: person.id,
      audience: "everyone",
      hiddenArtists: [],
      nowPlayingPaused: false,
      recapsEnabled: true,
    });
    const seen = await loadJourney({
      viewerId: friend.id,
      owner: { id: person.id, username: person.username, displayName: "P" },
      params: new URLSearchParams("period=all"),
    });
    if (seen.state !== "shown") throw new Error("expected shown");
    expect(seen.chapters.map((c) => c.title)).toEqual([null, "Night bus"]);
  });

  it("lets nobody but the owner title a chapter, and checks what is sent", async () => {
    const person = await createTestUser();
    const other = await createTestUser();
    await plantTasteShift(person.id);
    const [first] = await syncChapters({ userId: person.id, hiddenArtists: [] });
    const send = (who: typeof person, form: Record<string, string>) =>
      outcomeOf(() =>
        journeyAction({
          request: new Request(`http://localhost:3000/u/${person.username}/journey`, {
            method: "POST",
            body: new URLSearchParams(form),
            headers: { "Content-Type": "application/x-www-form-urlencoded" },
          }),
          context: contextFor(viewerOf(who, false)),
          params: { username: person.username },
        } as unknown as Args<typeof journeyAction>),
      );
    const chapterId = first?.id ?? "";
    expect((await send(other, { intent: "chapter", chapterId, title: "Mine" })).status).toBe(404);
    const tooLong = await send(person, { intent: "chapter", chapterId, title: "x".repeat(81) });
    expect(tooLong).toMatchObject({
      status: 400,
      body: { fieldErrors: { title: ["Keep the title under 80 characters."] } },
    });
    expect((await send(person, { intent: "chapter", chapterId: "nope" })).status).toBe(400);
    expect((await send(person, { intent: "chapter", chapterId, title: "Shoegaze" })).status).toBe(
      302,
    );
    expect((await listChapters({ userId: person.id }))[0]?.title).toBe("Shoegaze");
  });
});
