import { and, asc, desc, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { isUuid } from "~/core/ids";
import { logger } from "~/core/logger.server";
import { hitRateLimit } from "~/core/rate-limit/rate-limit.server";
import { getDb } from "~/db/client.server";
import { assistantConversations, assistantMessages } from "~/db/schema";
import {
  ASSISTANT_CONVERSATION_LIMIT,
  ASSISTANT_HISTORY_LIMIT,
  ASSISTANT_RATE_LIMIT,
  ASSISTANT_TITLE_MAX_LENGTH,
  type EngineName,
  type MessageRole,
  type MessageStatus,
  type PostDraft,
} from "./constants";
import type { AssistantEngine, EngineEvent } from "./engines.server";
import { messageSchema, titleSchema } from "./schemas";

export const CONVERSATION_NOT_FOUND = "This conversation does not exist, or it is not yours.";

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: string;
}

export interface StoredMessage {
  id: string;
  role: MessageRole;
  content: string;
  status: MessageStatus;
  engine: EngineName | null;
  notice: string | null;
  draft: PostDraft | null;
  createdAt: string;
}

/** The person's conversations, the most recently active first. */
export async function listConversations(options: {
  userId: string;
}): Promise<ConversationSummary[]> {
  const rows = await getDb()
    .select({
      id: assistantConversations.id,
      title: assistantConversations.title,
      updatedAt: assistantConversations.updatedAt,
    })
    .from(assistantConversations)
    .where(eq(assistantConversations.userId, options.userId))
    .orderBy(desc(assistantConversations.updatedAt), desc(assistantConversations.id))
    .limit(ASSISTANT_CONVERSATION_LIMIT);
  return rows.map((r) => ({ ...r, updatedAt: r.updatedAt.toISOString() }));
}

async function requireOwnConversation(userId: string, conversationId: string) {
  if (!isUuid(conversationId)) throw new AppError("not_found", CONVERSATION_NOT_FOUND);
  const [row] = await getDb()
    .select({ id: assistantConversations.id, title: assistantConversations.title })
    .from(assistantConversations)
    .where(
      and(eq(assistantConversations.id, conversationId), eq(assistantConversations.userId, userId)),
    );
  if (!row) throw new AppError("not_found", CONVERSATION_NOT_FOUND);
  return row;
}

/** One of the person's conversations with its messages, oldest first. */
export async function getConversation(options: {
  userId: string;
  conversationId: string;
}): Promise<{ id: string; title: string; messages: StoredMessage[] }> {
  const conversation = await requireOwnConversation(options.userId, options.conversationId);
  const rows = await getDb()
    .select({
      id: assistantMessages.id,
      role: assistantMessages.role,
      content: assistantMessages.content,
      status: assistantMessages.status,
      engine: assistantMessages.engine,
      notice: assistantMessages.notice,
      draft: assistantMessages.draft,
      createdAt: assistantMessages.createdAt,
    })
    .from(assistantMessages)
    .where(eq(assistantMessages.conversationId, conversation.id))
    .orderBy(asc(assistantMessages.createdAt), asc(assistantMessages.id));
  return {
    ...conversation,
    messages: rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
  };
}

export async function renameConversation(options: {
  userId: string;
  conversationId: string;
  title: string;
}): Promise<void> {
  const parsed = titleSchema.safeParse(options.title);
  if (!parsed.success)
    throw new AppError("invalid", parsed.error.issues[0]?.message ?? "Invalid title.");
  await requireOwnConversation(options.userId, options.conversationId);
  await getDb()
    .update(assistantConversations)
    .set({ title: parsed.data })
    .where(
      and(
        eq(assistantConversations.id, options.conversationId),
        eq(assistantConversations.userId, options.userId),
      ),
    );
}

export async function deleteConversation(options: {
  userId: string;
  conversationId: string;
}): Promise<void> {
  await requireOwnConversation(options.userId, options.conversationId);
  await getDb()
    .delete(assistantConversations)
    .where(
      and(
        eq(assistantConversations.id, options.conversationId),
        eq(assistantConversations.userId, options.userId),
      ),
    );
}

/** A conversation's title from its first message. */
export function titleFrom(message: string): string {
  const flat = message.replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  if (chars.length <= ASSISTANT_TITLE_MAX_LENGTH) return flat;
  return `${chars
    .slice(0, ASSISTANT_TITLE_MAX_LENGTH - 1)
    .join("")
    .trimEnd()}…`;
}

export interface StartedTurn {
  conversationId: string;
  isNewConversation: boolean;
  history: { role: MessageRole; content: string }[];
  message: string;
}

/**
 * Checks a new message (length, the per-person rate limit, the conversation is the person's),
 * stores it, and returns what an engine needs to answer it. A new conversation when no id.
 */
export async function startTurn(options: {
  userId: string;
  conversationId?: string | null;
  message: unknown;
}): Promise<StartedTurn> {
  const { userId } = options;
  const parsed = messageSchema.safeParse(options.message);
  if (!parsed.success)
    throw new AppError("invalid", parsed.error.issues[0]?.message ?? "Invalid message.");
  const message = parsed.data;
  const limit = await hitRateLimit(`assistant:${userId}`, ASSISTANT_RATE_LIMIT);
  if (!limit.isAllowed) {
    throw new AppError(
      "rate_limited",
      `You are sending messages faster than the assistant can keep up. Try again in ${limit.retryAfterSeconds} seconds.`,
      limit.retryAfterSeconds,
    );
  }
  const db = getDb();
  if (options.conversationId) {
    const conversation = await requireOwnConversation(userId, options.conversationId);
    const earlier = await db
      .select({ role: assistantMessages.role, content: assistantMessages.content })
      .from(assistantMessages)
      .where(eq(assistantMessages.conversationId, conversation.id))
      .orderBy(desc(assistantMessages.createdAt), desc(assistantMessages.id))
      .limit(ASSISTANT_HISTORY_LIMIT);
    await db.transaction(async (tx) => {
      await tx
        .insert(assistantMessages)
        .values({ conversationId: conversation.id, role: "user", content: message });
      await tx
        .update(assistantConversations)
        .set({ updatedAt: sql`now()` })
        .where(eq(assistantConversations.id, conversation.id));
    });
    return {
      conversationId: conversation.id,
      isNewConversation: false,
      history: earlier.reverse().filter((m) => m.content.trim() !== ""),
      message,
    };
  }
  const conversationId = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(assistantConversations)
      .values({ userId, title: titleFrom(message) })
      .returning({ id: assistantConversations.id });
    if (!created) throw new Error("conversation insert returned nothing");
    await tx
      .insert(assistantMessages)
      .values({ conversationId: created.id, role: "user", content: message });
    return created.id;
  });
  return { conversationId, isNewConversation: true, history: [], message };
}

export interface FinishedTurn {
  messageId: string;
  content: string;
  status: MessageStatus;
  engine: EngineName | null;
  notice: string | null;
  draft: PostDraft | null;
}

/**
 * Lets `engine` answer a started turn, passing every event to `onEvent` as it comes, and stores
 * the answer: all of it, or what was written until `signal` aborted (marked `stopped`).
 */
export async function runTurn(options: {
  userId: string;
  turn: StartedTurn;
  engine: AssistantEngine;
  signal: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
}): Promise<FinishedTurn> {
  const { turn, signal } = options;
  let content = "";
  let engine: EngineName | null = null;
  let notice: string | null = null;
  let draft: PostDraft | null = null;
  let failed = false;
  try {
    for await (const event of options.engine.reply({
      viewerId: options.userId,
      message: turn.message,
      history: turn.history,
      signal,
    })) {
      if (event.type === "text") content += event.text;
      else if (event.type === "engine") engine = event.engine;
      else if (event.type === "notice") {
        notice = event.text;
        // What the failed engine wrote before failing is not an answer.
        content = "";
      } else if (event.type === "draft") draft = event.draft;
      options.onEvent?.(event);
      if (signal.aborted) break;
    }
  } catch (error) {
    if (!signal.aborted) {
      logger.error({ err: error }, "assistant: the engine failed");
      failed = true;
      notice = "Something went wrong while answering. Please try again.";
      options.onEvent?.({ type: "notice", text: notice });
    }
  }
  const status: MessageStatus = signal.aborted ? "stopped" : "complete";
  const [row] = await getDb()
    .insert(assistantMessages)
    .values({
      conversationId: turn.conversationId,
      role: "assistant",
      content: content.slice(0, 20_000),
      status,
      engine,
      notice,
      draft: failed ? null : draft,
    })
    .returning({ id: assistantMessages.id });
  await getDb()
    .update(assistantConversations)
    .set({ updatedAt: sql`now()` })
    .where(eq(assistantConversations.id, turn.conversationId));
  return { messageId: row?.id ?? "", content, status, engine, notice, draft };
}

/** Everything the person said to the assistant and what it answered, for the data export. */
export async function exportConversations(options: { userId: string }) {
  const db = getDb();
  const conversations = await db
    .select({
      id: assistantConversations.id,
      title: assistantConversations.title,
      createdAt: assistantConversations.createdAt,
      updatedAt: assistantConversations.updatedAt,
    })
    .from(assistantConversations)
    .where(eq(assistantConversations.userId, options.userId))
    .orderBy(asc(assistantConversations.createdAt));
  const messages = await db
    .select({
      conversationId: assistantMessages.conversationId,
      role: assistantMessages.role,
      content: assistantMessages.content,
      status: assistantMessages.status,
      draft: assistantMessages.draft,
      createdAt: assistantMessages.createdAt,
    })
    .from(assistantMessages)
    .innerJoin(
      assistantConversations,
      eq(assistantConversations.id, assistantMessages.conversationId),
    )
    .where(eq(assistantConversations.userId, options.userId))
    .orderBy(asc(assistantMessages.createdAt), asc(assistantMessages.id));
  return conversations.map((c) => ({
    ...c,
    messages: messages
      .filter((m) => m.conversationId === c.id)
      .map(({ conversationId: _, ...m }) => m),
  }));
}
