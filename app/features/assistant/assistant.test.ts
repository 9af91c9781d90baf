import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { assistantConversations, assistantMessages, posts, user } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import { followUser } from "~/features/follows/index.server";
import { exportPersonData } from "~/features/settings/index.server";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { answerWithBuiltin } from "./builtin.server";
import { ASSISTANT_RATE_LIMIT, MESSAGE_TOO_LONG } from "./constants";
import {
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
  runTurn,
  startTurn,
} from "./conversations.server";
import { type AssistantEngine, assistantTools, createBuiltinEngine } from "./engines.server";
import {
  draftPost,
  findArtistFans,
  findPosts,
  getFriendsListening,
  getRecentActivity,
  getTopArtists,
  recommendMusic,
  summariseYear,
} from "./tools.server";

withTestDatabase();

/*
 * A small community around "me":
 * - friend (followed): Nina Simone (everyone), Khruangbin (followers only), a #jazz post;
 * - similar (not followed, also posts Radiohead): Portishead (everyone), a followers-only
 *   "Secret Artist" and a followers-only #jazz post, neither of which I may see;
 * - blocker (blocked me) and muted (I blocked them): Radiohead, "Blocked Band", "Muted Band";
 * - loner: an only-me "Hidden Gem".
 */
let me: TestUser;
let friend: TestUser;
let similar: TestUser;
let blocker: TestUser;
let muted: TestUser;
let loner: TestUser;
const NOW = new Date();
const LAST_YEAR = NOW.getUTCFullYear() - 1;
/** Names that must never reach any answer of mine. */
const HIDDEN = ["Secret Artist", "Blocked Band", "Muted Band", "Hidden Gem", "Forbidden Song"];
let ids: Record<string, string> = {};

async function setCreatedAt(postId: string, date: Date) {
  await getDb().update(posts).set({ createdAt: date }).where(eq(posts.id, postId));
}

beforeAll(async () => {
  me = await createTestUser({ username: "me_listener", displayName: "Me Listener" });
  friend = await createTestUser({ username: "friend_fi", displayName: "Fi Friend" });
  similar = await createTestUser({ username: "similar_sam", displayName: "Sam Similar" });
  blocker = await createTestUser({ username: "blocker_bo", displayName: "Bo Blocker" });
  muted = await createTestUser({ username: "muted_mo", displayName: "Mo Muted" });
  loner = await createTestUser({ username: "loner_lu", displayName: "Lu Loner" });
  await followUser({ viewerId: me.id, targetId: friend.id });
  await blockUser({ viewerId: blocker.id, targetId: me.id });
  await blockUser({ viewerId: me.id, targetId: muted.id });

  ids = {
    mine1: await createTestPost(me.id, { title: "Reckoner", artist: "Radiohead" }),
    mine2: await createTestPost(me.id, { title: "Nude", artist: "Radiohead" }),
    mine3: await createTestPost(me.id, { title: "Heroes", artist: "David Bowie", mood: "hyped" }),
    old: await createTestPost(me.id, { title: "Joga", artist: "Björk", mood: "dreamy" }),
    nina: await createTestPost(friend.id, { title: "Feeling Good", artist: "Nina Simone" }),
    khru: await createTestPost(friend.id, {
      title: "Maria También",
      artist: "Khruangbin",
      audience: "followers",
    }),
    jazz: await createTestPost(friend.id, {
      title: "So What",
      artist: "Miles Davis",
      note: "Sunday morning #jazz",
    }),
    simRadiohead: await createTestPost(similar.id, { title: "Airbag", artist: "Radiohead" }),
    portishead: await createTestPost(similar.id, { title: "Roads", artist: "Portishead" }),
    secret: await createTestPost(similar.id, {
      title: "Forbidden Song",
      artist: "Secret Artist",
      note: "late #jazz",
      audience: "followers",
    }),
    blockerPost: await createTestPost(blocker.id, { title: "Creep", artist: "Radiohead" }),
    blockerBand: await createTestPost(blocker.id, { title: "Loud", artist: "Blocked Band" }),
    mutedPost: await createTestPost(muted.id, { title: "Karma Police", artist: "Radiohead" }),
    mutedBand: await createTestPost(muted.id, { title: "Quiet", artist: "Muted Band" }),
    hidden: await createTestPost(loner.id, {
      title: "Hidden Gem",
      artist: "Hidden Gem",
      kind: "artist",
      audience: "only_me",
    }),
  };
  await setCreatedAt(ids.old as string, new Date(Date.UTC(LAST_YEAR, 2, 14)));
});

const ask = (message: string) => answerWithBuiltin({ viewerId: me.id, message, now: NOW });

function expectNothingHidden(text: string) {
  for (const name of HIDDEN) expect(text).not.toContain(name);
  expect(text).not.toContain(blocker.username);
  expect(text).not.toContain(muted.username);
  expect(text).not.toContain(loner.username);
}

describe("the built-in engine, intent by intent", () => {
  it("what have I been into lately: the last 30 days of my posts, with links", async () => {
    const { text } = await ask("What have I been into lately?");
    expect(text).toContain("you shared 3 posts");
    expect(text).toContain("Radiohead");
    expect(text).toContain("David Bowie");
    expect(text).toContain(`(/post/${ids.mine3})`);
    expect(text).not.toContain("Björk");
  });

  it("my top artists this month and this year, even misspelt", async () => {
    const month = await ask("my top artsts this moth");
    expect(month.text).toMatch(
      /Your top artist this month is \[Radiohead\]\(\/search\?q=Radiohead\), posted twice/,
    );
    expect(month.text).toContain("David Bowie");
    expect(month.text).not.toContain("Björk");
    const ever = await getTopArtists({ viewerId: me.id, period: "all", now: NOW });
    expect(ever.artists.map((a) => a.artist)).toEqual(["Radiohead", "David Bowie", "Björk"]);
  });

  it("what my friends are listening to: followed people only, followers-only posts included", async () => {
    const { text } = await ask("what are my frends listening to?");
    expect(text).toContain("Feeling Good");
    expect(text).toContain("Maria También");
    expect(text).toContain(`(/u/${friend.username})`);
    expect(text).not.toContain("Portishead");
    expectNothingHidden(text);
  });

  it("who else here likes an artist: people with visible posts, nobody in a block", async () => {
    const { text } = await ask("Who else here likes radiohed?");
    expect(text).toContain(`[Sam Similar](/u/${similar.username})`);
    expect(text).toContain(`(/post/${ids.simRadiohead})`);
    expect(text).not.toContain(me.username);
    expectNothingHidden(text);
    const secret = await ask("who likes Secret Artist?");
    expect(secret.text).toContain("I found nobody else here who posted about Secret Artist");
    expect(secret.text).not.toContain(similar.username);
  });

  it("recommends new artists from friends and similar taste, leaving out what I posted", async () => {
    const { text } = await ask("recommend me something new");
    expect(text).toContain("Portishead");
    expect(text).toContain("Nina Simone");
    expect(text).toContain("Khruangbin");
    expect(text).toContain(`(/post/${ids.portishead})`);
    expect(text).not.toMatch(/\[Radiohead\]/);
    expect(text).not.toContain("David Bowie");
    expectNothingHidden(text);
  });

  it("summarises this year and a year named in the message", async () => {
    const thisYear = await ask("summarise my year");
    expect(thisYear.text).toContain("This year you shared 3 posts");
    expect(thisYear.text).toContain("hyped");
    const last = await ask(`Summarize ${LAST_YEAR}`);
    expect(last.text).toContain(`In ${LAST_YEAR} you shared 1 post`);
    expect(last.text).toContain("Björk");
    expect(last.text).toContain(`(/post/${ids.old})`);
  });

  it("finds posts about a tag or words, only those I may see", async () => {
    const tag = await ask("find posts about #jazz");
    expect(tag.text).toContain(`[\\#jazz](/search?q=%23jazz&type=tags)`);
    expect(tag.text).toContain(`(/post/${ids.jazz})`);
    expect(tag.text).not.toContain(ids.secret);
    expectNothingHidden(tag.text);
    const words = await ask("search posts about Feeling Good");
    expect(words.text).toContain(`(/post/${ids.nina})`);
  });

  it("drafts a post about a track, with the artist from a post I can see", async () => {
    const fromPost = await ask("draft a post about Feeling Good");
    expect(fromPost.draft).toEqual({
      kind: "track",
      title: "Feeling Good",
      artist: "Nina Simone",
      note: "Can't stop playing “Feeling Good” by Nina Simone right now.",
    });
    const named = await ask("Draft a post about Life on Mars by David Bowie");
    expect(named.draft).toMatchObject({ title: "Life on Mars", artist: "David Bowie" });
    const hidden = await ask("draft a post about Forbidden Song");
    expect(hidden.draft).toMatchObject({ title: "Forbidden Song", artist: "" });
    expect(hidden.text).toContain("Add the artist");
  });

  it("says what it can do when it does not understand", async () => {
    const { text, draft } = await ask("the weather in Paris tomorrow");
    expect(text).toContain("Sorry, I did not understand that.");
    expect(text).toContain("My top artists this month");
    expect(draft).toBeNull();
  });

  it("escapes markdown someone typed into a title", async () => {
    const odd = await createTestUser({ username: "odd_one" });
    await followUser({ viewerId: me.id, targetId: odd.id });
    await createTestPost(odd.id, { title: "[click](javascript:alert(1))", artist: "X" });
    const { text } = await ask("what are my friends listening to");
    expect(text).toContain("\\[click\\]\\(javascript:alert\\(1\\)\\)");
  });
});

describe("visibility through every tool", () => {
  it("never returns a post I may not see, whatever the tool and argument", async () => {
    const viewerId = me.id;
    const outputs = await Promise.all([
      getRecentActivity({ viewerId }),
      getTopArtists({ viewerId, period: "all" }),
      getFriendsListening({ viewerId, limit: 50 }),
      ...["Secret Artist", "Blocked Band", "Muted Band", "Hidden Gem", "Radiohead"].map((artist) =>
        findArtistFans({ viewerId, artist }),
      ),
      recommendMusic({ viewerId, limit: 50 }),
      summariseYear({ viewerId }),
      ...["#jazz", "Secret", "Forbidden Song", "Loud", "Quiet", "Hidden Gem", "Radiohead"].map(
        (query) => findPosts({ viewerId, query, limit: 50 }),
      ),
      ...["Forbidden Song", "Loud", "Quiet", "Hidden Gem"].map((track) =>
        draftPost({ viewerId, track }),
      ),
    ]);
    const json = JSON.stringify(outputs);
    for (const hiddenId of [
      ids.secret,
      ids.blockerPost,
      ids.blockerBand,
      ids.mutedPost,
      ids.mutedBand,
      ids.hidden,
    ]) {
      expect(json).not.toContain(hiddenId);
    }
    // Names are checked where they were not the question itself (an answer may repeat that).
    const unprompted = JSON.stringify([outputs[0], outputs[1], outputs[2], outputs[8], outputs[9]]);
    for (const name of HIDDEN) expect(unprompted).not.toContain(name);
    expect(json).not.toContain(blocker.username);
    expect(json).not.toContain(muted.username);
    expect(json).not.toContain(loner.username);
  });

  it("the blocked person does not see me either, and a follower of similar sees the secret", async () => {
    const fromBlocker = await findArtistFans({ viewerId: blocker.id, artist: "Radiohead" });
    expect(fromBlocker.people.map((p) => p.username)).not.toContain(me.username);
    expect(fromBlocker.people.map((p) => p.username)).toContain(similar.username);
    const follower = await createTestUser();
    await followUser({ viewerId: follower.id, targetId: similar.id });
    const fans = await findArtistFans({ viewerId: follower.id, artist: "Secret Artist" });
    expect(fans.people.map((p) => p.username)).toEqual([similar.username]);
  });

  it("the language model's tools are the same functions, bound to the person asking", async () => {
    const tools = assistantTools(me.id);
    const execute = tools.artist_fans.execute;
    if (!execute) throw new Error("artist_fans has no execute");
    const result = await execute({ artist: "Secret Artist" }, { toolCallId: "t1", messages: [] });
    expect(JSON.stringify(result)).not.toContain(similar.username);
  });
});

/** An engine that writes the given pieces and then waits for Stop. */
function pausingEngine(pieces: string[]): AssistantEngine {
  return {
    name: "builtin",
    async *reply(input) {
      yield { type: "engine", engine: "builtin" };
      for (const text of pieces) yield { type: "text", text };
      await new Promise<void>((resolve) => {
        if (input.signal.aborted) resolve();
        input.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    },
  };
}

describe("conversations", () => {
  it("stores both sides of a turn, titles the conversation, and continues it", async () => {
    const person = await createTestUser();
    const engine = createBuiltinEngine({ chunkDelayMs: 0 });
    const first = await startTurn({ userId: person.id, message: "  What can you do?  " });
    expect(first.isNewConversation).toBe(true);
    const seen: string[] = [];
    const done = await runTurn({
      userId: person.id,
      turn: first,
      engine,
      signal: new AbortController().signal,
      onEvent: (e) => {
        if (e.type === "text") seen.push(e.text);
      },
    });
    expect(seen.length).toBeGreaterThan(3);
    expect(done).toMatchObject({ status: "complete", engine: "builtin" });
    const second = await startTurn({
      userId: person.id,
      conversationId: first.conversationId,
      message: "summarise my year",
    });
    expect(second.history.map((m) => m.role)).toEqual(["user", "assistant"]);
    await runTurn({
      userId: person.id,
      turn: second,
      engine,
      signal: new AbortController().signal,
    });
    const stored = await getConversation({
      userId: person.id,
      conversationId: first.conversationId,
    });
    expect(stored.title).toBe("What can you do?");
    expect(stored.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(stored.messages[1]?.content).toBe(seen.join(""));
    expect(stored.messages[3]?.content).toContain(
      "I do not know: you neither played nor posted anything",
    );
  });

  it("keeps what was written when the person stops, marked as stopped", async () => {
    const person = await createTestUser();
    const turn = await startTurn({ userId: person.id, message: "tell me a long story" });
    const stop = new AbortController();
    const finished = runTurn({
      userId: person.id,
      turn,
      engine: pausingEngine(["Once ", "upon "]),
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === "text" && e.text === "upon ") stop.abort();
      },
    });
    await expect(finished).resolves.toMatchObject({ status: "stopped", content: "Once upon " });
    const stored = await getConversation({
      userId: person.id,
      conversationId: turn.conversationId,
    });
    expect(stored.messages[1]).toMatchObject({ content: "Once upon ", status: "stopped" });
  });

  it("refuses a message that is too long or empty, with a clear message", async () => {
    const person = await createTestUser();
    await expect(startTurn({ userId: person.id, message: "x".repeat(1001) })).rejects.toThrow(
      MESSAGE_TOO_LONG,
    );
    await expect(startTurn({ userId: person.id, message: "   " })).rejects.toThrow(
      "Write a message first.",
    );
    expect(await listConversations({ userId: person.id })).toEqual([]);
  });

  it("limits how many messages one person sends per minute", async () => {
    const person = await createTestUser();
    const other = await createTestUser();
    for (let i = 0; i < ASSISTANT_RATE_LIMIT.limit; i++) {
      await startTurn({ userId: person.id, message: `hello ${i}` });
    }
    await expect(startTurn({ userId: person.id, message: "one more" })).rejects.toMatchObject({
      code: "rate_limited",
      message: expect.stringMatching(
        /faster than the assistant can keep up\. Try again in \d+ seconds\./,
      ),
    });
    await expect(startTurn({ userId: other.id, message: "hello" })).resolves.toBeTruthy();
  });

  it("belong to their person: nobody else reads, continues, renames or deletes them", async () => {
    const owner = await createTestUser();
    const stranger = await createTestUser();
    const turn = await startTurn({ userId: owner.id, message: "my top artists" });
    const conversationId = turn.conversationId;
    await expect(getConversation({ userId: stranger.id, conversationId })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      startTurn({ userId: stranger.id, conversationId, message: "hi" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      renameConversation({ userId: stranger.id, conversationId, title: "Mine now" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(deleteConversation({ userId: stranger.id, conversationId })).rejects.toMatchObject(
      {
        code: "not_found",
      },
    );
    await renameConversation({ userId: owner.id, conversationId, title: "  Top   artists " });
    expect((await listConversations({ userId: owner.id }))[0]?.title).toBe("Top artists");
    await deleteConversation({ userId: owner.id, conversationId });
    expect(await listConversations({ userId: owner.id })).toEqual([]);
  });

  it("are in the person's data export and go with their account", async () => {
    const person = await createTestUser();
    const turn = await startTurn({ userId: person.id, message: "what can you do" });
    await runTurn({
      userId: person.id,
      turn,
      engine: createBuiltinEngine({ chunkDelayMs: 0 }),
      signal: new AbortController().signal,
    });
    const exported = await exportPersonData({ userId: person.id });
    expect(exported.assistantConversations).toHaveLength(1);
    expect(exported.assistantConversations[0]?.messages.map((m) => m.content)[0]).toBe(
      "what can you do",
    );
    await getDb().delete(user).where(eq(user.id, person.id));
    const left = await getDb()
      .select({ id: assistantConversations.id })
      .from(assistantConversations)
      .where(eq(assistantConversations.id, turn.conversationId));
    expect(left).toEqual([]);
    const messages = await getDb()
      .select({ id: assistantMessages.id })
      .from(assistantMessages)
      .where(eq(assistantMessages.conversationId, turn.conversationId));
    expect(messages).toEqual([]);
  });
});
