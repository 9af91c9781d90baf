import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { homeTimeline, linkUnfurls, posts } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import { addComment } from "~/features/comments/index.server";
import { followUser } from "~/features/follows/index.server";
import { likePost } from "~/features/likes/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  type CardRow,
  decodeCursor,
  encodeCursor,
  queryRows,
  timelineRows,
} from "./post-cards.server";

withTestDatabase();

/**
 * `feed_timeline_page` (drizzle/0022) spells the visibility rule and the card's columns out in
 * SQL so its plan can be cached; these tests hold it to the inline statement it replaced, which
 * keeps using canSeePost, on every case of the rule, every page boundary and bad cursors.
 */

/** Stores a timeline row directly: what fan-out would have left before a block or an unfollow. */
async function putInTimeline(userId: string, postId: string) {
  const db = getDb();
  const [post] = await db
    .select({ createdAt: posts.createdAt, authorId: posts.authorId })
    .from(posts)
    .where(eq(posts.id, postId));
  if (!post) throw new Error("no such post");
  await db
    .insert(homeTimeline)
    .values({ userId, postId, createdAt: post.createdAt, authorId: post.authorId })
    .onConflictDoNothing();
}

async function bothWays(viewerId: string, cursor: string | null, limit: number) {
  const decoded = decodeCursor(cursor);
  const inline = await queryRows(
    getDb(),
    viewerId,
    { kind: "timeline", userId: viewerId },
    decoded,
    limit,
  );
  const cached = await timelineRows(getDb(), viewerId, decoded, limit);
  return { inline, cached };
}

/** Every page of the viewer's timeline at this page size, both ways; returns the post ids. */
async function walk(viewerId: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const { inline, cached } = await bothWays(viewerId, cursor, limit + 1);
    expect(cached).toEqual(inline);
    const shown: CardRow[] = inline.slice(0, limit);
    ids.push(...shown.map((r) => r.id));
    const last = shown[shown.length - 1];
    if (inline.length <= limit || !last) return ids;
    cursor = encodeCursor({ createdAt: last.createdAt.toISOString(), id: last.id });
  }
  throw new Error("more pages than expected");
}

describe("feed_timeline_page", () => {
  it("returns exactly the inline statement's rows: visibility, blocks, counts, images, previews, paging", async () => {
    const db = getDb();
    const viewer = await createTestUser();
    const friend = await createTestUser({ displayName: null });
    const stranger = await createTestUser();
    const blocker = await createTestUser();
    const blocked = await createTestUser();
    await followUser({ viewerId: viewer.id, targetId: friend.id });
    await followUser({ viewerId: viewer.id, targetId: blocker.id });
    await followUser({ viewerId: viewer.id, targetId: blocked.id });
    await followUser({ viewerId: friend.id, targetId: viewer.id });

    const expected = new Set<string>();
    for (const audience of ["everyone", "followers", "only_me"]) {
      expected.add(await createTestPost(viewer.id, { audience }));
      const friends = await createTestPost(friend.id, { audience });
      if (audience !== "only_me") expected.add(friends);
      // Fan-out never stores these; the function must still hide what the rule hides.
      await putInTimeline(viewer.id, friends);
      // A stranger's public post is visible wherever it is stored, the others are not.
      const strangers = await createTestPost(stranger.id, { audience });
      await putInTimeline(viewer.id, strangers);
      if (audience === "everyone") expected.add(strangers);
    }
    // Stored before the block either way, hidden after it.
    const fromBlocker = await createTestPost(blocker.id, { audience: "everyone" });
    const fromBlocked = await createTestPost(blocked.id, { audience: "everyone" });
    await blockUser({ viewerId: blocker.id, targetId: viewer.id });
    await blockUser({ viewerId: viewer.id, targetId: blocked.id });
    await putInTimeline(viewer.id, fromBlocker);
    await putInTimeline(viewer.id, fromBlocked);

    // Counts, the viewer's like, an image, a finished and a pending preview.
    const liked = await createTestPost(friend.id, { audience: "everyone" });
    expected.add(liked);
    await likePost({ viewerId: viewer.id, postId: liked });
    await likePost({ viewerId: friend.id, postId: liked });
    await addComment({ viewerId: viewer.id, postId: liked, content: "yes" });
    await addComment({ viewerId: friend.id, postId: liked, content: "right?" });
    const pictured = await createTestPost(
      friend.id,
      { audience: "followers" },
      {
        bytes: new Uint8Array([1, 2, 3]),
        width: 640,
        height: 480,
        contentType: "image/webp",
        sha256: "a".repeat(64),
      },
    );
    expected.add(pictured);
    const linked = await createTestPost(friend.id, {
      linkUrl: "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC",
    });
    const pending = await createTestPost(friend.id, {
      linkUrl: "https://open.spotify.com/track/0000000000000000000000",
    });
    expected.add(linked);
    expected.add(pending);
    await db
      .update(linkUnfurls)
      .set({ status: "done", title: "Song", artist: "Band", embedUrl: "https://e.test/x" })
      .where(eq(linkUnfurls.url, "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC"));
    // Two posts at the same millisecond: the id breaks the tie, across a page boundary too.
    const at = new Date("2026-01-01T00:00:00.000Z");
    for (const title of ["Twin A", "Twin B"]) {
      const [row] = await db
        .insert(posts)
        .values({ authorId: friend.id, kind: "track", title, createdAt: at })
        .returning({ id: posts.id });
      if (!row) throw new Error("no row");
      await putInTimeline(viewer.id, row.id);
      expected.add(row.id);
    }

    for (const limit of [1, 2, 3, 5, 20, 50]) {
      const ids = await walk(viewer.id, limit);
      expect(new Set(ids)).toEqual(expected);
      expect(ids).toHaveLength(expected.size);
    }
    const { cached } = await bothWays(viewer.id, null, 51);
    const likedRow = cached.find((r) => r.id === liked);
    expect(likedRow).toMatchObject({ likeCount: 2, commentCount: 2, viewerHasLiked: true });
    expect(cached.find((r) => r.id === pictured)).toMatchObject({
      imageWidth: 640,
      imageHeight: 480,
    });
    expect(cached.find((r) => r.id === linked)).toMatchObject({
      previewStatus: "done",
      previewTitle: "Song",
    });
    expect(cached.find((r) => r.id === liked)?.createdAt).toBeInstanceOf(Date);

    // Someone else's timeline, an empty one, and a cursor past the end.
    for (const who of [friend.id, stranger.id, blocker.id]) await walk(who, 2);
    const past = encodeCursor({
      createdAt: "2000-01-01T00:00:00.000Z",
      id: "00000000-0000-4000-8000-000000000000",
    });
    const end = await bothWays(viewer.id, past, 21);
    expect(end.cached).toEqual(end.inline);
    expect(end.cached).toEqual([]);
  });
});
