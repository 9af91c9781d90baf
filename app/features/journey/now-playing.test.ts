import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { blocks, follows, journeySettings, nowPlaying } from "~/db/schema";
import { loadProfilePage } from "~/features/people/index.server";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { getVisibleNowPlaying } from "./now-playing.server";

withTestDatabase();

/** A person whose player says a track is playing, with a follower, a stranger and a blocked person. */
async function playingPerson(settings?: Partial<typeof journeySettings.$inferInsert>) {
  const owner = await createTestUser();
  const follower = await createTestUser();
  const stranger = await createTestUser();
  await getDb().insert(follows).values({ followerId: follower.id, followeeId: owner.id });
  await getDb().insert(nowPlaying).values({
    userId: owner.id,
    artistName: "Broadcast",
    trackName: "Black Cat",
    releaseName: "Tender Buttons",
    expiresAt: sql`now() + interval '5 minutes'`,
  });
  if (settings)
    await getDb()
      .insert(journeySettings)
      .values({ userId: owner.id, ...settings });
  return { owner, follower, stranger };
}

async function sees(viewer: TestUser | null, owner: TestUser): Promise<boolean> {
  const track = await getVisibleNowPlaying({ viewerId: viewer?.id ?? null, userId: owner.id });
  if (track) expect(track).toMatchObject({ trackName: "Black Cat", artistName: "Broadcast" });
  return track !== null;
}

describe("who sees now playing", () => {
  it("by default (no journey settings): the person and their followers, nobody else", async () => {
    const { owner, follower, stranger } = await playingPerson();
    expect(await sees(owner, owner)).toBe(true);
    expect(await sees(follower, owner)).toBe(true);
    expect(await sees(stranger, owner)).toBe(false);
    expect(await sees(null, owner)).toBe(false);
  });

  it("with the journey for everyone: anybody, signed out included", async () => {
    const { owner, follower, stranger } = await playingPerson({ audience: "everyone" });
    expect(await sees(owner, owner)).toBe(true);
    expect(await sees(follower, owner)).toBe(true);
    expect(await sees(stranger, owner)).toBe(true);
    expect(await sees(null, owner)).toBe(true);
  });

  it("with the journey for only me: the person alone", async () => {
    const { owner, follower, stranger } = await playingPerson({ audience: "only_me" });
    expect(await sees(owner, owner)).toBe(true);
    expect(await sees(follower, owner)).toBe(false);
    expect(await sees(stranger, owner)).toBe(false);
    expect(await sees(null, owner)).toBe(false);
  });

  it("never while the person paused now playing, not even to themselves", async () => {
    const { owner, follower, stranger } = await playingPerson({
      audience: "everyone",
      nowPlayingPaused: true,
    });
    for (const viewer of [owner, follower, stranger, null]) {
      expect(await sees(viewer, owner)).toBe(false);
    }
  });

  it("never across a block, whoever blocked whom, even with the journey for everyone", async () => {
    const { owner, follower, stranger } = await playingPerson({ audience: "everyone" });
    // The follower's follow would stay if rows were inserted by hand; the block still wins.
    await getDb().insert(blocks).values({ blockerId: owner.id, blockedId: follower.id });
    await getDb().insert(blocks).values({ blockerId: stranger.id, blockedId: owner.id });
    expect(await sees(follower, owner)).toBe(false);
    expect(await sees(stranger, owner)).toBe(false);
    expect(await sees(owner, owner)).toBe(true);
  });

  it("never to others when the person hid the artist from their journey", async () => {
    const { owner, follower, stranger } = await playingPerson({
      audience: "everyone",
      hiddenArtists: ["broadcast"],
    });
    expect(await sees(follower, owner)).toBe(false);
    expect(await sees(stranger, owner)).toBe(false);
    expect(await sees(null, owner)).toBe(false);
    expect(await sees(owner, owner)).toBe(true);
  });

  it("not once the track's time has run out", async () => {
    const { owner } = await playingPerson({ audience: "everyone" });
    await getDb()
      .update(nowPlaying)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(nowPlaying.userId, owner.id));
    expect(await sees(owner, owner)).toBe(false);
    expect(await sees(null, owner)).toBe(false);
  });
});

describe("the profile page data", () => {
  let owner: TestUser;
  let follower: TestUser;
  let stranger: TestUser;
  beforeAll(async () => {
    ({ owner, follower, stranger } = await playingPerson());
  });

  it("carries now playing for a follower and leaves it out for a stranger", async () => {
    const forFollower = await loadProfilePage({ viewerId: follower.id, username: owner.username });
    expect(forFollower?.nowPlaying).toMatchObject({
      trackName: "Black Cat",
      artistName: "Broadcast",
      releaseName: "Tender Buttons",
    });
    const forStranger = await loadProfilePage({ viewerId: stranger.id, username: owner.username });
    expect(forStranger?.profile.id).toBe(owner.id);
    expect(forStranger?.nowPlaying).toBeNull();
  });
});
