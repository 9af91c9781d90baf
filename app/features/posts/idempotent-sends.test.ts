import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { comments, posts } from "~/db/schema";
import { addComment } from "~/features/comments/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost, postInput } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { createPost } from "./posts.server";

withTestDatabase();

describe("a post or comment sent again with the same key (a retry after a lost answer)", () => {
  it("creates the post once, however often or concurrently it is sent", async () => {
    const ana = await createTestUser();
    const clientId = randomUUID();
    const send = () => createPost({ viewerId: ana.id, input: postInput(), clientId });
    const first = await send();
    const [second, third] = await Promise.all([send(), send()]);
    expect(first.id).toBe(clientId);
    expect(second.id).toBe(clientId);
    expect(third.id).toBe(clientId);
    const rows = await getDb()
      .select({ id: posts.id })
      .from(posts)
      .where(eq(posts.authorId, ana.id));
    expect(rows).toEqual([{ id: clientId }]);
  });

  it("refuses a key another person's post holds, and a key that is not a uuid", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const clientId = randomUUID();
    await createPost({ viewerId: ana.id, input: postInput(), clientId });
    await expect(
      createPost({ viewerId: ben.id, input: postInput({ title: "Mine" }), clientId }),
    ).rejects.toMatchObject({ code: "conflict" });
    await expect(
      createPost({ viewerId: ben.id, input: postInput(), clientId: "1; drop table posts" }),
    ).rejects.toMatchObject({ code: "invalid" });
  });

  it("adds a comment or a reply once, however often or concurrently it is sent", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const postId = await createTestPost(ana.id);
    const commentKey = randomUUID();
    const comment = () =>
      addComment({ viewerId: ben.id, postId, content: "What a song", clientId: commentKey });
    await Promise.all([comment(), comment()]);
    expect((await comment()).id).toBe(commentKey);
    const replyKey = randomUUID();
    const reply = () =>
      addComment({
        viewerId: ana.id,
        postId,
        content: "Right?",
        replyToId: commentKey,
        clientId: replyKey,
      });
    await reply();
    await reply();
    const rows = await getDb()
      .select({ id: comments.commentId, replyToId: comments.replyToId })
      .from(comments)
      .where(eq(comments.postId, postId));
    expect(rows).toHaveLength(2);
    expect(rows).toContainEqual({ id: replyKey, replyToId: commentKey });
  });

  it("refuses a comment key that belongs to somebody else's comment", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const postId = await createTestPost(ana.id);
    const key = randomUUID();
    await addComment({ viewerId: ben.id, postId, content: "first", clientId: key });
    await expect(
      addComment({ viewerId: ana.id, postId, content: "hijack", clientId: key }),
    ).rejects.toMatchObject({ code: "conflict" });
    await expect(
      addComment({ viewerId: ana.id, postId, content: "bad", clientId: "not-a-key" }),
    ).rejects.toMatchObject({ code: "invalid" });
  });
});
