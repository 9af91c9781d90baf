import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDatabase } from "~/db/client.server";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { blockUser } from "~/features/blocks/blocks.server";
import { addComment, listComments } from "~/features/comments/comments.server";
import { followUser } from "~/features/follows/follows.server";
import { likePost } from "~/features/likes/likes.server";
import { getProfile } from "~/features/people/people.server";
import { AUDIENCES, type Audience } from "~/features/posts/constants";
import { listFeed, listProfilePosts } from "~/features/posts/feed.server";
import { getPost } from "~/features/posts/posts.server";
import { createTestUser, type TestUser } from "../../tests/support/factories";
import { createTestPost } from "../../tests/support/social-factories";

type ViewerKind = "signed out" | "stranger" | "follower" | "author" | "blocked user" | "admin";
const VIEWERS: ViewerKind[] = [
  "signed out",
  "stranger",
  "follower",
  "author",
  "blocked user",
  "admin",
];

/** Who may see a post of each audience (admins get no extra read power). */
const EXPECTED: Record<Audience, Record<ViewerKind, boolean>> = {
  everyone: {
    "signed out": true,
    stranger: true,
    follower: true,
    author: true,
    "blocked user": false,
    admin: true,
  },
  followers: {
    "signed out": false,
    stranger: false,
    follower: true,
    author: true,
    "blocked user": false,
    admin: false,
  },
  only_me: {
    "signed out": false,
    stranger: false,
    follower: false,
    author: true,
    "blocked user": false,
    admin: false,
  },
};

let testDb: TestDatabase;
let author: TestUser;
let people: Record<Exclude<ViewerKind, "signed out">, TestUser>;
const postIds = {} as Record<Audience, string>;
const commentIds = {} as Record<Audience, string>;

function viewerId(kind: ViewerKind): string | null {
  return kind === "signed out" ? null : people[kind].id;
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  setDatabase(testDb);
  author = await createTestUser({ username: "author_ana" });
  const stranger = await createTestUser();
  const follower = await createTestUser();
  const blocked = await createTestUser();
  const admin = await createTestUser({ isAdmin: true });
  people = { author, stranger, follower, "blocked user": blocked, admin };
  await followUser({ viewerId: follower.id, targetId: author.id });
  // The blocked person followed the author before the block; the block must undo that.
  await followUser({ viewerId: blocked.id, targetId: author.id });
  for (const audience of AUDIENCES) {
    postIds[audience] = await createTestPost(author.id, {
      audience,
      title: `Song for ${audience}`,
    });
    commentIds[audience] = (
      await addComment({ viewerId: author.id, postId: postIds[audience], content: "my own words" })
    ).id;
  }
  await blockUser({ viewerId: author.id, targetId: blocked.id });
});

afterAll(async () => {
  setDatabase(undefined);
  await testDb.destroy();
});

const cases = AUDIENCES.flatMap((audience) =>
  VIEWERS.map((viewer) => [audience, viewer, EXPECTED[audience][viewer]] as const),
);

describe("visibility matrix: audience × viewer", () => {
  it.each(cases)(
    "%s post, %s → visible: %s on the post page",
    async (audience, viewer, visible) => {
      const post = await getPost({ viewerId: viewerId(viewer), postId: postIds[audience] });
      expect(post !== null).toBe(visible);
    },
  );

  it.each(cases)("%s post, %s → visible: %s in the feed", async (audience, viewer, visible) => {
    const id = viewerId(viewer);
    const following = id ? await listFeed({ viewerId: id, tab: "following", limit: 50 }) : null;
    const everyone = await listFeed({ viewerId: id, tab: "everyone", limit: 50 });
    const seen = [...(following?.posts ?? []), ...everyone.posts].some(
      (p) => p.id === postIds[audience],
    );
    expect(seen).toBe(visible);
  });

  it.each(cases)("%s post, %s → visible: %s on the profile", async (audience, viewer, visible) => {
    const id = viewerId(viewer);
    const page = await listProfilePosts({ viewerId: id, authorId: author.id });
    expect(page.posts.some((p) => p.id === postIds[audience])).toBe(visible);
  });

  it.each(cases)("%s post, %s → comments visible: %s", async (audience, viewer, visible) => {
    const page = await listComments({ viewerId: viewerId(viewer), postId: postIds[audience] });
    expect(page.comments.some((c) => c.id === commentIds[audience])).toBe(visible);
  });

  it.each(cases.filter(([, viewer]) => viewer !== "signed out"))(
    "%s post, %s → may comment and like: %s",
    async (audience, viewer, visible) => {
      const id = viewerId(viewer) as string;
      const [comment, like] = await Promise.allSettled([
        addComment({ viewerId: id, postId: postIds[audience], content: "hello" }),
        likePost({ viewerId: id, postId: postIds[audience] }),
      ]);
      if (visible) {
        expect(comment).toMatchObject({ status: "fulfilled", value: { id: expect.any(String) } });
        expect(like).toMatchObject({ status: "fulfilled", value: { liked: true } });
      } else {
        expect(comment).toMatchObject({ status: "rejected", reason: { code: "not_found" } });
        expect(like).toMatchObject({ status: "rejected", reason: { code: "not_found" } });
      }
    },
  );

  it("profile post counts only count what the viewer may see", async () => {
    const counts = await Promise.all(
      VIEWERS.map(async (viewer) => {
        const profile = await getProfile({ viewerId: viewerId(viewer), username: "AUTHOR_ANA" });
        return [viewer, profile?.postCount] as const;
      }),
    );
    expect(Object.fromEntries(counts)).toEqual({
      "signed out": 1,
      stranger: 1,
      follower: 2,
      author: 3,
      "blocked user": 0,
      admin: 1,
    });
  });

  it("a block hides the other direction too: the blocker no longer sees the blocked person's posts", async () => {
    const blocked = people["blocked user"];
    const theirs = await createTestPost(blocked.id, { title: "Public but blocked" });
    expect(await getPost({ viewerId: author.id, postId: theirs })).toBeNull();
    expect(await getPost({ viewerId: people.stranger.id, postId: theirs })).not.toBeNull();
    const feed = await listFeed({ viewerId: author.id, tab: "everyone", limit: 50 });
    expect(feed.posts.some((p) => p.id === theirs)).toBe(false);
  });

  it("a malformed or unknown post id is simply not found", async () => {
    expect(await getPost({ viewerId: author.id, postId: "not-a-uuid" })).toBeNull();
    expect(await getPost({ viewerId: null, postId: "'; drop table posts; --" })).toBeNull();
    expect(
      await getPost({ viewerId: author.id, postId: "00000000-0000-4000-8000-000000000000" }),
    ).toBeNull();
  });
});
