import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveMessage, type LiveSubscription, subscribeLive } from "~/core/live-bus.server";
import { artistKey } from "~/core/music-keys";
import { createTestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { waitUntil } from "../../../../tests/support/wait-for";
import { saveJourneySettings } from "../access.server";
import { settleJourneyAggregates } from "../aggregates.server";
import {
  clearPlayingNow,
  clearPlayingNowFor,
  recordListens,
  recordPlayingNow,
} from "./listens.server";
import { recordingMsid } from "./msid.server";
import { deleteUserListen } from "./reads.server";

const database = withTestDatabase();

/*
 * What a change to someone's listens tells the live bus (the hub then tells the person, and the
 * readers their journey lets in unless the message says only the person may know: `o: 1`).
 * Messages arrive in commit order, so the list below is exact.
 */

const heard: LiveMessage[] = [];
let subscription: LiveSubscription;

beforeAll(async () => {
  subscription = await subscribeLive(database(), { onMessage: (m) => heard.push(m) });
});

afterAll(async () => {
  await subscription.close();
});

describe("the live messages of listens", () => {
  it("say whether only the person may know: paused now playing, hidden artists", async () => {
    const person = await createTestUser();
    const settings = {
      userId: person.id,
      audience: "followers" as const,
      hiddenArtists: [artistKey("Hidden Band")],
      nowPlayingPaused: false,
      recapsEnabled: true,
    };
    await saveJourneySettings(settings);
    // Saving the settings tells the readers (friends' "listening now" strips follow a pause).
    const mine = () => heard.filter((m) => m.t === "l" && m.u === person.id);
    await waitUntil("the settings' message", () => mine().length === 1);
    const at = Math.floor(Date.now() / 1000);
    const listen = (artistName: string, offset: number | null) => ({
      listenedAt: offset === null ? null : at - offset,
      artistName,
      trackName: "Song",
      releaseName: null,
      durationMs: 200_000,
    });
    const flags = () => mine().map((m) => (m.t === "l" && m.o === 1 ? "owner" : "readers"));

    await recordListens({ userId: person.id, listens: [listen("Visible Band", 900)] });
    await recordListens({ userId: person.id, listens: [listen("Hidden Band", 800)] });
    await recordListens({
      userId: person.id,
      listens: [listen("Hidden Band", 700), listen("Visible Band", 700)],
    });
    // The same listens again add nothing and tell nobody.
    await recordListens({ userId: person.id, listens: [listen("Visible Band", 900)] });
    await recordPlayingNow({ userId: person.id, listen: listen("Visible Band", null) });
    // The same "now playing" again changes nothing and tells nobody.
    await recordPlayingNow({ userId: person.id, listen: listen("Visible Band", null) });
    // Its scrobble stores the listen, then ends "now playing".
    await recordListens({ userId: person.id, listens: [listen("Visible Band", 0)] });
    await clearPlayingNowFor({ userId: person.id, listen: listen("Visible Band", 0) });
    await waitUntil("six more messages", () => mine().length === 7);
    expect(flags()).toEqual([
      "readers",
      "readers",
      "owner",
      "readers",
      "readers",
      "readers",
      "readers",
    ]);

    // Paused "now playing": its start and its end are the person's alone.
    await saveJourneySettings({ ...settings, nowPlayingPaused: true });
    await recordPlayingNow({ userId: person.id, listen: listen("Visible Band", null) });
    expect(await clearPlayingNow({ userId: person.id })).toBe(true);
    // Deleting a listen of a hidden artist, then of a visible one.
    const msid = recordingMsid({ artistName: "Hidden Band", trackName: "Song", releaseName: null });
    expect(await deleteUserListen({ userId: person.id, listenedAt: at - 800, msid })).toBe(1);
    const visible = recordingMsid({
      artistName: "Visible Band",
      trackName: "Song",
      releaseName: null,
    });
    expect(await deleteUserListen({ userId: person.id, listenedAt: at - 900, msid: visible })).toBe(
      1,
    );
    await waitUntil("five more messages", () => mine().length === 12);
    // The pause itself tells the readers (their strips drop the track); what follows does not.
    expect(flags().slice(7)).toEqual(["readers", "owner", "owner", "owner", "readers"]);

    // The journey's numbers brought up to date: their pages reload them.
    await settleJourneyAggregates();
    await waitUntil("the aggregates' message", () => mine().length === 13);
    expect(flags()[12]).toBe("readers");
  });
});
