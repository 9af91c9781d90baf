import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { artistKey, titleKey } from "~/core/music-keys";
import { getDb } from "~/db/client.server";
import { follows, listens, posts } from "~/db/schema";
import { saveJourneySettings } from "~/features/journey/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { answerWithBuiltin } from "./builtin.server";
import { recogniseIntent } from "./intents";

withTestDatabase();

const NOW = new Date("2025-06-15T12:00:00Z");

async function play(userId: string, artist: string, times: number, daysAgo = 1) {
  await getDb()
    .insert(listens)
    .values(
      Array.from({ length: times }, (_, i) => ({
        userId,
        listenedAt: new Date(NOW.getTime() - daysAgo * 86_400_000 - i * 600_000),
        artistName: artist,
        trackName: `Song ${i}`,
        artistKey: artistKey(artist),
        trackKey: titleKey(`Song ${i}`),
        source: "scrobble" as const,
      })),
    );
}

describe("the assistant answers from listening history", () => {
  it("understands “what have I been listening to?”", () => {
    expect(recogniseIntent("What have I been listening to?")).toEqual({
      kind: "listening",
      person: null,
      focus: "overview",
      period: { kind: "rolling", period: "month" },
    });
  });

  it("tells a person with plays what they played, and keeps posts as the fallback", async () => {
    const person = await createTestUser();
    const quiet = await createTestUser();
    await play(person.id, "Slowdive", 3);
    await play(person.id, "Low", 1);
    const alison = await createTestPost(quiet.id, { title: "Alison", artist: "Slowdive" });
    await getDb()
      .update(posts)
      .set({ createdAt: new Date("2025-06-01T12:00:00Z") })
      .where(eq(posts.id, alison));
    const answer = await answerWithBuiltin({
      viewerId: person.id,
      message: "What have I been listening to?",
      now: NOW,
    });
    expect(answer.text).toContain("In the last 30 days you played 4 tracks");
    expect(answer.text).toContain("Slowdive](/search?q=Slowdive) (3 plays)");
    const top = await answerWithBuiltin({
      viewerId: person.id,
      message: "my top artists this month",
      now: NOW,
    });
    expect(top.text).toContain("Your most played artist this month is [Slowdive]");
    // No plays: the post-based answer as before.
    const fallback = await answerWithBuiltin({
      viewerId: quiet.id,
      message: "my top artists of all time",
      now: NOW,
    });
    expect(fallback.text).toContain("from your posts, as your journey has no plays of all time");
    expect(fallback.text).toContain("posted once");
  });

  it("tells what friends played only from journeys they share, without hidden artists", async () => {
    const viewer = await createTestUser();
    const sharing = await createTestUser({ username: `sharing_${Date.now()}` });
    const hiding = await createTestUser({ username: `private_${Date.now()}` });
    await getDb()
      .insert(follows)
      .values([
        { followerId: viewer.id, followeeId: sharing.id },
        { followerId: viewer.id, followeeId: hiding.id },
      ]);
    await play(sharing.id, "Secret Band", 5);
    await play(sharing.id, "Cocteau Twins", 2);
    await saveJourneySettings({
      userId: sharing.id,
      audience: "followers",
      hiddenArtists: ["secret band"],
      nowPlayingPaused: false,
      recapsEnabled: true,
    });
    await play(hiding.id, "Private Artist", 9);
    await saveJourneySettings({
      userId: hiding.id,
      audience: "only_me",
      hiddenArtists: [],
      nowPlayingPaused: false,
      recapsEnabled: true,
    });
    const answer = await answerWithBuiltin({
      viewerId: viewer.id,
      message: "What are my friends listening to?",
      now: NOW,
    });
    expect(answer.text).toContain("Cocteau Twins");
    expect(answer.text).toContain("(2 plays)");
    expect(answer.text).not.toContain("Secret Band");
    expect(answer.text).not.toContain("Private Artist");
    expect(answer.text).not.toContain(hiding.username);
  });
});
