import { z } from "zod";
import { ASSISTANT_TITLE_MAX_LENGTH, MESSAGE_EMPTY, messageProblem } from "./constants";

/** A message to the assistant: not empty, at most ASSISTANT_MESSAGE_MAX_LENGTH characters. */
export const messageSchema = z
  .string({ error: MESSAGE_EMPTY })
  .trim()
  .superRefine((value, context) => {
    const problem = messageProblem(value);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });

export const titleSchema = z
  .string({ error: "Give the conversation a name." })
  .transform((v) => v.replace(/\s+/g, " ").trim())
  .pipe(
    z
      .string()
      .min(1, "Give the conversation a name.")
      .max(
        ASSISTANT_TITLE_MAX_LENGTH,
        `Keep the name under ${ASSISTANT_TITLE_MAX_LENGTH} characters.`,
      ),
  );

/** The no-JavaScript actions of the chat page; streaming goes through /api/assistant. */
export const chatActionSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("send"),
    message: z.string().max(20_000),
    conversationId: z.string().max(100).optional(),
  }),
  z.object({
    intent: z.literal("rename"),
    conversationId: z.string().max(100),
    title: z.string().max(1000),
  }),
  z.object({ intent: z.literal("delete"), conversationId: z.string().max(100) }),
  z.object({ intent: z.literal("publish"), messageId: z.string().max(100).optional() }),
]);
