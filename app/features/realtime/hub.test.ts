import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishLive } from "~/core/live-bus.server";
import { getDb, setDatabase } from "~/db/client.server";
import {
  blocks,
  follows,
  type JourneyAudience,
  journeySettings,
  nowPlaying,
  session,
  user,
} from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { sessionsEnded } from "~/features/auth/index.server";
import { blockUser } from "~/features/blocks/index.server";
import { followUser } from "~/features/follows/index.server";
import { likePost } from "~/features/likes/index.server";
import { markAllRead } from "~/features/notifications/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { waitUntil } from "../../../tests/support/wait-for";
import { type LiveHub, type LiveStream, startLiveHub, stopLiveHub } from "./hub.server";
import { parseEventStream } from "./live-client";

let testDb: TestDatabase;
let hub: LiveHub;

beforeAll(async () => {
  testDb = await createTestDatabase();
  setDatabase(testDb);
  hub = await startLiveHub(testDb);
});

afterAll(async () => {
  await stopLiveHub();
  setDatabase(undefined);
  await testDb.destroy();
});

/** A stream as the SSE route makes one, keeping what it was sent (parsed as a browser would). */
function openStream(userId: string, lastSeq: number, sessionId = `no-session-${userId}`) {
  let raw = "";
  let ended = false;
  const stream: LiveStream = {
    userId,
    sessionId,
    lastSeq,
    write(frame) {
      raw += frame;
    },
    end() {
      ended = true;
      hub.remove(stream);
    },
  };
  hub.add(stream);
  return {
    stream,
    events: () => parseEventStream(raw).events.map((e) => ({ ...e, data: JSON.parse(e.data) })),
    isEnded: () => ended,
  };
}

/** Waits for what the stream should show (a generous deadline: the machine may be busy). */
const until = (check: () => boolean, what: string) => waitUntil(what, check);

describe("live hub on PGlite (NOTIFY / LISTEN in process)", () => {
  it("pushes a committed notification with its seq as the event id, and the unread count", async () => {
    const ana = await createTestUser({ displayName: "Ana" });
    const ben = await createTestUser({ displayName: "Ben" });
    const post = await createTestPost(ana.id, { title: "Teardrop" });
    const client = openStream(ana.id, 0);
    await until(() => client.events().some((e) => e.event === "unread"), "the first unread count");
    expect(client.events()[0]?.event).toBe("ready");

    await likePost({ viewerId: ben.id, postId: post });
    await until(() => client.events().some((e) => e.event === "notification"), "the like");
    const like = client.events().find((e) => e.event === "notification");
    expect(like?.data.kind).toBe("like");
    expect(like?.data.actors[0].displayName).toBe("Ben");
    expect(like?.id).toBe(String(like?.data.seq));
    await until(() => client.events().at(-1)?.data.count === 1, "unread 1");

    await markAllRead(ana.id);
    await until(() => client.events().at(-1)?.data.count === 0, "unread 0 after reading");
    client.stream.end();
  });

  it("sends nothing for a change that rolled back", async () => {
    const ana = await createTestUser();
    const client = openStream(ana.id, 0);
    await until(() => client.events().some((e) => e.event === "unread"), "ready");
    const before = client.events().length;
    await getDb()
      .transaction(async (tx) => {
        await publishLive(tx, { t: "n", u: ana.id });
        throw new Error("roll back");
      })
      .catch(() => {});
    // A committed message afterwards proves the channel works and that the first never came.
    await getDb().transaction((tx) => publishLive(tx, { t: "n", u: ana.id }));
    await until(() => client.events().length === before + 1, "the committed message");
    expect(
      client
        .events()
        .slice(before)
        .map((e) => e.event),
    ).toEqual(["unread"]);
    client.stream.end();
  });

  it("catches a reconnecting stream up from its last event id, without repeats", async () => {
    const ana = await createTestUser();
    const fans = await Promise.all([1, 2, 3].map(() => createTestUser()));
    const posts = [
      await createTestPost(ana.id),
      await createTestPost(ana.id),
      await createTestPost(ana.id),
    ];
    const first = openStream(ana.id, 0);
    await likePost({ viewerId: fans[0]?.id as string, postId: posts[0] as string });
    await until(() => first.events().some((e) => e.event === "notification"), "first like");
    const lastId = Number(first.events().find((e) => e.event === "notification")?.id);
    first.stream.end();

    // While away: two more.
    await likePost({ viewerId: fans[1]?.id as string, postId: posts[1] as string });
    await likePost({ viewerId: fans[2]?.id as string, postId: posts[2] as string });

    const again = openStream(ana.id, lastId);
    await until(() => again.events().some((e) => e.event === "unread"), "the catch-up");
    const caught = again.events().filter((e) => e.event === "notification");
    expect(caught.map((e) => e.data.post.id)).toEqual([posts[1], posts[2]]);
    expect(caught.every((e) => Number(e.id) > lastId)).toBe(true);
    again.stream.end();
  });

  it("tells followers of a new post for their Following tab, everyone for a public one, not the author", async () => {
    const ana = await createTestUser();
    const fan = await createTestUser();
    const stranger = await createTestUser();
    await followUser({ viewerId: fan.id, targetId: ana.id });
    const author = openStream(ana.id, 0);
    const follower = openStream(fan.id, 0);
    const other = openStream(stranger.id, 0);
    const publicPost = await createTestPost(ana.id, { audience: "everyone" });
    const followersPost = await createTestPost(ana.id, { audience: "followers" });
    const posts = (c: ReturnType<typeof openStream>) =>
      c
        .events()
        .filter((e) => e.event === "post")
        .map((e) => e.data);
    await until(() => posts(follower).length === 2, "both posts for the follower");
    await until(() => posts(other).length === 1, "the public post for a stranger");
    // Each post is announced by its own query (announcePost), so the two may arrive in either order.
    const byId = (a: { postId: string }, b: { postId: string }) => a.postId.localeCompare(b.postId);
    expect(posts(follower).sort(byId)).toEqual(
      [
        { postId: publicPost, following: true, everyone: true },
        { postId: followersPost, following: true, everyone: false },
      ].sort(byId),
    );
    expect(posts(other)).toEqual([{ postId: publicPost, following: false, everyone: true }]);
    expect(posts(author)).toEqual([]);
    for (const c of [author, follower, other]) c.stream.end();
  });

  it("tells the author and those who see a post that its link preview is ready, no one else", async () => {
    const ana = await createTestUser();
    const fan = await createTestUser();
    const stranger = await createTestUser();
    await followUser({ viewerId: fan.id, targetId: ana.id });
    const postId = await createTestPost(ana.id, { audience: "followers" });
    const author = openStream(ana.id, 0);
    const follower = openStream(fan.id, 0);
    const other = openStream(stranger.id, 0);
    await until(
      () => [author, follower, other].every((c) => c.events().some((e) => e.event === "unread")),
      "all three connected",
    );
    await publishLive(getDb(), { t: "u", p: postId, a: ana.id });
    const previews = (c: ReturnType<typeof openStream>) =>
      c
        .events()
        .filter((e) => e.event === "unfurl")
        .map((e) => e.data);
    await until(() => previews(author).length === 1 && previews(follower).length === 1, "both");
    expect(previews(author)).toEqual([{ postId, isOwn: true }]);
    expect(previews(follower)).toEqual([{ postId, isOwn: false }]);
    expect(previews(other)).toEqual([]);
    for (const c of [author, follower, other]) c.stream.end();
  });

  it("tells a person's listens to them and to the readers their journey lets in, live", async () => {
    const owner = await createTestUser();
    const follower = await createTestUser();
    const stranger = await createTestUser();
    const blocked = await createTestUser();
    const db = getDb();
    await db.insert(follows).values([
      { followerId: follower.id, followeeId: owner.id },
      { followerId: blocked.id, followeeId: owner.id },
    ]);
    await db.insert(blocks).values({ blockerId: owner.id, blockedId: blocked.id });
    const audience = (userId: string, value: JourneyAudience) =>
      db
        .insert(journeySettings)
        .values({ userId, audience: value })
        .onConflictDoUpdate({ target: journeySettings.userId, set: { audience: value } });
    const streams = {
      owner: openStream(owner.id, 0),
      follower: openStream(follower.id, 0),
      stranger: openStream(stranger.id, 0),
      blocked: openStream(blocked.id, 0),
    };
    await until(
      () => Object.values(streams).every((c) => c.events().some((e) => e.event === "unread")),
      "all connected",
    );
    const heard = (c: ReturnType<typeof openStream>, of = owner.id) =>
      c.events().filter((e) => e.event === "listens" && e.data.userId === of).length;
    // What the ListenBrainz API publishes (journey/listenbrainz/live.server.ts), and a barrier:
    // the stranger's journey is open to everyone, and each reader's query runs after the one
    // before it (one connection, in order), so once the follower hears the stranger's listens
    // the owner's previous message has reached everyone it will.
    await audience(stranger.id, "everyone");
    let barriers = 0;
    const barrier = async (what: string) => {
      barriers++;
      await publishLive(db, { t: "l", u: stranger.id });
      await until(() => heard(streams.follower, stranger.id) === barriers, what);
    };

    // The default audience (followers): the owner and the follower; the stranger and the
    // blocked follower are left out.
    await publishLive(db, { t: "l", u: owner.id });
    await until(() => heard(streams.owner) === 1 && heard(streams.follower) === 1, "told");
    await barrier("after the followers-only listens");
    expect(heard(streams.stranger)).toBe(0);
    expect(heard(streams.blocked)).toBe(0);

    // Only the owner may know (paused "now playing", hidden artists): nobody else.
    await publishLive(db, { t: "l", u: owner.id, o: 1 });
    await until(() => heard(streams.owner) === 2, "owner told of their own");
    await barrier("after the owner's own");
    expect(heard(streams.follower)).toBe(1);

    // Open to everyone: the stranger too, never the blocked person.
    await audience(owner.id, "everyone");
    await publishLive(db, { t: "l", u: owner.id });
    await until(() => heard(streams.stranger) === 1 && heard(streams.follower) === 2, "everyone");
    await barrier("after everyone's");
    expect(heard(streams.blocked)).toBe(0);
    expect(heard(streams.owner)).toBe(3);

    // Only me: the owner alone.
    await audience(owner.id, "only_me");
    await publishLive(db, { t: "l", u: owner.id });
    await until(() => heard(streams.owner) === 4, "owner told");
    await barrier("after only me");
    expect(heard(streams.follower)).toBe(2);
    expect(heard(streams.stranger)).toBe(1);
    expect(heard(streams.blocked)).toBe(0);
    for (const c of Object.values(streams)) c.stream.end();
  });

  async function createSession(userId: string, expiresInMs = 3_600_000): Promise<string> {
    const id = `s-${randomUUID()}`;
    await getDb()
      .insert(session)
      .values({
        id,
        token: randomUUID(),
        userId,
        expiresAt: new Date(Date.now() + expiresInMs),
        updatedAt: new Date(),
      });
    return id;
  }

  it("ends exactly the streams whose session ended, and no one else's", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const [laptop, phone, benSession] = await Promise.all([
      createSession(ana.id),
      createSession(ana.id),
      createSession(ben.id),
    ]);
    const onLaptop = openStream(ana.id, 0, laptop);
    const onPhone = openStream(ana.id, 0, phone);
    const b = openStream(ben.id, 0, benSession);
    // Ana signs out on her laptop only.
    await getDb().delete(session).where(eq(session.id, laptop));
    await sessionsEnded(ana.id);
    await until(() => onLaptop.isEnded(), "the laptop's stream to end");
    expect(onPhone.isEnded()).toBe(false);
    expect(b.isEnded()).toBe(false);
    // A ban ends the rest.
    await getDb().update(user).set({ banned: true }).where(eq(user.id, ana.id));
    await sessionsEnded(ana.id);
    await until(() => onPhone.isEnded(), "the phone's stream to end");
    expect(b.isEnded()).toBe(false);
    b.stream.end();
  });

  it("notices an ending nobody announced (an expired session) on its own re-check", async () => {
    const ana = await createTestUser();
    const expired = await createSession(ana.id, -1_000);
    const alive = await createSession(ana.id);
    const old = openStream(ana.id, 0, expired);
    const fresh = openStream(ana.id, 0, alive);
    await hub.closeEndedSessions(null);
    expect(old.isEnded()).toBe(true);
    expect(fresh.isEnded()).toBe(false);
    fresh.stream.end();
  });

  it("moves a post's counts for its author and followers, not for others online", async () => {
    const ana = await createTestUser();
    const fan = await createTestUser();
    const stranger = await createTestUser();
    const liker = await createTestUser();
    await followUser({ viewerId: fan.id, targetId: ana.id });
    const post = await createTestPost(ana.id, { title: "Counted" });
    const author = openStream(ana.id, 0);
    const follower = openStream(fan.id, 0);
    const other = openStream(stranger.id, 0);
    for (const c of [author, follower, other]) {
      await until(() => c.events().some((e) => e.event === "unread"), "ready");
    }
    await likePost({ viewerId: liker.id, postId: post });
    const countsOf = (c: typeof author) => c.events().filter((e) => e.event === "counts");
    await until(() => countsOf(follower).length === 1, "the follower's counts");
    await until(() => countsOf(author).length === 1, "the author's counts");
    expect(countsOf(follower)[0]?.data).toEqual({
      postId: post,
      likeCount: 1,
      commentCount: 0,
      liked: false,
    });
    await likePost({ viewerId: fan.id, postId: post });
    await until(() => countsOf(follower).length === 2, "the follower's own like");
    expect(countsOf(follower)[1]?.data).toMatchObject({ likeCount: 2, liked: true });
    // A message to the stranger afterwards proves their stream works and that no counts came.
    await getDb().transaction((tx) => publishLive(tx, { t: "n", u: stranger.id }));
    await until(
      () => other.events().filter((e) => e.event === "unread").length === 2,
      "the stranger's second unread",
    );
    expect(countsOf(other)).toEqual([]);
    for (const c of [author, follower, other]) c.stream.end();
  });

  it("tells followers who may see it that someone's now playing changed", async () => {
    const ben = await createTestUser();
    const fan = await createTestUser();
    const blocked = await createTestUser();
    const stranger = await createTestUser();
    await followUser({ viewerId: fan.id, targetId: ben.id });
    await followUser({ viewerId: blocked.id, targetId: ben.id });
    await blockUser({ viewerId: ben.id, targetId: blocked.id });
    const follower = openStream(fan.id, 0);
    const shut = openStream(blocked.id, 0);
    const other = openStream(stranger.id, 0);
    for (const c of [follower, shut, other]) {
      await until(() => c.events().some((e) => e.event === "unread"), "ready");
    }
    // As a player's playing_now does (recordPlayingNow): the row, then the live message.
    await getDb().transaction(async (tx) => {
      await tx.insert(nowPlaying).values({
        userId: ben.id,
        artistName: "Broadcast",
        trackName: "Black Cat",
        expiresAt: new Date(Date.now() + 200_000),
      });
      await publishLive(tx, { t: "l", u: ben.id });
    });
    await until(
      () => follower.events().some((e) => e.event === "nowPlaying"),
      "the follower's nowPlaying",
    );
    expect(follower.events().find((e) => e.event === "nowPlaying")?.data).toEqual({
      userId: ben.id,
    });
    for (const c of [shut, other]) {
      await getDb().transaction((tx) => publishLive(tx, { t: "n", u: c.stream.userId }));
      await until(
        () => c.events().filter((e) => e.event === "unread").length === 2,
        "a later message",
      );
      expect(c.events().some((e) => e.event === "nowPlaying")).toBe(false);
    }
    for (const c of [follower, shut, other]) c.stream.end();
  });

  it("ends every stream and refuses new ones when draining", async () => {
    const ana = await createTestUser();
    const a = openStream(ana.id, 0);
    expect(hub.size).toBeGreaterThan(0);
    hub.drain();
    expect(a.isEnded()).toBe(true);
    const late = openStream(ana.id, 0);
    expect(late.isEnded()).toBe(true);
    expect(hub.size).toBe(0);
  });
});
