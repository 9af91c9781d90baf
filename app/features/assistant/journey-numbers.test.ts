import { beforeAll, describe, expect, it } from "vitest";
import { artistKey } from "~/core/music-keys";
import { followUser } from "~/features/follows/index.server";
import { loadJourney, recordListens, saveJourneySettings } from "~/features/journey/index.server";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { answerWithBuiltin } from "./builtin.server";
import { recogniseIntent } from "./intents";
import { getListening, journeyParams } from "./tools.server";

/*
 * One stats source (issue 38): whatever period a question names, the assistant's numbers are
 * the journey page's for the same period — the page's own loader is the reference here, and
 * the link in the answer opens the page with exactly those numbers. The issue saw "last 30
 * days" disagree (140 vs 130 plays): the assistant counted 30 × 24 hours back from now, the
 * journey 30 whole days ending today.
 */

withTestDatabase();

const NOW = new Date("2026-06-20T12:00:00Z");
let me: TestUser;
let friend: TestUser;

async function plays(
  user: TestUser,
  count: number,
  first: string,
  stepHours: number,
  music: { artist: string; track: string; album: string | null; ms: number | null },
) {
  await recordListens({
    userId: user.id,
    listens: Array.from({ length: count }, (_, i) => ({
      listenedAt: Math.floor((Date.parse(first) + i * stepHours * 3_600_000) / 1000),
      artistName: music.artist,
      trackName: `${music.track} ${i % 3}`,
      releaseName: music.album,
      durationMs: music.ms,
    })),
  });
}

beforeAll(async () => {
  me = await createTestUser({ username: "nums_me", displayName: "Numbers Me" });
  friend = await createTestUser({ username: "nums_friend", displayName: "Numbers Friend" });
  await followUser({ viewerId: me.id, targetId: friend.id });
  // 21 May at 18:00 is within 30 × 24 hours of now, but the journey's last 30 days start on 22 May.
  await plays(me, 10, "2026-05-21T13:00:00Z", 1, {
    artist: "Slowdive",
    track: "Alison",
    album: "Souvlaki",
    ms: 230_000,
  });
  await plays(me, 30, "2026-05-22T00:30:00Z", 17, {
    artist: "Slowdive",
    track: "Alison",
    album: "Souvlaki",
    ms: 230_000,
  });
  await plays(me, 25, "2026-02-25T10:00:00Z", 9, {
    artist: "Radiohead",
    track: "Reckoner",
    album: "In Rainbows",
    ms: null,
  });
  await plays(me, 12, "2025-06-15T10:00:00Z", 30, {
    artist: "Portishead",
    track: "Roads",
    album: "Dummy",
    ms: 305_000,
  });
  await plays(me, 20, "2026-06-13T23:00:00Z", 5, {
    artist: "Low",
    track: "Lullaby",
    album: null,
    ms: 600_000,
  });
  await plays(friend, 20, "2026-03-01T10:00:00Z", 50, {
    artist: "Khruangbin",
    track: "Maria",
    album: "Con Todo El Mundo",
    ms: 200_000,
  });
  await plays(friend, 15, "2026-05-01T10:00:00Z", 40, {
    artist: "Hidden Band",
    track: "Hush",
    album: "Quiet",
    ms: 200_000,
  });
  await saveJourneySettings({
    userId: friend.id,
    audience: "followers",
    hiddenArtists: [artistKey("Hidden Band")],
    nowPlayingPaused: false,
    recapsEnabled: true,
  });
});

/** Wordings whose period is each of the journey's own and a few calendar ones. */
const PERIODS = [
  "what did I play in the last 7 days",
  "what have I been listening to lately",
  "my listening over the past year",
  "what have I played of all time",
  "what did I play in March",
  "what did I play this year",
  "what did I play last summer",
  "what did I play in the last 90 days",
  "what did I play this month",
  "what did I play last month",
  "what did I play yesterday",
];

async function journeyPage(owner: TestUser, params: URLSearchParams) {
  const view = await loadJourney({
    viewerId: me.id,
    owner: { id: owner.id, username: owner.username, displayName: owner.displayName ?? "" },
    params,
    now: NOW,
  });
  if (view.state !== "shown") throw new Error(`the journey is ${view.state}`);
  return view.stats;
}

describe("the assistant's numbers are the journey's", () => {
  it.each(PERIODS)("“%s”, mine and a friend's", async (question) => {
    const intent = recogniseIntent(question, NOW);
    if (intent.kind !== "listening") throw new Error(`not a listening question: ${intent.kind}`);
    for (const owner of [me, friend]) {
      const page = await journeyPage(owner, journeyParams(intent.period));
      const answer = await getListening({
        viewerId: me.id,
        person: owner === me ? null : owner.username,
        period: intent.period,
        now: NOW,
      });
      if (answer.state !== "shown") throw new Error(answer.state);
      expect(answer.plays).toBe(page.totals.plays);
      expect(answer.listeningMs).toBe(page.totals.listeningMs);
      expect(answer.estimatedPlays).toBe(page.totals.estimatedPlays);
      expect(answer.artistCount).toBe(page.totals.artists);
      expect(answer.topArtists.map((a) => [a.name, a.plays])).toEqual(
        page.topArtists.map((a) => [a.name, a.plays]),
      );
      expect(answer.topAlbums.map((a) => [a.name, a.artist, a.plays])).toEqual(
        page.topAlbums.map((a) => [a.name, a.artistName, a.plays]),
      );
      expect(answer.topTracks.map((a) => [a.name, a.plays])).toEqual(
        page.topTracks.map((a) => [a.name, a.plays]),
      );
      expect(answer.topArtists.map((a) => a.name)).not.toContain("Hidden Band");
      // The answer's link opens the journey page on exactly these numbers.
      const href = new URL(answer.journeyHref, "http://app.test");
      expect(href.pathname).toBe(`/u/${owner.username}/journey`);
      const linked = await journeyPage(owner, href.searchParams);
      expect(linked.totals.plays).toBe(answer.plays);
      expect(linked.topArtists[0]?.plays ?? 0).toBe(answer.topArtists[0]?.plays ?? 0);
    }
    // And the built-in engine's sentence quotes them.
    const mine = await getListening({ viewerId: me.id, period: intent.period, now: NOW });
    if (mine.state !== "shown") throw new Error(mine.state);
    const { text } = await answerWithBuiltin({ viewerId: me.id, message: question, now: NOW });
    if (mine.plays === 0) {
      expect(text).toContain("I do not know: your journey has no plays");
    } else {
      expect(text).toContain(`you played ${mine.plays} track`);
      const top = mine.topArtists[0];
      expect(text).toContain(`(${top?.plays} play`);
    }
  });

  it("“the last 30 days” are the journey's 30 days ending today, not 30 × 24 hours back", async () => {
    const page = await journeyPage(me, new URLSearchParams({ period: "month" }));
    const { text } = await answerWithBuiltin({
      viewerId: me.id,
      message: "my top artists in the last 30 days",
      now: NOW,
    });
    const slowdive = page.topArtists.find((a) => a.name === "Slowdive");
    // The ten plays of 21 May are not in the page's period, so not in the answer either.
    expect(slowdive?.plays).toBe(30);
    expect(text).toContain("is [Slowdive](/search?q=Slowdive), with 30 plays");
    expect(text).not.toContain("40 plays");
  });
});
