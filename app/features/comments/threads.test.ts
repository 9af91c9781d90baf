import { describe, expect, it } from "vitest";
import { blockUser } from "~/features/blocks/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  addComment,
  deleteComment,
  listComments,
  listThread,
  REPLIES_SHOWN,
} from "./comments.server";

withTestDatabase();

describe("comment threads", () => {
  it("shows replies under the comment they answer, oldest first, one level deep", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const cleo = await createTestUser();
    const post = await createTestPost(ana.id);
    const first = await addComment({ viewerId: ben.id, postId: post, content: "first" });
    const second = await addComment({ viewerId: cleo.id, postId: post, content: "second" });
    const reply = await addComment({
      viewerId: ana.id,
      postId: post,
      content: "reply to first",
      replyToId: first.id,
    });
    // A reply to a reply joins the same thread (and still says whom it answers).
    await addComment({
      viewerId: ben.id,
      postId: post,
      content: "reply to the reply",
      replyToId: reply.id,
    });
    const page = await listComments({ viewerId: ana.id, postId: post });
    expect(page.comments.map((c) => c.content)).toEqual(["second", "first"]);
    const thread = page.comments[1];
    expect(thread?.replyCount).toBe(2);
    expect(thread?.replies.map((r) => [r.content, r.replyTo?.id])).toEqual([
      ["reply to first", first.id],
      ["reply to the reply", reply.id],
    ]);
    expect(page.comments[0]).toMatchObject({ id: second.id, replies: [], replyCount: 0 });
  });

  it("shows the first replies and counts the rest; the thread lists them all", async () => {
    const ana = await createTestUser();
    const post = await createTestPost(ana.id);
    const root = await addComment({ viewerId: ana.id, postId: post, content: "root" });
    for (let i = 0; i < REPLIES_SHOWN + 2; i++) {
      await addComment({ viewerId: ana.id, postId: post, content: `r${i}`, replyToId: root.id });
    }
    const [top] = (await listComments({ viewerId: ana.id, postId: post })).comments;
    expect(top?.replies.map((r) => r.content)).toEqual(["r0", "r1", "r2"]);
    expect(top?.replyCount).toBe(REPLIES_SHOWN + 2);
    const all = await listThread({ viewerId: ana.id, postId: post, threadId: root.id });
    expect(all.map((r) => r.content)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    // Not a thread of this post, or not an id at all: nothing.
    expect(await listThread({ viewerId: ana.id, postId: post, threadId: "nope" })).toEqual([]);
    const other = await createTestPost(ana.id);
    expect(await listThread({ viewerId: ana.id, postId: other, threadId: root.id })).toEqual([]);
  });

  it("hides replies across a block, and a deleted thread starter leaves its replies top-level", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const cleo = await createTestUser();
    const post = await createTestPost(ana.id);
    const root = await addComment({ viewerId: ana.id, postId: post, content: "root" });
    await addComment({ viewerId: ben.id, postId: post, content: "ben's", replyToId: root.id });
    await addComment({ viewerId: cleo.id, postId: post, content: "cleo's", replyToId: root.id });
    await blockUser({ viewerId: cleo.id, targetId: ben.id });
    const [seenByCleo] = (await listComments({ viewerId: cleo.id, postId: post })).comments;
    expect(seenByCleo?.replies.map((r) => r.content)).toEqual(["cleo's"]);
    expect(seenByCleo?.replyCount).toBe(1);
    await deleteComment({ viewerId: ana.id, commentId: root.id });
    const after = await listComments({ viewerId: ana.id, postId: post });
    expect(after.comments.map((c) => c.content)).toEqual(["cleo's", "ben's"]);
  });
});
