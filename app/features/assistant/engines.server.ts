import type { ModelMessage, Tool } from "ai";
import { z } from "zod";
import { logger } from "~/core/logger.server";
import { getEnv } from "~/lib/env.server";
import { lazyModule } from "~/lib/lazy-module.server";
import { answerWithBuiltin } from "./builtin.server";
import type { EngineName, MessageRole, PostDraft } from "./constants";
import type { PeriodSpec } from "./intents";
import {
  draftPost,
  findArtistFans,
  findPosts,
  getFriendsListening,
  getFriendsPlays,
  getListening,
  getPersonPosts,
  getRecentActivity,
  getTopArtists,
  periodRange,
  recommendMusic,
  summarisePosts,
} from "./tools.server";

/** What an engine sends while it answers. */
export type EngineEvent =
  | { type: "text"; text: string }
  | { type: "draft"; draft: PostDraft }
  /** Something the person should know about this answer (e.g. the model failed). */
  | { type: "notice"; text: string }
  /** Which engine wrote what follows. */
  | { type: "engine"; engine: EngineName };

export interface EngineInput {
  viewerId: string;
  message: string;
  /** Earlier messages of the conversation, oldest first. */
  history: { role: MessageRole; content: string }[];
  /** Aborted when the person presses Stop (or goes away): the engine stops writing. */
  signal: AbortSignal;
}

/** One interface, two engines: the built-in one, and any OpenAI-compatible chat API. */
export interface AssistantEngine {
  readonly name: EngineName;
  reply(input: EngineInput): AsyncIterable<EngineEvent>;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * The built-in engine: recognises the intent, runs the data tool, and streams the answer a few
 * words at a time (`chunkDelayMs` apart) so it reads like the other engine.
 */
export function createBuiltinEngine(options: { chunkDelayMs?: number } = {}): AssistantEngine {
  const delay = options.chunkDelayMs ?? 15;
  return {
    name: "builtin",
    async *reply(input) {
      yield { type: "engine", engine: "builtin" };
      const answer = await answerWithBuiltin({ viewerId: input.viewerId, message: input.message });
      const pieces = answer.text.match(/\S+\s*|\s+/g) ?? [];
      for (let i = 0; i < pieces.length; i += 3) {
        if (input.signal.aborted) return;
        yield { type: "text", text: pieces.slice(i, i + 3).join("") };
        await sleep(delay, input.signal);
      }
      if (answer.draft && !input.signal.aborted) yield { type: "draft", draft: answer.draft };
    },
  };
}

const SYSTEM_PROMPT = `You are the music assistant of Soundtrail, a social app where people share the music they listen to with friends.
Answer only from the person's own data and what others shared with them, through the tools. Never invent posts, people or numbers.
Answer in a few natural sentences of markdown. Link posts as [title](/post/ID), people as [name](/u/USERNAME), artists and words as [name](/search?q=NAME), tags as [#tag](/search?q=%23tag). Use only ids and usernames the tools returned.
Numbers about listening come only from listening_stats or summary (the same numbers as the journey page); quote them as they are and link the journeyHref. When a tool has no answer (no plays, a journey not shared, nobody by that name), say plainly that you do not know.
To draft a post, call draft_post; the person sees the draft as a card they can edit and publish, so do not repeat it in full.`;

/**
 * The `ai` SDK and its OpenAI-compatible provider, imported when a language model first answers:
 * a server without LLM_BASE_URL never needs them.
 */
const loadSdk = lazyModule(async () => {
  const [sdk, provider] = await Promise.all([import("ai"), import("@ai-sdk/openai-compatible")]);
  return {
    streamText: sdk.streamText,
    stepCountIs: sdk.stepCountIs,
    createOpenAICompatible: provider.createOpenAICompatible,
  };
});

/** The SDK's `tool` (an identity that types `execute` from `inputSchema`), without importing it. */
function tool<INPUT, OUTPUT>(definition: Tool<INPUT, OUTPUT>): Tool<INPUT, OUTPUT> {
  return definition;
}

const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD");
const periodInput = z.object({
  period: z.enum(["week", "month", "year", "all"]).optional(),
  from: isoDay.optional(),
  to: isoDay.optional(),
});

/** A tool's period as the journey takes it: from/to as a custom range, else a rolling window. */
function periodOfInput(
  input: z.infer<typeof periodInput>,
  fallback: "month" | "year-to-date" = "month",
): PeriodSpec {
  if (input.from && input.to) {
    return {
      kind: "range",
      from: input.from,
      to: input.to,
      name: `from ${input.from} to ${input.to}`,
    };
  }
  if (input.period) return { kind: "rolling", period: input.period };
  if (fallback === "month") return { kind: "rolling", period: "month" };
  const today = new Date().toISOString().slice(0, 10);
  return { kind: "range", from: `${today.slice(0, 4)}-01-01`, to: today, name: "this year" };
}

/** The data tools as function calls, bound to the person asking. */
export function assistantTools(viewerId: string) {
  return {
    recent_activity: tool({
      description: "The person's own posts of the last 30 days and the artists behind them.",
      inputSchema: z.object({}),
      execute: () => getRecentActivity({ viewerId }),
    }),
    top_artists: tool({
      description: "The person's most posted artists in a period.",
      inputSchema: z.object({ period: z.enum(["week", "month", "year", "all"]) }),
      execute: ({ period }) => getTopArtists({ viewerId, period }),
    }),
    listening_stats: tool({
      description:
        "Listening numbers from a journey (the person's own, or someone else's by name or username, as their journey page shows it to the person): plays, listening time in ms, artist count, top artists, albums and tracks, discoveries, longest streak, and the journey link with the same numbers. Period: week, month (last 30 days, the default), year (last 12 months) or all; or from/to (YYYY-MM-DD, both included) for a calendar month, year, season or any range.",
      inputSchema: periodInput.extend({ person: z.string().min(1).max(100).optional() }),
      execute: (input) =>
        getListening({ viewerId, person: input.person ?? null, period: periodOfInput(input) }),
    }),
    person_posts: tool({
      description:
        "What someone (a name or username) has been posting, as their profile shows it to the person.",
      inputSchema: z.object({ person: z.string().min(1).max(100) }),
      execute: ({ person }) => getPersonPosts({ viewerId, person }),
    }),
    friends_plays: tool({
      description:
        "What each person the person follows played most in the last 30 days, only from journeys shared with them.",
      inputSchema: z.object({}),
      execute: () => getFriendsPlays({ viewerId }),
    }),
    friends_listening: tool({
      description: "The newest posts of the people the person follows.",
      inputSchema: z.object({}),
      execute: () => getFriendsListening({ viewerId }),
    }),
    friends_posts_about: tool({
      description:
        "Posts about a topic, artist or #tag from the people the person follows (e.g. jazz tips).",
      inputSchema: z.object({ topic: z.string().min(1).max(200) }),
      execute: ({ topic }) => findPosts({ viewerId, query: topic, onlyFollowed: true }),
    }),
    artist_fans: tool({
      description: "Other people here who posted about an artist.",
      inputSchema: z.object({ artist: z.string().min(1).max(200) }),
      execute: ({ artist }) => findArtistFans({ viewerId, artist }),
    }),
    recommend: tool({
      description:
        "New artists for the person, from people they follow and people with a similar taste, leaving out every artist they already played or posted.",
      inputSchema: z.object({}),
      execute: () => recommendMusic({ viewerId }),
    }),
    summary: tool({
      description:
        "A summary of a period (default: this calendar year): the person's listening (as listening_stats) and their posts (count, top posted artists, mood, busiest month, first post).",
      inputSchema: periodInput,
      execute: async (input) => {
        const period = periodOfInput(input, "year-to-date");
        const [listening, posts] = await Promise.all([
          getListening({ viewerId, period }),
          summarisePosts({ viewerId, ...periodRange(period, new Date()) }),
        ]);
        return { listening, posts };
      },
    }),
    find_posts: tool({
      description: "Posts the person can see about a #tag or some words.",
      inputSchema: z.object({ query: z.string().min(1).max(200) }),
      execute: ({ query }) => findPosts({ viewerId, query }),
    }),
    draft_post: tool({
      description:
        "Drafts a post about a track (e.g. 'Heroes by David Bowie') for the person to edit and publish.",
      inputSchema: z.object({ track: z.string().min(1).max(200) }),
      execute: ({ track }) => draftPost({ viewerId, track }),
    }),
  };
}

export interface LlmEngineOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  /** How long the API may stay silent (before its first chunk and between chunks). */
  timeoutMs?: number;
  /** Answers instead when the API fails or times out. */
  fallback: AssistantEngine;
}

export const LLM_FAILED_NOTICE =
  "The language model did not answer, so the built-in assistant answered instead.";

/**
 * Any OpenAI-compatible chat API (OpenAI, Ollama, llama.cpp server, vLLM) through the `ai` SDK,
 * with the data tools as function calls and the reply streamed. When the API fails or stays
 * silent too long, the person is told so and the fallback engine answers.
 */
export function createLlmEngine(options: LlmEngineOptions): AssistantEngine {
  const timeoutMs = options.timeoutMs ?? 20_000;
  return {
    name: "llm",
    async *reply(input) {
      const timeout = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => timeout.abort(new Error("timeout")), timeoutMs);
      };
      const signal = AbortSignal.any([input.signal, timeout.signal]);
      let failure: unknown = null;
      yield { type: "engine", engine: "llm" };
      try {
        arm();
        const { createOpenAICompatible, stepCountIs, streamText } = await loadSdk();
        const provider = createOpenAICompatible({
          name: "llm",
          baseURL: options.baseURL,
          apiKey: options.apiKey,
        });
        const messages: ModelMessage[] = [
          ...input.history.map((m) => ({ role: m.role, content: m.content }) as ModelMessage),
          { role: "user", content: input.message },
        ];
        const result = streamText({
          model: provider.chatModel(options.model),
          system: `${SYSTEM_PROMPT}\nToday is ${new Date().toISOString().slice(0, 10)} (UTC).`,
          messages,
          tools: assistantTools(input.viewerId),
          stopWhen: stepCountIs(4),
          maxRetries: 0,
          abortSignal: signal,
          // Failures arrive as `error` parts below (and are logged there), not on the console.
          onError: () => {},
        });
        for await (const part of result.fullStream) {
          arm();
          if (part.type === "text-delta") {
            if (part.text) yield { type: "text", text: part.text };
          } else if (part.type === "tool-result" && part.toolName === "draft_post") {
            const output = part.output as { draft: PostDraft | null } | undefined;
            if (output?.draft) yield { type: "draft", draft: output.draft };
          } else if (part.type === "error") {
            failure = part.error;
            break;
          } else if (part.type === "abort") {
            if (!input.signal.aborted) failure = new Error("timeout");
            break;
          }
        }
      } catch (error) {
        failure = error;
      } finally {
        clearTimeout(timer);
      }
      if (input.signal.aborted) return;
      if (failure === null && timeout.signal.aborted) failure = new Error("timeout");
      if (failure !== null) {
        logger.warn(
          { err: failure instanceof Error ? failure.message : String(failure) },
          "assistant: language model failed, built-in engine answers",
        );
        yield { type: "notice", text: LLM_FAILED_NOTICE };
        yield* options.fallback.reply(input);
      }
    },
  };
}

/** The engine this server is configured for: a language model when LLM_BASE_URL and LLM_MODEL are set. */
export function getAssistantEngine(options: { chunkDelayMs?: number } = {}): AssistantEngine {
  const env = getEnv();
  const builtin = createBuiltinEngine(options);
  if (env.LLM_BASE_URL && env.LLM_MODEL) {
    return createLlmEngine({
      baseURL: env.LLM_BASE_URL,
      model: env.LLM_MODEL,
      apiKey: env.LLM_API_KEY,
      timeoutMs: env.LLM_TIMEOUT_SECONDS * 1000,
      fallback: builtin,
    });
  }
  return builtin;
}
