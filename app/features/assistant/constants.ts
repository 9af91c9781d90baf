/** Limits and names of the music assistant (issue 14), shared by the browser and the server. */

/** The longest message a person may send. */
export const ASSISTANT_MESSAGE_MAX_LENGTH = 1000;
export const ASSISTANT_TITLE_MAX_LENGTH = 80;
/** Messages per person per window (the shared database rate limiter). */
export const ASSISTANT_RATE_LIMIT = { limit: 20, windowSeconds: 60 };
/** Conversations listed in the side list. */
export const ASSISTANT_CONVERSATION_LIMIT = 50;
/** Earlier messages of a conversation given to a language model as context. */
export const ASSISTANT_HISTORY_LIMIT = 12;

export const MESSAGE_ROLES = ["user", "assistant"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** `stopped`: the person pressed Stop; the text is what was written until then. */
export const MESSAGE_STATUSES = ["complete", "stopped"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const ENGINE_NAMES = ["builtin", "llm"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/** A post the assistant drafted, for the person to edit and publish. */
export interface PostDraft {
  kind: "track";
  title: string;
  artist: string;
  note: string;
}

export const ASSISTANT_SUGGESTIONS = [
  "What have I been into lately?",
  "My top artists this month",
  "What are my friends listening to?",
  "Recommend me something new",
  "Summarise my year",
] as const;

export const MESSAGE_TOO_LONG = `Keep your message under ${ASSISTANT_MESSAGE_MAX_LENGTH.toLocaleString("en")} characters.`;
export const MESSAGE_EMPTY = "Write a message first.";
