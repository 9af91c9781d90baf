import type { EngineName, MessageStatus, PostDraft } from "./constants";

/*
 * The events of `POST /api/assistant` (Server-Sent Events framing over a streamed response):
 * `start` once, then `text`, `draft` and `notice` as the engine writes, then `done` with where
 * the answer was stored. The browser reads them with fetch, so Stop is an AbortController.
 */
export type AssistantStreamEvent =
  | { type: "start"; data: { conversationId: string; isNewConversation: boolean } }
  | { type: "engine"; data: { engine: EngineName } }
  | { type: "text"; data: { text: string } }
  | { type: "draft"; data: { draft: PostDraft } }
  | { type: "notice"; data: { text: string } }
  | { type: "done"; data: { messageId: string; status: MessageStatus } };

export function encodeStreamEvent(event: AssistantStreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * Splits received text into complete events; returns them and the unfinished rest to keep for
 * the next chunk.
 */
export function parseStreamEvents(buffer: string): {
  events: AssistantStreamEvent[];
  rest: string;
} {
  const events: AssistantStreamEvent[] = [];
  const frames = buffer.split("\n\n");
  const rest = frames.pop() ?? "";
  for (const frame of frames) {
    let type = "";
    let data = "";
    for (const line of frame.split("\n")) {
      if (line.startsWith("event: ")) type = line.slice(7);
      else if (line.startsWith("data: ")) data += line.slice(6);
    }
    if (!type || !data) continue;
    try {
      events.push({ type, data: JSON.parse(data) } as AssistantStreamEvent);
    } catch {
      // A malformed frame is skipped rather than ending the reply.
    }
  }
  return { events, rest };
}
