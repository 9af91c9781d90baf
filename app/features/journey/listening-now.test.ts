import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { artistKey } from "~/core/music-keys";
import { getDb } from "~/db/client.server";
import { blocks, follows, journeySettings, nowPlaying } from "~/db/schema";
import { createTestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { listListeningNow } from "./listening-now.server";

withTestDatabase();

async function playing(
  ownerId: string,
  track: string,
  options: { artist?: string; expires?: string; startedAgo?: string } = {},
) {
  await getDb()
    .insert(nowPlaying)
    .values({
      userId: ownerId,
      artistName: options.artist ?? "Broadcast",
      trackName: track,
      releaseName: "Tender Buttons",
      startedAt: sql`now() - ${sql.raw(`interval '${options.startedAgo ?? "1 minute"}'`)}`,
      expiresAt: sql`now() + ${sql.raw(`interval '${options.expires ?? "5 minutes"}'`)}`,
    });
}

const follow = (followerId: string, followeeId: string) =>
  getDb().insert(follows).values({ followerId, followeeId });

describe("the feed's listening now strip", () => {
  it("shows the friends the viewer may see playing, newest first, and nobody else", async () => {
    const viewer = await createTestUser();
    const [friend, later, paused, hidesArtist, onlyMe, blocked, blocker, stopped, stranger] =
      await Promise.all(Array.from({ length: 9 }, () => createTestUser()));
    for (const u of [friend, later, paused, hidesArtist, onlyMe, blocked, blocker, stopped]) {
      await follow(viewer.id, u?.id as string);
    }
    await playing(friend?.id as string, "Black Cat", { startedAgo: "3 minutes" });
    await playing(later?.id as string, "Pendulum", { startedAgo: "10 seconds" });
    await playing(paused?.id as string, "Paused track");
    await getDb()
      .insert(journeySettings)
      .values({ userId: paused?.id as string, nowPlayingPaused: true });
    await playing(hidesArtist?.id as string, "Hidden", { artist: "Secret Band" });
    await getDb()
      .insert(journeySettings)
      .values({ userId: hidesArtist?.id as string, hiddenArtists: [artistKey("Secret Band")] });
    await playing(onlyMe?.id as string, "Private");
    await getDb()
      .insert(journeySettings)
      .values({ userId: onlyMe?.id as string, audience: "only_me" });
    await playing(blocked?.id as string, "Blocked one");
    await getDb()
      .insert(blocks)
      .values({ blockerId: viewer.id, blockedId: blocked?.id as string });
    await playing(blocker?.id as string, "Blocker");
    await getDb()
      .insert(blocks)
      .values({ blockerId: blocker?.id as string, blockedId: viewer.id });
    await playing(stopped?.id as string, "Ran out", { expires: "-1 minute" });
    await playing(stranger?.id as string, "Not followed");

    const strip = await listListeningNow({ viewerId: viewer.id });
    expect(strip.map((p) => p.trackName)).toEqual(["Pendulum", "Black Cat"]);
    expect(strip[1]).toMatchObject({
      userId: friend?.id,
      username: friend?.username,
      artistName: "Broadcast",
      releaseName: "Tender Buttons",
    });
    expect(Date.parse(strip[1]?.expiresAt ?? "")).toBeGreaterThan(Date.now());
  });

  it("lists only people followed, even when their journey is public", async () => {
    const viewer = await createTestUser();
    const open = await createTestUser();
    await playing(open.id, "Open track");
    expect(await listListeningNow({ viewerId: viewer.id })).toEqual([]);
    await getDb().insert(journeySettings).values({ userId: open.id, audience: "everyone" });
    await follow(viewer.id, open.id);
    expect((await listListeningNow({ viewerId: viewer.id })).map((p) => p.trackName)).toEqual([
      "Open track",
    ]);
  });
});
