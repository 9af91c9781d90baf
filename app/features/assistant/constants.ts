/** Limits and names of the music assistant (issue 14), shared by the browser and the server. */

import type { FormFailure } from "~/lib/forms";

/** The longest message a person may send. */
export const ASSISTANT_MESSAGE_MAX_LENGTH = 1000;
export const ASSISTANT_TITLE_MAX_LENGTH = 80;
/** Messages per person per window (the shared database rate limiter). */
export const ASSISTANT_RATE_LIMIT = { limit: 20, windowSeconds: 60 };
/** Conversations listed in the side list. */
export const ASSISTANT_CONVERSATION_LIMIT = 50;
/** Earlier messages of a conversation given to a language model as context. */
export const ASSISTANT_HISTORY_LIMIT = 12;

export {
  ENGINE_NAMES,
  type EngineName,
  MESSAGE_ROLES,
  MESSAGE_STATUSES,
  type MessageRole,
  type MessageStatus,
  type PostDraft,
} from "~/db/schema/enums";

export const ASSISTANT_SUGGESTIONS = [
  "What have I been into lately?",
  "My top artists this month",
  "What are my friends listening to?",
  "Recommend me something new",
  "Summarise my year",
] as const;

export const MESSAGE_TOO_LONG = `Keep your message under ${ASSISTANT_MESSAGE_MAX_LENGTH.toLocaleString("en")} characters.`;
export const MESSAGE_EMPTY = "Write a message first.";

/**
 * What the chat page's action answers when it cannot go on (app/routes/_app/chatbot.tsx): the
 * one refusal shape, with the message as typed when sending it failed.
 */
export type ChatActionData =
  | (FormFailure & { intent: "send"; typed: string })
  | (FormFailure & { intent: "publish"; messageId: string })
  | (FormFailure & { intent: "other" });

/**
 * What is wrong with a message as typed, or null: the rule `messageSchema` applies (not empty
 * once trimmed, at most ASSISTANT_MESSAGE_MAX_LENGTH characters), without zod, so the chat
 * screen checks it before sending without loading a validation library.
 */
export function messageProblem(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.length === 0) return MESSAGE_EMPTY;
  if (Array.from(trimmed).length > ASSISTANT_MESSAGE_MAX_LENGTH) return MESSAGE_TOO_LONG;
  return null;
}
