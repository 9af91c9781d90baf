import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { comments, follows, postLikes, REPORT_REASONS, reports } from "~/db/schema";
import { blockUser, unblockUser } from "~/features/blocks/index.server";
import {
  addComment,
  COMMENTS_PAGE_SIZE,
  deleteComment,
  editComment,
  listComments,
} from "~/features/comments/index.server";
import {
  followUser,
  listPeople,
  suggestPeople,
  unfollowUser,
} from "~/features/follows/index.server";
import { likePost, listLikers, unlikePost } from "~/features/likes/index.server";
import { getProfile, listTopArtists } from "~/features/people/index.server";
import { REPORT_REASON_KEYS } from "~/features/reports";
import { reportComment, reportPost } from "~/features/reports/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost, postInput } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { deletePost, getPost, suggestMusic, updatePost } from "./posts.server";
import { postInputSchema } from "./schemas";

withTestDatabase();

describe("posts", () => {
  it("only the author can edit or delete a post; deleting removes its likes and comments", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const id = await createTestPost(ana.id);
    await likePost({ viewerId: ben.id, postId: id });
    await addComment({ viewerId: ben.id, postId: id, content: "great" });
    await expect(
      updatePost({ viewerId: ben.id, postId: id, input: postInput({ title: "Hijacked" }) }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(deletePost({ viewerId: ben.id, postId: id })).rejects.toMatchObject({
      code: "not_found",
    });
    await updatePost({ viewerId: ana.id, postId: id, input: postInput({ title: "Nude" }) });
    const edited = await getPost({ viewerId: null, postId: id });
    expect(edited?.title).toBe("Nude");
    expect(edited?.editedAt).not.toBeNull();
    await deletePost({ viewerId: ana.id, postId: id });
    expect(await getPost({ viewerId: ana.id, postId: id })).toBeNull();
    expect(await getDb().select().from(postLikes).where(eq(postLikes.postId, id))).toEqual([]);
    expect(await getDb().select().from(comments).where(eq(comments.postId, id))).toEqual([]);
  });

  it("validates the composer input", () => {
    const result = postInputSchema.safeParse({
      kind: "track",
      title: "  ",
      note: "x".repeat(2001),
      linkUrl: "javascript:alert(1)",
      audience: "friends-of-friends",
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path[0]);
    expect(paths).toEqual(expect.arrayContaining(["title", "note", "linkUrl", "audience"]));
    const artistPost = postInputSchema.parse({ kind: "artist", title: "Björk" });
    expect(artistPost.artist).toBe("Björk");
    expect(postInputSchema.safeParse({ kind: "album", title: "Kid A" }).success).toBe(false);
  });

  it("autocompletes music already posted, by prefix, without leaking private posts", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    await createTestPost(ana.id, { artist: "Portishead", title: "Roads", album: "Dummy" });
    await createTestPost(ana.id, { artist: "portishead", title: "Glory Box", album: "Dummy" });
    await createTestPost(ana.id, { artist: "Pixies", title: "Hey", audience: "only_me" });
    await createTestPost(ana.id, { artist: "50% Off", title: "Percent" });
    expect(await suggestMusic({ viewerId: ben.id, field: "artist", prefix: "PORT" })).toEqual([
      "Portishead",
    ]);
    expect(await suggestMusic({ viewerId: ben.id, field: "artist", prefix: "pi" })).toEqual([]);
    expect(await suggestMusic({ viewerId: ana.id, field: "artist", prefix: "pi" })).toEqual([
      "Pixies",
    ]);
    expect(await suggestMusic({ viewerId: ben.id, field: "artist", prefix: "50%" })).toEqual([
      "50% Off",
    ]);
    expect(await suggestMusic({ viewerId: ben.id, field: "artist", prefix: "%" })).toEqual([]);
    expect(await suggestMusic({ viewerId: ben.id, field: "album", prefix: "du" })).toEqual([
      "Dummy",
    ]);
  });
});

describe("likes", () => {
  it("likes once, counts, lists who liked, unlikes", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser({ displayName: "Ben" });
    const id = await createTestPost(ana.id);
    expect(await likePost({ viewerId: ben.id, postId: id })).toEqual({ liked: true, likeCount: 1 });
    expect(await likePost({ viewerId: ben.id, postId: id })).toEqual({ liked: true, likeCount: 1 });
    expect(await likePost({ viewerId: ana.id, postId: id })).toEqual({ liked: true, likeCount: 2 });
    const post = await getPost({ viewerId: ben.id, postId: id });
    expect(post).toMatchObject({ likeCount: 2, viewerHasLiked: true });
    expect((await listLikers({ viewerId: null, postId: id })).map((l) => l.id).sort()).toEqual(
      [ana.id, ben.id].sort(),
    );
    expect(await unlikePost({ viewerId: ben.id, postId: id })).toEqual({
      liked: false,
      likeCount: 1,
    });
    await expect(likePost({ viewerId: ben.id, postId: "nope" })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("comments", () => {
  it("adds, edits own, deletes own; the post's author may delete any comment on it", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const cleo = await createTestUser();
    const id = await createTestPost(ana.id);
    const bens = await addComment({ viewerId: ben.id, postId: id, content: "<b>hi</b>" });
    const cleos = await addComment({ viewerId: cleo.id, postId: id, content: "hello" });
    await expect(
      editComment({ viewerId: cleo.id, commentId: bens.id, content: "mine now" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await editComment({ viewerId: ben.id, commentId: bens.id, content: "hi again" });
    await expect(deleteComment({ viewerId: cleo.id, commentId: bens.id })).rejects.toMatchObject({
      code: "not_found",
    });
    const page = await listComments({ viewerId: ben.id, postId: id });
    expect(page.comments.map((c) => [c.content, c.isOwn, c.canDelete])).toEqual([
      ["hello", false, false],
      ["hi again", true, true],
    ]);
    expect(page.comments[1]?.editedAt).not.toBeNull();
    expect(page.comments[1]?.author).toMatchObject({ id: ben.id, username: ben.username });
    await deleteComment({ viewerId: ana.id, commentId: cleos.id });
    await deleteComment({ viewerId: ben.id, commentId: bens.id });
    expect((await listComments({ viewerId: ana.id, postId: id })).comments).toEqual([]);
  });

  it("pages comments 12 at a time, newest first", async () => {
    const ana = await createTestUser();
    const id = await createTestPost(ana.id);
    for (let i = 0; i < 14; i++) {
      await addComment({ viewerId: ana.id, postId: id, content: `comment ${i}` });
    }
    const first = await listComments({ viewerId: ana.id, postId: id });
    expect(first.comments).toHaveLength(COMMENTS_PAGE_SIZE);
    const second = await listComments({ viewerId: ana.id, postId: id, cursor: first.nextCursor });
    expect(second.comments).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
    const all = [...first.comments, ...second.comments].map((c) => c.id);
    expect(new Set(all).size).toBe(14);
  });
});

describe("follows", () => {
  it("refuses following oneself and unknown people; counts followers; friends are mutual", async () => {
    const ana = await createTestUser({ username: "ana_follows" });
    const ben = await createTestUser();
    const cleo = await createTestUser();
    await expect(followUser({ viewerId: ana.id, targetId: ana.id })).rejects.toMatchObject({
      code: "invalid",
    });
    await expect(followUser({ viewerId: ana.id, targetId: "ghost" })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await followUser({ viewerId: ben.id, targetId: ana.id })).toEqual({
      following: true,
      requested: false,
      followerCount: 1,
    });
    await followUser({ viewerId: ben.id, targetId: ana.id });
    await followUser({ viewerId: cleo.id, targetId: ana.id });
    await followUser({ viewerId: ana.id, targetId: ben.id });
    const followers = await listPeople({ viewerId: ana.id, userId: ana.id, list: "followers" });
    expect(followers.people.map((p) => p.id).sort()).toEqual([ben.id, cleo.id].sort());
    const friends = await listPeople({ viewerId: null, userId: ana.id, list: "friends" });
    expect(friends.people.map((p) => p.id)).toEqual([ben.id]);
    const following = await listPeople({ viewerId: null, userId: ana.id, list: "following" });
    expect(following.people.map((p) => p.id)).toEqual([ben.id]);
    const profile = await getProfile({ viewerId: ben.id, username: "ana_follows" });
    expect(profile).toMatchObject({
      followerCount: 2,
      followingCount: 1,
      friendCount: 1,
      isFollowed: true,
      followsViewer: true,
    });
    expect(await unfollowUser({ viewerId: cleo.id, targetId: ana.id })).toEqual({
      following: false,
      requested: false,
      followerCount: 1,
    });
  });

  it("suggests people who post about the same artists, then the most active", async () => {
    const me = await createTestUser();
    const twin = await createTestUser();
    const busy = await createTestUser();
    const followed = await createTestUser();
    await createTestPost(me.id, { artist: "Khruangbin" });
    await createTestPost(twin.id, { artist: "khruangbin" });
    await createTestPost(followed.id, { artist: "Khruangbin" });
    await followUser({ viewerId: me.id, targetId: followed.id });
    for (let i = 0; i < 3; i++) await createTestPost(busy.id, { artist: "Other" });
    const suggestions = await suggestPeople({ viewerId: me.id, limit: 20 });
    expect(suggestions[0]).toMatchObject({ id: twin.id, reason: "Also posts about khruangbin" });
    const ids = suggestions.map((s) => s.id);
    expect(ids).toContain(busy.id);
    expect(ids).not.toContain(me.id);
    expect(ids).not.toContain(followed.id);
  });

  it("lists top artists from the posts the viewer may see", async () => {
    const ana = await createTestUser();
    await createTestPost(ana.id, { artist: "Björk" });
    await createTestPost(ana.id, { artist: "björk" });
    await createTestPost(ana.id, { artist: "Sade" });
    await createTestPost(ana.id, { artist: "Secret Band", audience: "only_me" });
    await createTestPost(ana.id, { kind: "playlist", title: "Mix", artist: "Ana the curator" });
    expect(await listTopArtists({ viewerId: null, userId: ana.id })).toEqual([
      { name: "Björk", postCount: 2 },
      { name: "Sade", postCount: 1 },
    ]);
    const own = await listTopArtists({ viewerId: ana.id, userId: ana.id });
    expect(own.map((a) => a.name)).toContain("Secret Band");
  });
});

describe("blocks", () => {
  it("removes follows both ways and stops the blocked person following, liking and commenting", async () => {
    const ana = await createTestUser();
    const troll = await createTestUser();
    const id = await createTestPost(ana.id);
    await followUser({ viewerId: troll.id, targetId: ana.id });
    await followUser({ viewerId: ana.id, targetId: troll.id });
    await blockUser({ viewerId: ana.id, targetId: troll.id });
    const remaining = await getDb().select().from(follows).where(eq(follows.followerId, troll.id));
    expect(remaining).toEqual([]);
    await expect(followUser({ viewerId: troll.id, targetId: ana.id })).rejects.toMatchObject({
      code: "blocked",
    });
    await expect(followUser({ viewerId: ana.id, targetId: troll.id })).rejects.toMatchObject({
      code: "blocked",
    });
    await expect(likePost({ viewerId: troll.id, postId: id })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      addComment({ viewerId: troll.id, postId: id, content: "hah" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(blockUser({ viewerId: ana.id, targetId: ana.id })).rejects.toMatchObject({
      code: "invalid",
    });
    await unblockUser({ viewerId: ana.id, targetId: troll.id });
    await expect(likePost({ viewerId: troll.id, postId: id })).resolves.toMatchObject({
      liked: true,
    });
  });

  it("hides comments by people in a block with the viewer", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const troll = await createTestUser();
    const id = await createTestPost(ana.id);
    await addComment({ viewerId: troll.id, postId: id, content: "troll" });
    await blockUser({ viewerId: ben.id, targetId: troll.id });
    const seenByBen = await listComments({ viewerId: ben.id, postId: id });
    expect(seenByBen.comments).toEqual([]);
    const seenByAna = await listComments({ viewerId: ana.id, postId: id });
    expect(seenByAna.comments).toHaveLength(1);
  });
});

describe("reports", () => {
  it("stores a report of a visible post or comment once while open; refuses hidden and own", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const id = await createTestPost(ana.id);
    const hidden = await createTestPost(ana.id, { audience: "only_me" });
    const comment = await addComment({ viewerId: ana.id, postId: id, content: "rude" });
    await reportPost({ viewerId: ben.id, postId: id, reason: "spam", details: "buy now" });
    await reportPost({ viewerId: ben.id, postId: id, reason: "spam" });
    await reportComment({ viewerId: ben.id, commentId: comment.id, reason: "harassment" });
    await expect(
      reportPost({ viewerId: ben.id, postId: hidden, reason: "spam" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      reportPost({ viewerId: ana.id, postId: id, reason: "spam" }),
    ).rejects.toMatchObject({ code: "invalid" });
    const rows = await getDb().select().from(reports).where(eq(reports.reporterId, ben.id));
    expect(rows.map((r) => [r.postId, r.commentId, r.reason, r.status]).sort()).toEqual(
      [
        [id, null, "spam", "open"],
        [null, comment.id, "harassment", "open"],
      ].sort(),
    );
  });

  it("offers exactly the reasons the database accepts", () => {
    expect([...REPORT_REASON_KEYS].sort()).toEqual([...REPORT_REASONS].sort());
  });
});
