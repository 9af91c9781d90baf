import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { followUser } from "~/features/follows/index.server";
import { loadJourney, recordListens } from "~/features/journey/index.server";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import {
  type ChatRequestBody,
  type FakeLlmServer,
  type FakeReply,
  startFakeLlmServer,
} from "../../../tests/support/fake-llm-server";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { getConversation, runTurn, startTurn } from "./conversations.server";
import {
  createBuiltinEngine,
  createLlmEngine,
  type EngineEvent,
  LLM_FAILED_NOTICE,
} from "./engines.server";

withTestDatabase();

let me: TestUser;
let stranger: TestUser;
let secretPostId: string;
let server: FakeLlmServer | null = null;

beforeAll(async () => {
  me = await createTestUser({ username: "llm_me" });
  const friend = await createTestUser({ username: "llm_friend" });
  stranger = await createTestUser({ username: "llm_stranger" });
  await followUser({ viewerId: me.id, targetId: friend.id });
  await createTestPost(me.id, { title: "Reckoner", artist: "Radiohead" });
  await createTestPost(me.id, { title: "Nude", artist: "Radiohead" });
  await createTestPost(friend.id, { title: "So What", artist: "Miles Davis", note: "#jazz" });
  secretPostId = await createTestPost(stranger.id, {
    title: "Forbidden Song",
    artist: "Secret Artist",
    note: "#jazz",
    audience: "followers",
  });
});

afterEach(async () => {
  await server?.stop();
  server = null;
});

async function engineWith(
  script: (body: ChatRequestBody, index: number) => FakeReply,
  timeoutMs = 10_000,
) {
  server = await startFakeLlmServer(script);
  return createLlmEngine({
    baseURL: server.url,
    model: "fake-model",
    apiKey: "test-key",
    timeoutMs,
    fallback: createBuiltinEngine({ chunkDelayMs: 0 }),
  });
}

async function collect(events: AsyncIterable<EngineEvent>) {
  const all: EngineEvent[] = [];
  for await (const event of events) all.push(event);
  const text = all.map((e) => (e.type === "text" ? e.text : "")).join("");
  return { all, text };
}

const toolMessages = (body: ChatRequestBody | undefined) =>
  (body?.messages ?? []).filter((m) => m.role === "tool");

describe("the OpenAI-compatible engine against a local chat API", () => {
  it("calls a data tool, sends its result in a second request, and streams the reply", async () => {
    const engine = await engineWith((_body, index) =>
      index === 0
        ? { kind: "tool", name: "top_artists", args: { period: "month" }, id: "call_top" }
        : { kind: "text", pieces: ["Your top artist ", "this month is ", "Radiohead."] },
    );
    const { all, text } = await collect(
      engine.reply({
        viewerId: me.id,
        message: "my top artists this month",
        history: [],
        signal: new AbortController().signal,
      }),
    );
    expect(text).toBe("Your top artist this month is Radiohead.");
    expect(all.filter((e) => e.type === "text").length).toBe(3);
    expect(all.some((e) => e.type === "notice")).toBe(false);
    const [first, second] = server?.requests ?? [];
    expect(first?.stream).toBe(true);
    expect(first?.model).toBe("fake-model");
    expect(first?.tools?.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(["top_artists", "recommend", "find_posts", "draft_post"]),
    );
    expect(first?.messages.at(-1)).toMatchObject({
      role: "user",
      content: "my top artists this month",
    });
    // The second request carries the call and its result, computed from the database.
    const call = second?.messages.find((m) => m.role === "assistant" && m.tool_calls);
    expect(call?.tool_calls?.[0]).toMatchObject({
      id: "call_top",
      function: { name: "top_artists", arguments: '{"period":"month"}' },
    });
    const [result] = toolMessages(second);
    expect(result?.tool_call_id).toBe("call_top");
    expect(JSON.parse(String(result?.content))).toEqual({
      period: "month",
      artists: [{ artist: "Radiohead", postCount: 2 }],
    });
  });

  it("gives the model only what the person may see", async () => {
    const engine = await engineWith((_, index) =>
      index === 0
        ? { kind: "tool", name: "find_posts", args: { query: "#jazz" } }
        : { kind: "text", pieces: ["Found one."] },
    );
    await collect(
      engine.reply({
        viewerId: me.id,
        message: "find posts about #jazz",
        history: [],
        signal: new AbortController().signal,
      }),
    );
    const [result] = toolMessages(server?.requests[1]);
    expect(String(result?.content)).toContain("So What");
    expect(String(result?.content)).not.toContain(secretPostId);
    expect(String(result?.content)).not.toContain("Secret Artist");
    expect(String(result?.content)).not.toContain(stranger.username);
  });

  it("turns a draft_post call into a draft card", async () => {
    const engine = await engineWith((_, index) =>
      index === 0
        ? { kind: "tool", name: "draft_post", args: { track: "Heroes by David Bowie" } }
        : { kind: "text", pieces: ["Here is your draft."] },
    );
    const { all } = await collect(
      engine.reply({
        viewerId: me.id,
        message: "draft a post about Heroes",
        history: [],
        signal: new AbortController().signal,
      }),
    );
    expect(all).toContainEqual({
      type: "draft",
      draft: expect.objectContaining({ kind: "track", title: "Heroes", artist: "David Bowie" }),
    });
  });

  it("falls back to the built-in engine with a clear notice when the API fails", async () => {
    const engine = await engineWith(() => ({ kind: "error", status: 500 }));
    const { all, text } = await collect(
      engine.reply({
        viewerId: me.id,
        message: "my top artists this month",
        history: [],
        signal: new AbortController().signal,
      }),
    );
    expect(all).toContainEqual({ type: "notice", text: LLM_FAILED_NOTICE });
    expect(all).toContainEqual({ type: "engine", engine: "builtin" });
    expect(text).toContain("Your top artist this month is [Radiohead]");
    expect(server?.requests).toHaveLength(1);
  });

  it("falls back when the API stays silent too long, and stores the fallback answer", async () => {
    const engine = await engineWith(() => ({ kind: "hang", pieces: ["Let me think"] }), 300);
    const turn = await startTurn({ userId: me.id, message: "what have I been into lately" });
    const finished = await runTurn({
      userId: me.id,
      turn,
      engine,
      signal: new AbortController().signal,
    });
    expect(finished.notice).toBe(LLM_FAILED_NOTICE);
    expect(finished.engine).toBe("builtin");
    expect(finished.content).toContain("In the last 30 days you shared 2 posts");
    expect(finished.content).not.toContain("Let me think");
    await server?.closedByClient;
    const stored = await getConversation({ userId: me.id, conversationId: turn.conversationId });
    expect(stored.messages[1]).toMatchObject({ notice: LLM_FAILED_NOTICE, status: "complete" });
  });

  it("stops when the person presses Stop: no fallback, what was written is kept", async () => {
    const engine = await engineWith(() => ({ kind: "hang", pieces: ["Once upon ", "a time"] }));
    const turn = await startTurn({ userId: me.id, message: "tell me a story" });
    const stop = new AbortController();
    let received = "";
    const finished = await runTurn({
      userId: me.id,
      turn,
      engine,
      signal: stop.signal,
      onEvent: (event) => {
        if (event.type === "text") received += event.text;
        if (received === "Once upon a time") stop.abort();
      },
    });
    expect(finished).toMatchObject({
      status: "stopped",
      content: "Once upon a time",
      notice: null,
      engine: "llm",
    });
    await server?.closedByClient;
  });

  it("gives the model the journey's own numbers, for the person asking and for someone else", async () => {
    const listener = await createTestUser({ username: "llm_listener" });
    const day = 86_400_000;
    const at = (msAgo: number, i: number) => Math.floor((Date.now() - msAgo - i * 600_000) / 1000);
    await recordListens({
      userId: listener.id,
      listens: [
        ...Array.from({ length: 6 }, (_, i) => ({
          listenedAt: at(2 * day, i),
          artistName: "Slowdive",
          trackName: "Alison",
          releaseName: "Souvlaki",
          durationMs: 230_000,
        })),
        ...Array.from({ length: 3 }, (_, i) => ({
          listenedAt: at(3 * day, i),
          artistName: "Low",
          trackName: "Lullaby",
          releaseName: null,
          durationMs: null,
        })),
        ...Array.from({ length: 4 }, (_, i) => ({
          listenedAt: at(45 * day, i),
          artistName: "Portishead",
          trackName: "Roads",
          releaseName: "Dummy",
          durationMs: 305_000,
        })),
      ],
    });
    const engine = await engineWith((_, index) =>
      index === 0
        ? { kind: "tool", name: "listening_stats", args: { period: "month" }, id: "call_mine" }
        : index === 1
          ? {
              kind: "tool",
              name: "listening_stats",
              args: { person: "llm_stranger", from: "2026-01-01", to: "2026-03-31" },
              id: "call_theirs",
            }
          : { kind: "text", pieces: ["You played Slowdive most."] },
    );
    await collect(
      engine.reply({
        viewerId: listener.id,
        message: "what have I been listening to lately, and what does llm_stranger play?",
        history: [],
        signal: new AbortController().signal,
      }),
    );
    const tools = server?.requests[0]?.tools?.map((t) => t.function.name);
    expect(tools).toEqual(
      expect.arrayContaining(["listening_stats", "person_posts", "friends_posts_about", "summary"]),
    );
    const page = await loadJourney({
      viewerId: listener.id,
      owner: { id: listener.id, username: listener.username, displayName: "" },
      params: new URLSearchParams({ period: "month" }),
    });
    if (page.state !== "shown") throw new Error(page.state);
    const mine = toolMessages(server?.requests[1]).find((m) => m.tool_call_id === "call_mine");
    const numbers = JSON.parse(String(mine?.content));
    expect(numbers).toMatchObject({
      state: "shown",
      isOwner: true,
      period: "in the last 30 days",
      journeyHref: `/u/${listener.username}/journey?period=month`,
      plays: page.stats.totals.plays,
      listeningMs: page.stats.totals.listeningMs,
      estimatedPlays: page.stats.totals.estimatedPlays,
    });
    expect(numbers.plays).toBe(9);
    expect(numbers.topArtists).toEqual(
      page.stats.topArtists.map((a) => ({ name: a.name, artist: null, plays: a.plays })),
    );
    // Someone whose journey is for their followers: the model is told so, with no numbers.
    const theirs = toolMessages(server?.requests[2]).find((m) => m.tool_call_id === "call_theirs");
    const hidden = JSON.parse(String(theirs?.content));
    expect(hidden).toMatchObject({ state: "hidden", audience: "followers" });
    expect(hidden.message).toContain("shares their journey with followers only");
    expect(hidden).not.toHaveProperty("plays");
  });
});
