import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { blocks, follows, type JourneyAudience, journeySettings } from "~/db/schema";
import { createTestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { listRecordingFeedback } from "./feedback.server";
import { recordListens } from "./listens.server";
import {
  deleteOwnListen,
  listLovedTracks,
  listRecentListens,
  loveListen,
  RECENT_LISTENS_PAGE,
} from "./recent.server";

withTestDatabase();

const now = () => Math.floor(Date.now() / 1000);

async function personWithPlays(count: number, at = now() - 100_000) {
  const person = await createTestUser();
  await recordListens({
    userId: person.id,
    listens: Array.from({ length: count }, (_, i) => ({
      // Two listens share each second: the pages must neither lose nor repeat either.
      listenedAt: at + Math.floor(i / 2) * 60,
      artistName: i % 5 === 0 ? "Hidden Artist" : `Artist ${i % 3}`,
      trackName: `Track ${i}`,
      releaseName: null,
      durationMs: null,
    })),
  });
  return person;
}

describe("recent listens on the profile", () => {
  it("pages newest first through same-second listens, none lost and none twice", async () => {
    const person = await personWithPlays(25);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await listRecentListens({ viewerId: person.id, ownerId: person.id, cursor });
      if (!page) throw new Error("the owner always sees their listens");
      expect(page.isOwner).toBe(true);
      expect(page.items.length).toBeLessThanOrEqual(RECENT_LISTENS_PAGE);
      seen.push(...page.items.map((item) => item.trackName));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(25 / RECENT_LISTENS_PAGE));
    expect(new Set(seen).size).toBe(25);
    expect(seen[0]).toBe("Track 24");
    expect(seen.slice(1, 3).sort()).toEqual(["Track 22", "Track 23"]);
  });

  const SEES: Record<JourneyAudience, Record<"fan" | "stranger" | "guest" | "blocked", boolean>> = {
    everyone: { fan: true, stranger: true, guest: true, blocked: false },
    followers: { fan: true, stranger: false, guest: false, blocked: false },
    only_me: { fan: false, stranger: false, guest: false, blocked: false },
  };
  for (const audience of ["everyone", "followers", "only_me"] as const) {
    it(`shows others what the audience "${audience}" allows, hidden artists left out`, async () => {
      const owner = await personWithPlays(10);
      const fan = await createTestUser();
      const stranger = await createTestUser();
      const blocked = await createTestUser();
      await getDb()
        .insert(follows)
        .values([
          { followerId: fan.id, followeeId: owner.id },
          { followerId: blocked.id, followeeId: owner.id },
        ]);
      await getDb().insert(blocks).values({ blockerId: owner.id, blockedId: blocked.id });
      await getDb()
        .insert(journeySettings)
        .values({ userId: owner.id, audience, hiddenArtists: ["hidden artist"] });
      const viewers = { fan: fan.id, stranger: stranger.id, guest: null, blocked: blocked.id };
      for (const [who, viewerId] of Object.entries(viewers) as [
        keyof typeof viewers,
        string | null,
      ][]) {
        const view = await listRecentListens({ viewerId, ownerId: owner.id });
        const loved = await listLovedTracks({ viewerId, ownerId: owner.id });
        if (!SEES[audience][who]) {
          expect({ who, view, loved }).toEqual({ who, view: null, loved: null });
          continue;
        }
        expect(view?.isOwner).toBe(false);
        expect(view?.items.map((i) => i.artistName)).not.toContain("Hidden Artist");
        expect(view?.items).toHaveLength(8);
      }
      const ownView = await listRecentListens({ viewerId: owner.id, ownerId: owner.id });
      expect(ownView?.items).toHaveLength(10);
      expect(ownView?.isOwner).toBe(true);
    });
  }

  it("loves a listen for the viewer, with its names, and the owner deletes their own", async () => {
    const owner = await personWithPlays(4);
    const fan = await createTestUser();
    await getDb().insert(follows).values({ followerId: fan.id, followeeId: owner.id });
    const [first] = (await listRecentListens({ viewerId: fan.id, ownerId: owner.id }))?.items ?? [];
    if (!first) throw new Error("no listen shown");
    await loveListen({
      viewerId: fan.id,
      ownerId: owner.id,
      ts: first.ts,
      msid: first.msid,
      isLoved: true,
    });
    const shown = await listRecentListens({ viewerId: fan.id, ownerId: owner.id });
    expect(shown?.items[0]?.score).toBe(1);
    const loved = await listRecordingFeedback({
      userId: fan.id,
      username: fan.username,
      score: 1,
      count: 10,
      offset: 0,
      metadata: true,
      hidden: [],
    });
    expect(loved.feedback[0]?.track_metadata).toMatchObject({
      artist_name: first.artistName,
      track_name: first.trackName,
    });
    // The owner's own view does not show the fan's love.
    expect(
      (await listRecentListens({ viewerId: owner.id, ownerId: owner.id }))?.items[0]?.score,
    ).toBe(0);
    await expect(
      deleteOwnListen({ viewerId: fan.id, ts: first.ts, msid: first.msid }),
    ).rejects.toMatchObject({ code: "not_found" });
    await deleteOwnListen({ viewerId: owner.id, ts: first.ts, msid: first.msid });
    const after = await listRecentListens({ viewerId: owner.id, ownerId: owner.id });
    expect(after?.items.map((i) => i.msid + i.ts)).not.toContain(first.msid + first.ts);
    expect(after?.items).toHaveLength(3);
    const stranger = await createTestUser();
    await expect(
      loveListen({
        viewerId: stranger.id,
        ownerId: owner.id,
        ts: first.ts,
        msid: first.msid,
        isLoved: true,
      }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("lists the owner's loved tracks, newest first, as the journey's audience allows", async () => {
    const owner = await personWithPlays(10);
    const fan = await createTestUser();
    const stranger = await createTestUser();
    await getDb().insert(follows).values({ followerId: fan.id, followeeId: owner.id });
    await getDb()
      .insert(journeySettings)
      .values({ userId: owner.id, audience: "followers", hiddenArtists: ["hidden artist"] });
    const shown = (await listRecentListens({ viewerId: owner.id, ownerId: owner.id }))?.items ?? [];
    const hiddenOne = shown.find((i) => i.artistName === "Hidden Artist");
    const openOnes = shown.filter((i) => i.artistName !== "Hidden Artist").slice(0, 2);
    if (!hiddenOne || openOnes.length < 2) throw new Error("the fixture has both kinds");
    for (const item of [hiddenOne, ...openOnes]) {
      await loveListen({
        viewerId: owner.id,
        ownerId: owner.id,
        ts: item.ts,
        msid: item.msid,
        isLoved: true,
      });
    }
    const own = await listLovedTracks({ viewerId: owner.id, ownerId: owner.id });
    expect(own?.map((t) => t.trackName)).toEqual(
      [...openOnes]
        .reverse()
        .map((i) => i.trackName)
        .concat(hiddenOne.trackName),
    );
    const fans = await listLovedTracks({ viewerId: fan.id, ownerId: owner.id });
    expect(fans?.map((t) => t.trackName)).toEqual([...openOnes].reverse().map((i) => i.trackName));
    expect(await listLovedTracks({ viewerId: stranger.id, ownerId: owner.id })).toBeNull();
    // Unloved, it leaves the list.
    const [last] = openOnes.slice(-1);
    if (!last) throw new Error("no listen");
    await loveListen({
      viewerId: owner.id,
      ownerId: owner.id,
      ts: last.ts,
      msid: last.msid,
      isLoved: false,
    });
    expect(
      (await listLovedTracks({ viewerId: owner.id, ownerId: owner.id }))?.map((t) => t.trackName),
    ).not.toContain(last.trackName);
  });
});
