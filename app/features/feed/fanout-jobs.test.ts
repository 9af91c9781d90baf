import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, rowsOf } from "~/db/client.server";
import { homeTimeline, posts } from "~/db/schema";
import { deletePost, listFeed, updatePost } from "~/features/posts/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost, postInput } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { drainFanOut, FANOUT_BATCH, fanOutJob } from "./fanout-jobs.server";
import { fanOutPost, INLINE_FANOUT_LIMIT } from "./timeline.server";

withTestDatabase();

/** More followers than one request writes for, and more than two batches. */
const FOLLOWERS = Math.max(INLINE_FANOUT_LIMIT, FANOUT_BATCH) * 2 + 37;

/** An author with FOLLOWERS followers, inserted in bulk (no accounts made one by one). */
async function popularAuthor(): Promise<{ authorId: string; followerIds: string[] }> {
  const author = await createTestUser();
  const prefix = `fan-${author.id}`;
  await getDb().execute(sql`
    insert into "user" (id, name, email, email_verified, username, created_at, updated_at)
    select ${prefix} || '-' || i, 'Fan ' || i, ${prefix} || '-' || i || '@example.test', true,
      replace(${prefix} || '_' || i, '-', '_'), now(), now()
    from generate_series(1, ${FOLLOWERS}) i`);
  await getDb().execute(sql`
    insert into profiles (user_id, email, display_name, username)
    select id, email, name, username from "user" where id like ${`${prefix}-%`}`);
  await getDb().execute(sql`
    insert into follows (follower_id, followee_id)
    select id, ${author.id} from "user" where id like ${`${prefix}-%`}`);
  const followerIds = Array.from({ length: FOLLOWERS }, (_, i) => `${prefix}-${i + 1}`);
  return { authorId: author.id, followerIds };
}

async function timelineCount(postId: string): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await getDb().execute(
      sql`select count(*)::int as n from ${homeTimeline} where ${homeTimeline.postId} = ${postId}`,
    ),
  );
  return row?.n ?? 0;
}

/** The post's fan-out job while it waits or runs, or null. */
async function jobOf(postId: string) {
  const [job] = rowsOf<{ progress: Record<string, unknown> | null }>(
    await getDb().execute(sql`select progress from jobs
      where kind = ${fanOutJob.kind} and key = ${postId} and status in ('queued', 'running')`),
  );
  return job ?? null;
}

describe("fan-out of a popular author's post", () => {
  it("writes only the author's row in the request and queues the followers' for the worker", async () => {
    const { authorId } = await popularAuthor();
    const [post] = await getDb()
      .insert(posts)
      .values({ authorId, kind: "track", title: "Big news", note: "", audience: "everyone" })
      .returning({ id: posts.id, createdAt: posts.createdAt });
    if (!post) throw new Error("no post");
    const outcome = await getDb().transaction(async (tx) => {
      const result = await fanOutPost(tx, { ...post, authorId, audience: "everyone" });
      const [inside] = rowsOf<{ n: number }>(
        await tx.execute(
          sql`select count(*)::int as n from ${homeTimeline} where ${homeTimeline.postId} = ${post.id}`,
        ),
      );
      return { result, rowsInRequest: inside?.n };
    });
    expect(outcome).toEqual({ result: "queued", rowsInRequest: 1 });
    expect(await jobOf(post.id)).toEqual({ progress: null });

    await drainFanOut();
    expect(await timelineCount(post.id)).toBe(FOLLOWERS + 1);
    expect(await jobOf(post.id)).toBeNull();
  });

  it("reaches every follower's feed through createPost, and an author with few followers inline", async () => {
    const { authorId, followerIds } = await popularAuthor();
    const id = await createTestPost(authorId, { title: "For all of you" });
    await drainFanOut();
    for (const followerId of [followerIds[0], followerIds[FANOUT_BATCH], followerIds.at(-1)]) {
      const feed = await listFeed({ viewerId: followerId ?? "", tab: "following" });
      expect(feed.posts.map((p) => p.id)).toContain(id);
    }

    const quiet = await createTestUser();
    const fan = await createTestUser();
    await getDb().execute(
      sql`insert into follows (follower_id, followee_id) values (${fan.id}, ${quiet.id})`,
    );
    const small = await createTestPost(quiet.id);
    expect(await jobOf(small)).toBeNull();
    expect(await timelineCount(small)).toBe(2);
  });

  it("resumes a job left half done (a restart) without writing anybody twice", async () => {
    const { authorId, followerIds } = await popularAuthor();
    const [post] = await getDb()
      .insert(posts)
      .values({ authorId, kind: "track", title: "Half way", note: "", audience: "followers" })
      .returning({ id: posts.id, createdAt: posts.createdAt });
    if (!post) throw new Error("no post");
    const sorted = [...followerIds].sort();
    const doneUpTo = sorted[700] as string;
    // What a process that stopped after some batches left behind.
    await getDb().execute(sql`
      insert into ${homeTimeline} (user_id, created_at, post_id, author_id)
      select follower_id, ${post.createdAt.toISOString()}::timestamptz, ${post.id}::uuid, ${authorId}
      from follows where followee_id = ${authorId} and follower_id <= ${doneUpTo}`);
    await getDb().execute(sql`insert into jobs (kind, payload, key, progress)
      values (${fanOutJob.kind}, ${JSON.stringify({ postId: post.id })}::jsonb, ${post.id},
        ${JSON.stringify({ afterFollower: doneUpTo })}::jsonb)`);

    await drainFanOut();
    expect(await timelineCount(post.id)).toBe(FOLLOWERS);
    expect(await jobOf(post.id)).toBeNull();
  });

  it("stops when the post goes to 'only me' or is deleted before the worker got to it", async () => {
    const { authorId } = await popularAuthor();
    const hidden = await createTestPost(authorId, { title: "Second thoughts" });
    await updatePost({
      viewerId: authorId,
      postId: hidden,
      input: postInput({ title: "Second thoughts", audience: "only_me" }),
    });
    const gone = await createTestPost(authorId, { title: "Oops" });
    await deletePost({ viewerId: authorId, postId: gone });

    await drainFanOut();
    expect(await jobOf(hidden)).toBeNull();
    expect(await jobOf(gone)).toBeNull();
    expect(await timelineCount(hidden)).toBe(1);
    expect(await timelineCount(gone)).toBe(0);

    // Back to followers: the worker reaches everyone again.
    await updatePost({
      viewerId: authorId,
      postId: hidden,
      input: postInput({ title: "Second thoughts", audience: "followers" }),
    });
    await drainFanOut();
    expect(await timelineCount(hidden)).toBe(FOLLOWERS + 1);
  });
});
