import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/*
 * A local stand-in for an OpenAI-compatible chat API (`POST /v1/chat/completions`) that speaks
 * the real streaming protocol: Server-Sent Events `data:` lines carrying `chat.completion.chunk`
 * objects (text in `delta.content`, tool calls in `delta.tool_calls` with their arguments split
 * over several chunks), then `data: [DONE]`. Each request is recorded, and a script decides the
 * answer from the request, so a test can check that the second request carries the tool results.
 */

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  messages: {
    role: string;
    content?: unknown;
    tool_call_id?: string;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  }[];
  tools?: { type: string; function: { name: string; description?: string } }[];
}

export type FakeReply =
  /** Streams text in these pieces, then stops. */
  | { kind: "text"; pieces: string[] }
  /** Calls one tool; the arguments are sent in a few pieces. */
  | { kind: "tool"; name: string; args: Record<string, unknown>; id?: string }
  /** Answers with an HTTP error. */
  | { kind: "error"; status: number }
  /** Streams these pieces and then keeps the response open until the client goes away. */
  | { kind: "hang"; pieces: string[] };

export interface FakeLlmServer {
  url: string;
  /** Every request body received, in order. */
  requests: ChatRequestBody[];
  /** Resolves when the client of a `hang` reply has closed the connection. */
  closedByClient: Promise<void>;
  stop(): Promise<void>;
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "fake-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })}\n\n`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

/**
 * Starts the fake API on `port` (0: any free port). `script` picks the reply for each request
 * (by its position and content).
 */
export async function startFakeLlmServer(
  script: (body: ChatRequestBody, index: number) => FakeReply,
  port = 0,
): Promise<FakeLlmServer> {
  const requests: ChatRequestBody[] = [];
  let markClosed: () => void = () => {};
  const closedByClient = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const open = new Set<ServerResponse>();
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as ChatRequestBody;
    const index = requests.length;
    requests.push(body);
    const reply = script(body, index);
    if (reply.kind === "error") {
      res.writeHead(reply.status, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify({ error: { message: "the model is unavailable", type: "server_error" } }),
      );
      return;
    }
    res.writeHead(200, {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache",
      Connection: "keep-alive",
    });
    res.write(chunk({ role: "assistant", content: "" }));
    if (reply.kind === "tool") {
      const args = JSON.stringify(reply.args);
      const cut = Math.max(1, Math.floor(args.length / 2));
      res.write(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: reply.id ?? `call_${index}`,
              type: "function",
              function: { name: reply.name, arguments: args.slice(0, cut) },
            },
          ],
        }),
      );
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] }));
      res.write(chunk({}, "tool_calls"));
      res.end("data: [DONE]\n\n");
      return;
    }
    for (const piece of reply.pieces) res.write(chunk({ content: piece }));
    if (reply.kind === "text") {
      res.write(chunk({}, "stop"));
      res.end("data: [DONE]\n\n");
      return;
    }
    open.add(res);
    res.on("close", () => {
      open.delete(res);
      markClosed();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/v1`,
    requests,
    closedByClient,
    async stop() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
