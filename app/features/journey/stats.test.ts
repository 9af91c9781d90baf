import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { artistKey, titleKey } from "~/core/music-keys";
import { getDb } from "~/db/client.server";
import { follows, journeyStatsCache, listens, user } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { getJourneyAccess, getJourneySettings, saveJourneySettings } from "./access.server";
import { loadJourney, loadJourneySummary } from "./journey-page.server";
import { resolvePeriod } from "./period";
import { currentStreak, getJourneyStats, longestStreak } from "./stats.server";
import { compareTastes, getTasteMatch } from "./taste.server";

withTestDatabase();

const NOW = new Date("2025-06-15T12:00:00Z");

interface Play {
  at: string;
  artist: string;
  track: string;
  release?: string;
  ms?: number | null;
}

async function insertPlays(userId: string, plays: Play[]) {
  await getDb()
    .insert(listens)
    .values(
      plays.map((p) => ({
        userId,
        listenedAt: new Date(p.at),
        durationMs: p.ms ?? null,
        artistName: p.artist,
        trackName: p.track,
        releaseName: p.release ?? null,
        artistKey: artistKey(p.artist),
        trackKey: titleKey(p.track),
        releaseKey: p.release ? titleKey(p.release) : null,
        source: "scrobble" as const,
      })),
    );
}

/** A month of plays with a grace day inside each streak and a hidden artist (see the numbers). */
const JUNE: Play[] = [
  { at: "2024-03-10T12:00:00Z", artist: "Björk", track: "Joga", release: "Homogenic", ms: 300_000 },
  {
    at: "2025-05-31T23:59:59Z",
    artist: "Portishead",
    track: "Roads",
    release: "Dummy",
    ms: 300_000,
  },
  {
    at: "2025-06-01T10:00:00Z",
    artist: "Radiohead",
    track: "Karma Police",
    release: "OK Computer",
    ms: 260_000,
  },
  {
    at: "2025-06-01T10:05:00Z",
    artist: "Radiohead",
    track: "Karma Police",
    release: "OK Computer",
    ms: 260_000,
  },
  {
    at: "2025-06-01T10:10:00Z",
    artist: "Radiohead",
    track: "Karma Police",
    release: "OK Computer",
    ms: 260_000,
  },
  {
    at: "2025-06-02T22:00:00Z",
    artist: "Radiohead",
    track: "Karma Police - Remastered 2011",
    release: "OK Computer",
    ms: null,
  },
  {
    at: "2025-06-04T08:00:00Z",
    artist: "Björk",
    track: "Hyperballad",
    release: "Post",
    ms: 300_000,
  },
  {
    at: "2025-06-04T08:06:00Z",
    artist: "Björk",
    track: "Hyperballad",
    release: "Post",
    ms: 300_000,
  },
  { at: "2025-06-07T12:00:00Z", artist: "Hidden Artist", track: "Secret", ms: 100_000 },
  {
    at: "2025-06-11T20:00:00Z",
    artist: "Portishead",
    track: "Roads",
    release: "Dummy",
    ms: 300_000,
  },
  {
    at: "2025-06-13T20:00:00Z",
    artist: "Portishead",
    track: "Roads",
    release: "Dummy",
    ms: 300_000,
  },
  {
    at: "2025-06-14T20:00:00Z",
    artist: "Portishead",
    track: "Glory Box",
    release: "Dummy",
    ms: 300_000,
  },
  {
    at: "2025-06-15T01:00:00Z",
    artist: "Portishead",
    track: "Roads",
    release: "Dummy",
    ms: 300_000,
  },
];

const JUNE_RANGE = {
  start: new Date("2025-06-01T00:00:00Z"),
  end: new Date("2025-06-16T00:00:00Z"),
};

let owner: TestUser;
beforeAll(async () => {
  owner = await createTestUser();
  await insertPlays(owner.id, JUNE);
});

describe("journey stats for a known set of plays", () => {
  it("ranks artists, albums and tracks by their keys with the most common original name", async () => {
    const stats = await getJourneyStats({ userId: owner.id, ...JUNE_RANGE, now: NOW });
    expect(stats.topArtists.map((a) => [a.name, a.plays])).toEqual([
      ["Portishead", 4],
      ["Radiohead", 4],
      ["Björk", 2],
      ["Hidden Artist", 1],
    ]);
    expect(stats.topAlbums.map((a) => [a.name, a.artistName, a.plays])).toEqual([
      ["Dummy", "Portishead", 4],
      ["OK Computer", "Radiohead", 4],
      ["Post", "Björk", 2],
    ]);
    expect(stats.topTracks.map((t) => [t.name, t.plays])).toEqual([
      ["Karma Police", 4],
      ["Roads", 3],
      ["Hyperballad", 2],
      ["Secret", 1],
      ["Glory Box", 1],
    ]);
  });

  it("totals the plays and the listening time, estimating the plays without a length", async () => {
    const stats = await getJourneyStats({ userId: owner.id, ...JUNE_RANGE, now: NOW });
    expect(stats.totals).toEqual({
      plays: 11,
      listeningMs: 3 * 260_000 + 210_000 + 2 * 300_000 + 100_000 + 4 * 300_000,
      estimatedPlays: 1,
      artists: 4,
    });
  });

  it("counts plays by weekday (Monday first) and hour in UTC", async () => {
    const stats = await getJourneyStats({ userId: owner.id, ...JUNE_RANGE, now: NOW });
    const cells: string[] = [];
    stats.clock.forEach((hours, weekday) => {
      hours.forEach((n, hour) => {
        if (n > 0) cells.push(`${weekday}@${hour}=${n}`);
      });
    });
    expect(cells.sort()).toEqual(
      ["6@10=3", "0@22=1", "2@8=2", "5@12=1", "2@20=1", "4@20=1", "5@20=1", "6@1=1"].sort(),
    );
  });

  it("buckets plays by day for a short period, including the quiet days", async () => {
    const stats = await getJourneyStats({ userId: owner.id, ...JUNE_RANGE, now: NOW });
    expect(stats.overTime.bucket).toBe("day");
    expect(stats.overTime.points).toHaveLength(15);
    expect(stats.overTime.points.slice(0, 4)).toEqual([
      { start: "2025-06-01", plays: 3 },
      { start: "2025-06-02", plays: 1 },
      { start: "2025-06-03", plays: 0 },
      { start: "2025-06-04", plays: 2 },
    ]);
  });

  it("buckets all time by week with Monday starts", async () => {
    const stats = await getJourneyStats({
      userId: owner.id,
      start: null,
      end: JUNE_RANGE.end,
      now: NOW,
    });
    expect(stats.start).toBe("2024-03-10");
    expect(stats.overTime.bucket).toBe("week");
    expect(stats.overTime.points[0]).toEqual({ start: "2024-03-04", plays: 1 });
    expect(stats.overTime.points.reduce((s, p) => s + p.plays, 0)).toBe(13);
  });

  it("finds the artists first ever played in the period", async () => {
    const stats = await getJourneyStats({ userId: owner.id, ...JUNE_RANGE, now: NOW });
    expect(stats.discoveries).toEqual({
      count: 2,
      artists: [
        { name: "Hidden Artist", firstPlayedOn: "2025-06-07" },
        { name: "Radiohead", firstPlayedOn: "2025-06-01" },
      ],
    });
  });

  it("keeps a streak going over one missed day but not two", async () => {
    const stats = await getJourneyStats({ userId: owner.id, ...JUNE_RANGE, now: NOW });
    expect(stats.streaks.longest).toEqual({ from: "2025-06-11", to: "2025-06-15", days: 5 });
    expect(stats.streaks.current).toEqual({ from: "2025-06-11", to: "2025-06-15", days: 5 });
    expect(longestStreak(["2025-01-01", "2025-01-03", "2025-01-06"])).toEqual({
      from: "2025-01-01",
      to: "2025-01-03",
      days: 3,
    });
    expect(currentStreak(["2025-01-08", "2025-01-07"], "2025-01-10")).toEqual({
      from: "2025-01-07",
      to: "2025-01-08",
      days: 2,
    });
    expect(currentStreak(["2025-01-07"], "2025-01-10")).toBeNull();
  });

  it("draws period boundaries at midnight UTC", async () => {
    const may31 = resolvePeriod(
      new URLSearchParams("period=custom&from=2025-05-31&to=2025-05-31"),
      NOW,
    );
    expect(may31.error).toBeNull();
    const stats = await getJourneyStats({
      userId: owner.id,
      start: may31.start,
      end: may31.end,
      now: NOW,
    });
    expect(stats.totals.plays).toBe(1);
    expect(stats.topTracks[0]?.name).toBe("Roads");
    const week = resolvePeriod(new URLSearchParams("period=week"), NOW);
    expect(week.start?.toISOString()).toBe("2025-06-09T00:00:00.000Z");
    const weekStats = await getJourneyStats({
      userId: owner.id,
      start: week.start,
      end: week.end,
      now: NOW,
    });
    expect(weekStats.totals.plays).toBe(4);
  });

  it("refuses a bad custom range with a message and falls back to the last 30 days", () => {
    const reversed = resolvePeriod(
      new URLSearchParams("period=custom&from=2025-06-10&to=2025-06-01"),
      NOW,
    );
    expect(reversed.error).toBe("The start date must be on or before the end date.");
    expect(reversed.period).toBe("month");
    const junk = resolvePeriod(new URLSearchParams("period=custom&from=2025-02-30&to=x"), NOW);
    expect(junk.error).toMatch(/date/);
    expect(resolvePeriod(new URLSearchParams("period=decade"), NOW).error).toBe("Choose a period.");
  });
});

describe("the stats cache", () => {
  it("serves stored stats until the plays change, whoever changes them", async () => {
    const person = await createTestUser();
    await insertPlays(person.id, [{ at: "2025-06-10T10:00:00Z", artist: "Low", track: "Words" }]);
    const range = { userId: person.id, ...JUNE_RANGE, now: NOW };
    expect((await getJourneyStats(range)).totals.plays).toBe(1);
    const [cached] = await getDb()
      .select({ version: journeyStatsCache.version })
      .from(journeyStatsCache)
      .where(eq(journeyStatsCache.userId, person.id));
    expect(cached?.version).toBe(1);
    expect((await getJourneyStats(range)).totals.plays).toBe(1);
    await insertPlays(person.id, [{ at: "2025-06-11T10:00:00Z", artist: "Low", track: "Lullaby" }]);
    expect((await getJourneyStats(range)).totals.plays).toBe(2);
    await getDb().delete(listens).where(eq(listens.userId, person.id));
    expect((await getJourneyStats(range)).totals.plays).toBe(0);
    // Stale rows are cleaned up: one row per key, at the current version.
    const rows = await getDb()
      .select({ version: journeyStatsCache.version })
      .from(journeyStatsCache)
      .where(eq(journeyStatsCache.userId, person.id));
    expect(rows).toEqual([{ version: 3 }]);
  });

  it("lets an account with plays be deleted (the triggers skip people being deleted)", async () => {
    const person = await createTestUser();
    await insertPlays(person.id, [{ at: "2025-06-10T10:00:00Z", artist: "Low", track: "Words" }]);
    await getDb().delete(user).where(eq(user.id, person.id));
    const left = await getDb().select().from(listens).where(eq(listens.userId, person.id));
    expect(left).toEqual([]);
  });
});

describe("who sees a journey", () => {
  async function person() {
    return createTestUser();
  }

  it("hides the hidden artists from others but not from the owner", async () => {
    const viewer = await person();
    await saveJourneySettings({
      userId: owner.id,
      audience: "everyone",
      hiddenArtists: ["hidden artist"],
      nowPlayingPaused: false,
      recapsEnabled: true,
    });
    const params = new URLSearchParams("period=custom&from=2025-06-01&to=2025-06-30");
    const own = await loadJourney({
      viewerId: owner.id,
      owner: { ...owner, displayName: "O" },
      params,
      now: NOW,
    });
    const theirs = await loadJourney({
      viewerId: viewer.id,
      owner: { ...owner, displayName: "O" },
      params,
      now: NOW,
    });
    if (own.state !== "shown" || theirs.state !== "shown") throw new Error("expected both shown");
    expect(own.stats.topArtists.map((a) => a.name)).toContain("Hidden Artist");
    expect(theirs.stats.topArtists.map((a) => a.name)).not.toContain("Hidden Artist");
    expect(theirs.stats.topTracks.map((a) => a.name)).not.toContain("Secret");
    expect(theirs.stats.totals.plays).toBe(10);
    expect(theirs.stats.discoveries.artists.map((a) => a.name)).toEqual(["Radiohead"]);
    expect(theirs.stats.clock[5]?.[12]).toBe(0);
    expect(own.stats.clock[5]?.[12]).toBe(1);
    await saveJourneySettings({
      userId: owner.id,
      ...(await getJourneySettings({ userId: "nobody" })),
    });
  });

  it("follows the audience: owner, accepted follower, stranger, signed out, blocked", async () => {
    const someone = await person();
    const fan = await person();
    const stranger = await person();
    const blocked = await person();
    await getDb()
      .insert(follows)
      .values([
        { followerId: fan.id, followeeId: someone.id },
        { followerId: blocked.id, followeeId: someone.id },
      ]);
    const sees = async (viewerId: string | null) =>
      (await getJourneyAccess({ viewerId, ownerId: someone.id })).allowed;

    // No settings row: followers.
    expect(await getJourneySettings({ userId: someone.id })).toMatchObject({
      audience: "followers",
    });
    expect([
      await sees(someone.id),
      await sees(fan.id),
      await sees(stranger.id),
      await sees(null),
    ]).toEqual([true, true, false, false]);
    await blockUser({ viewerId: someone.id, targetId: blocked.id });

    const save = (audience: "everyone" | "followers" | "only_me") =>
      saveJourneySettings({
        userId: someone.id,
        audience,
        hiddenArtists: [],
        nowPlayingPaused: false,
        recapsEnabled: true,
      });
    await save("everyone");
    expect([
      await sees(someone.id),
      await sees(fan.id),
      await sees(stranger.id),
      await sees(null),
      await sees(blocked.id),
    ]).toEqual([true, true, true, true, false]);
    // Blocked the other way round.
    await blockUser({ viewerId: stranger.id, targetId: someone.id });
    expect(await sees(stranger.id)).toBe(false);

    await save("only_me");
    expect([await sees(someone.id), await sees(fan.id), await sees(null)]).toEqual([
      true,
      false,
      false,
    ]);

    const summary = await loadJourneySummary({
      viewerId: fan.id,
      owner: { ...someone, displayName: "S" },
    });
    expect(summary).toEqual({
      state: "hidden",
      owner: { ...someone, displayName: "S" },
      audience: "only_me",
    });
  });

  it("says the journey is empty to its owner when there are no plays", async () => {
    const newcomer = await person();
    const view = await loadJourney({
      viewerId: newcomer.id,
      owner: { ...newcomer, displayName: "N" },
      params: new URLSearchParams(),
    });
    expect(view).toMatchObject({ state: "empty", isOwner: true });
  });

  it("places the posts the viewer may see on the timeline", async () => {
    const author = await person();
    const fan = await person();
    await insertPlays(author.id, [{ at: new Date().toISOString(), artist: "Low", track: "Words" }]);
    await saveJourneySettings({
      userId: author.id,
      audience: "everyone",
      hiddenArtists: [],
      nowPlayingPaused: false,
      recapsEnabled: true,
    });
    await createTestPost(author.id, { title: "Public pick", audience: "everyone" });
    await createTestPost(author.id, { title: "Followers pick", audience: "followers" });
    const view = await loadJourney({
      viewerId: fan.id,
      owner: { ...author, displayName: "A" },
      params: new URLSearchParams("period=week"),
    });
    if (view.state !== "shown") throw new Error("expected shown");
    expect(view.posts.posts.map((p) => p.title)).toEqual(["Public pick"]);
    expect(view.posts.days.reduce((s, d) => s + d.posts, 0)).toBe(1);
    const own = await loadJourney({
      viewerId: author.id,
      owner: { ...author, displayName: "A" },
      params: new URLSearchParams("period=week"),
    });
    if (own.state !== "shown") throw new Error("expected shown");
    expect(own.posts.posts).toHaveLength(2);
  });
});

describe("taste match", () => {
  it("is the cosine of the artist shares, explained by shared artists and differences", async () => {
    const you = await createTestUser();
    const them = await createTestUser();
    const day = (n: number) => new Date(NOW.getTime() - n * 86_400_000).toISOString();
    await insertPlays(you.id, [
      { at: day(1), artist: "Alpha", track: "a1" },
      { at: day(2), artist: "Alpha", track: "a2" },
      { at: day(3), artist: "Alpha", track: "a3" },
      { at: day(4), artist: "Beta", track: "b1" },
      // Older than a year: not compared.
      { at: day(400), artist: "Gamma", track: "g0" },
    ]);
    await insertPlays(them.id, [
      { at: day(1), artist: "Alpha", track: "a1" },
      { at: day(2), artist: "Gamma", track: "g1" },
      { at: day(3), artist: "Delta", track: "d1" },
    ]);
    const match = await getTasteMatch({
      viewerId: you.id,
      otherId: them.id,
      otherHiddenArtists: ["delta"],
      now: NOW,
    });
    // you: Alpha .75, Beta .25; them (Delta hidden): Alpha .5, Gamma .5.
    // cos = .75·.5 / (√(.75²+.25²) · √(.5²+.5²)) = .375 / .5590 = .6708
    expect(match.percent).toBe(67);
    expect(match.shared).toHaveLength(1);
    expect(match.shared[0]?.name).toBe("Alpha");
    expect(match.shared[0]?.contribution).toBeCloseTo(0.6708, 4);
    expect(match.differences.map((d) => d.name)).toEqual(["Gamma"]);
    expect(match.yourPlays).toBe(4);
    expect(match.theirPlays).toBe(2);
  });

  it("is 100% for the same artists in the same proportions and 0% for none in common", () => {
    const a = [
      { key: "x", name: "X", plays: 2, share: 2 / 3 },
      { key: "y", name: "Y", plays: 1, share: 1 / 3 },
    ];
    expect(
      compareTastes(
        a,
        a.map((e) => ({ ...e, plays: e.plays * 5 })),
      ).percent,
    ).toBe(100);
    expect(compareTastes(a, [{ key: "z", name: "Z", plays: 1, share: 1 }]).percent).toBe(0);
    expect(compareTastes([], []).percent).toBe(0);
  });
});
