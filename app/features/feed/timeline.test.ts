import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { countStatements, getDb } from "~/db/client.server";
import { homeTimeline, posts } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import { followUser, unfollowUser } from "~/features/follows/index.server";
import { deletePost, listFeed, updatePost } from "~/features/posts/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost, postInput } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { BACKFILL_LIMIT } from "./timeline.server";

withTestDatabase();

async function timelineOf(userId: string): Promise<string[]> {
  const rows = await getDb()
    .select({ postId: homeTimeline.postId })
    .from(homeTimeline)
    .where(eq(homeTimeline.userId, userId));
  return rows.map((r) => r.postId);
}

async function followingFeedIds(userId: string): Promise<string[]> {
  return (await listFeed({ viewerId: userId, tab: "following", limit: 50 })).posts.map((p) => p.id);
}

describe("home timeline", () => {
  it("fans a new post out to the author and their followers, but an only-me post to the author alone", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const cleo = await createTestUser();
    await followUser({ viewerId: ben.id, targetId: ana.id });
    const everyone = await createTestPost(ana.id, { audience: "everyone" });
    const followers = await createTestPost(ana.id, { audience: "followers" });
    const private_ = await createTestPost(ana.id, { audience: "only_me" });
    expect(await timelineOf(ana.id)).toEqual(
      expect.arrayContaining([everyone, followers, private_]),
    );
    expect((await timelineOf(ben.id)).sort()).toEqual([everyone, followers].sort());
    expect(await timelineOf(cleo.id)).toEqual([]);
    expect((await followingFeedIds(ben.id)).sort()).toEqual([followers, everyone].sort());
  });

  it("backfills the followee's visible posts on follow (newest 500) and removes them on unfollow", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const older = await createTestPost(ana.id, { audience: "everyone" });
    const hidden = await createTestPost(ana.id, { audience: "only_me" });
    const newer = await createTestPost(ana.id, { audience: "followers" });
    await followUser({ viewerId: ben.id, targetId: ana.id });
    expect((await timelineOf(ben.id)).sort()).toEqual([older, newer].sort());
    expect((await followingFeedIds(ben.id)).sort()).toEqual([newer, older].sort());
    expect(await followingFeedIds(ben.id)).not.toContain(hidden);

    await unfollowUser({ viewerId: ben.id, targetId: ana.id });
    expect(await timelineOf(ben.id)).toEqual([]);
    // The next post no longer reaches Ben.
    await createTestPost(ana.id);
    expect(await timelineOf(ben.id)).toEqual([]);
  });

  it("bounds the backfill", async () => {
    const prolific = await createTestUser();
    const fan = await createTestUser();
    const values = Array.from({ length: BACKFILL_LIMIT + 20 }, (_, i) => ({
      authorId: prolific.id,
      kind: "track" as const,
      title: `Track ${i}`,
      artist: "Someone",
      createdAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000),
    }));
    await getDb().insert(posts).values(values);
    await followUser({ viewerId: fan.id, targetId: prolific.id });
    const rows = await timelineOf(fan.id);
    expect(rows).toHaveLength(BACKFILL_LIMIT);
    const feed = await listFeed({ viewerId: fan.id, tab: "following", limit: 1 });
    expect(feed.posts[0]?.title).toBe(`Track ${BACKFILL_LIMIT + 19}`);
  });

  it("re-targets a post when its audience changes", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    await followUser({ viewerId: ben.id, targetId: ana.id });
    const id = await createTestPost(ana.id, { audience: "everyone" });
    expect(await timelineOf(ben.id)).toEqual([id]);
    await updatePost({ viewerId: ana.id, postId: id, input: postInput({ audience: "only_me" }) });
    expect(await timelineOf(ben.id)).toEqual([]);
    expect(await timelineOf(ana.id)).toContain(id);
    await updatePost({ viewerId: ana.id, postId: id, input: postInput({ audience: "followers" }) });
    expect(await timelineOf(ben.id)).toEqual([id]);
  });

  it("cleans up on delete and on block", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    await followUser({ viewerId: ben.id, targetId: ana.id });
    await followUser({ viewerId: ana.id, targetId: ben.id });
    const first = await createTestPost(ana.id);
    const second = await createTestPost(ana.id);
    const bens = await createTestPost(ben.id);
    await deletePost({ viewerId: ana.id, postId: first });
    expect(await timelineOf(ben.id)).toEqual(expect.arrayContaining([second, bens]));
    expect(await timelineOf(ben.id)).not.toContain(first);

    await blockUser({ viewerId: ben.id, targetId: ana.id });
    expect(await timelineOf(ben.id)).toEqual([bens]);
    const anasTimeline = await getDb()
      .select({ postId: homeTimeline.postId })
      .from(homeTimeline)
      .where(and(eq(homeTimeline.userId, ana.id), eq(homeTimeline.authorId, ben.id)));
    expect(anasTimeline).toEqual([]);
  });

  it("pages newest first with an opaque cursor, without gaps or repeats", async () => {
    const ana = await createTestUser();
    const ids: string[] = [];
    for (let i = 0; i < 45; i++) ids.push(await createTestPost(ana.id, { title: `Song ${i}` }));
    const seen: string[] = [];
    const times: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await listFeed({ viewerId: ana.id, tab: "following", cursor });
      expect(page.posts.length).toBeLessThanOrEqual(20);
      seen.push(...page.posts.map((p) => p.id));
      times.push(...page.posts.map((p) => p.createdAt));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    // Posts made within one millisecond tie on time; the id breaks the tie, so compare as sets.
    expect([...seen].sort()).toEqual([...ids].sort());
    expect(times).toEqual([...times].sort().reverse());
  });

  it("ignores a cursor that is not one of ours", async () => {
    const ana = await createTestUser();
    await createTestPost(ana.id);
    const page = await listFeed({ viewerId: ana.id, tab: "following", cursor: "garbage!" });
    expect(page.posts).toHaveLength(1);
  });
});

describe("feed cost", () => {
  it.each([1, 20, 50])(
    "the data of a %i-post feed page costs exactly one SQL statement",
    async (size) => {
      const ana = await createTestUser();
      const ben = await createTestUser();
      await followUser({ viewerId: ben.id, targetId: ana.id });
      for (let i = 0; i < size + 1; i++) {
        await createTestPost(ana.id, {
          note: `post ${i} with #tag`,
          linkUrl: "https://youtu.be/dQw4w9WgXcQ",
        });
      }
      const following = await countStatements(() =>
        listFeed({ viewerId: ben.id, tab: "following", limit: size }),
      );
      expect(following.result.posts).toHaveLength(size);
      expect(following.statements).toBe(1);
      const everyone = await countStatements(() =>
        listFeed({ viewerId: ben.id, tab: "everyone", limit: size }),
      );
      expect(everyone.result.posts).toHaveLength(size);
      expect(everyone.statements).toBe(1);
      const signedOut = await countStatements(() =>
        listFeed({ viewerId: null, tab: "everyone", limit: size }),
      );
      expect(signedOut.statements).toBe(1);
    },
  );

  it("counts statements per async path, not globally", async () => {
    const [a, b] = await Promise.all([
      countStatements(() => listFeed({ viewerId: null, tab: "everyone", limit: 5 })),
      countStatements(async () => {
        await listFeed({ viewerId: null, tab: "everyone", limit: 5 });
        await listFeed({ viewerId: null, tab: "everyone", limit: 5 });
      }),
    ]);
    expect(a.statements).toBe(1);
    expect(b.statements).toBe(2);
  });
});
