import { data } from "react-router";
import { z } from "zod";
import { runTurn, startTurn } from "~/features/assistant/conversations.server";
import { getAssistantEngine } from "~/features/assistant/engines.server";
import { type AssistantStreamEvent, encodeStreamEvent } from "~/features/assistant/stream-protocol";
import { getViewer } from "~/features/auth/guards.server";
import { messageFailure } from "~/lib/forms";
import type { Route } from "./+types/assistant";

const schema = z.object({
  message: z.string().max(20_000).default(""),
  conversationId: z
    .string()
    .max(100)
    .optional()
    .transform((v) => (v ? v : undefined)),
});

export function loader() {
  throw data(messageFailure("Use POST to send the assistant a message."), { status: 405 });
}

/**
 * `POST /api/assistant` (form fields `message`, `conversationId`): stores the message and streams
 * the answer as Server-Sent Events (see stream-protocol.ts). When the browser goes away (Stop),
 * the engine stops and what it wrote so far is stored, marked as stopped. Refusals (too long,
 * too many, not your conversation) are the JSON refusal `{ ok: false, message }` with their
 * status, before any streaming.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const viewer = getViewer(context);
  if (!viewer) return data(messageFailure("Sign in to talk to the assistant."), { status: 401 });
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return data(messageFailure("Send the message as a form."), { status: 400 });
  }
  const parsed = schema.safeParse(Object.fromEntries(form));
  if (!parsed.success) return data(messageFailure("Write a message first."), { status: 400 });
  const turn = await startTurn({
    userId: viewer.id,
    conversationId: parsed.data.conversationId,
    message: parsed.data.message,
  });

  const stop = new AbortController();
  const onAbort = () => stop.abort();
  request.signal.addEventListener("abort", onAbort, { once: true });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (event: AssistantStreamEvent) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(encodeStreamEvent(event)));
        } catch {
          open = false;
          stop.abort();
        }
      };
      send({
        type: "start",
        data: { conversationId: turn.conversationId, isNewConversation: turn.isNewConversation },
      });
      const finished = await runTurn({
        userId: viewer.id,
        turn,
        engine: getAssistantEngine(),
        signal: stop.signal,
        onEvent: (event) => {
          if (event.type === "text") send({ type: "text", data: { text: event.text } });
          else if (event.type === "draft") send({ type: "draft", data: { draft: event.draft } });
          else if (event.type === "notice") send({ type: "notice", data: { text: event.text } });
          else send({ type: "engine", data: { engine: event.engine } });
        },
      });
      request.signal.removeEventListener("abort", onAbort);
      send({ type: "done", data: { messageId: finished.messageId, status: finished.status } });
      if (open) {
        open = false;
        try {
          controller.close();
        } catch {
          // The browser already went away.
        }
      }
    },
    cancel() {
      stop.abort();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
