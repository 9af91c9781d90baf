import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth";
import { ENGINE_NAMES, MESSAGE_ROLES, MESSAGE_STATUSES, type PostDraft } from "./enums";

/** A conversation with the music assistant; one person's own, gone with their account. */
export const assistantConversations = pgTable(
  "assistant_conversations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    index("assistant_conversations_user_updated_idx").on(t.userId, t.updatedAt.desc()),
    check("assistant_conversations_title_length", sql`char_length(${t.title}) between 1 and 80`),
  ],
);

/** One message of a conversation: the person's question or the assistant's answer. */
export const assistantMessages = pgTable(
  "assistant_messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => assistantConversations.id, { onDelete: "cascade" }),
    role: text("role", { enum: MESSAGE_ROLES }).notNull(),
    content: text("content").notNull(),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull().default("complete"),
    /** Which engine wrote an answer. */
    engine: text("engine", { enum: ENGINE_NAMES }),
    /** A notice shown with the answer (e.g. the language model failed and the built-in answered). */
    notice: text("notice"),
    draft: jsonb("draft").$type<PostDraft>(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    index("assistant_messages_conversation_idx").on(t.conversationId, t.createdAt, t.id),
    check("assistant_messages_content_length", sql`char_length(${t.content}) <= 20000`),
  ],
);
