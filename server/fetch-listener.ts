import type { IncomingMessage, ServerResponse } from "node:http";
import type { Writable } from "node:stream";
import {
  createEncoder,
  type Encoding,
  encodingFor,
  isCompressibleType,
  varyWithEncoding,
} from "./compression";

/*
 * The bridge between node:http and React Router's fetch handler. It replaces the request
 * listener of @mjackson/node-fetch-server, whose request body pushed every incoming chunk into
 * its stream without asking: the whole body sat in memory even when the route refused it
 * unread, and once the app had cancelled the stream (a form reader stopping at its size limit)
 * the next chunk's enqueue threw inside a socket event handler — an uncaught exception that
 * ended the process. Here the body is pulled (the socket is paused while nobody reads), counted
 * against the route's limit, and never touched again after it was cancelled, closed or errored.
 */

/** A body passed its route's limit while it streamed in. */
export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`request body over ${limit} bytes`);
  }
}

/** The client went away before its request body was complete. */
export class RequestAbortedError extends Error {
  override name = "RequestAbortedError";
  constructor() {
    super("the client closed the connection before the request body was complete");
  }
}

/** How long, and for how many bytes, a refused body is still read and dropped after the answer. */
const LINGER_MS = 1_000;
const LINGER_BYTES = 4 * 1024 * 1024;

/** True while the client may still be sending a body that nobody has read. */
export function hasPendingBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const declared = req.headers["content-length"];
  return (
    req.headers["transfer-encoding"] !== undefined || (declared !== undefined && declared !== "0")
  );
}

/**
 * For an answer that leaves the request body unread (it carries `Connection: close`): once it
 * is written, read and drop what the client is still sending for a moment (at most LINGER_MS
 * and LINGER_BYTES) before closing. Closing a socket with unread bytes makes the kernel send a
 * reset, and a client still busy uploading would then lose the 413 it was just sent.
 */
export function lingerBeforeClose(req: IncomingMessage): void {
  const socket = req.socket;
  let dropped = 0;
  const close = () => socket.destroy();
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > LINGER_BYTES) close();
  });
  req.on("error", () => undefined);
  req.resume();
}

export interface BodyStreamOptions {
  limit: number;
  /** Called once, when the limit is passed (before the stream errors). */
  onTooLarge?: () => void;
  /** Called once, when something first asks for body bytes (e.g. to send `100 Continue`). */
  onFirstRead?: () => void;
  /** Bytes held in the stream's queue before the socket is paused. */
  highWaterMark?: number;
}

/**
 * The request body as a pull-based stream: the socket is read only while the queue has room,
 * bytes past `limit` error the stream with `BodyTooLargeError` instead of being kept, and after
 * the stream is settled (closed, errored or cancelled) nothing is enqueued again.
 */
export function requestBodyStream(
  req: IncomingMessage,
  options: BodyStreamOptions,
): ReadableStream<Uint8Array> {
  let isSettled = false;
  let hasStarted = false;
  let received = 0;
  const detach = () => {
    isSettled = true;
    req.pause();
    req.removeListener("data", onData);
    req.removeListener("end", onEnd);
    req.removeListener("close", onClose);
    req.removeListener("error", onError);
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const onData = (chunk: Buffer) => {
    if (isSettled) return;
    received += chunk.byteLength;
    if (received > options.limit) {
      detach();
      options.onTooLarge?.();
      controller.error(new BodyTooLargeError(options.limit));
      return;
    }
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };
  const onEnd = () => {
    if (isSettled) return;
    detach();
    controller.close();
  };
  const onClose = () => {
    if (isSettled || req.complete) return;
    detach();
    controller.error(new RequestAbortedError());
  };
  const onError = (error: Error) => {
    if (isSettled) return;
    detach();
    controller.error(req.complete ? error : new RequestAbortedError());
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        if (isSettled) return;
        if (!hasStarted) {
          hasStarted = true;
          options.onFirstRead?.();
          req.on("data", onData);
          req.on("end", onEnd);
          req.on("close", onClose);
          req.on("error", onError);
        }
        req.resume();
      },
      cancel() {
        if (!isSettled) detach();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: options.highWaterMark ?? 64 * 1024 }),
  );
}

export type ReadBodyResult =
  | { kind: "ok"; body: Uint8Array<ArrayBuffer> }
  | { kind: "too_large" }
  | { kind: "aborted" };

/** Reads a whole (small) body, stopping at the first byte past `limit`. */
export async function readBodyWithin(
  req: IncomingMessage,
  limit: number,
  onFirstRead?: () => void,
): Promise<ReadBodyResult> {
  const reader = requestBodyStream(req, { limit, onFirstRead }).getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
  } catch (error) {
    if (error instanceof BodyTooLargeError) return { kind: "too_large" };
    return { kind: "aborted" };
  }
  const body = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { kind: "ok", body };
}

/** What became of one request handed to the fetch handler. */
export interface Exchange {
  /** The status sent, or null when nothing could be sent. */
  status: number | null;
  /** The client went away before the whole response was written. */
  isAborted: boolean;
  /** The body passed its limit while streaming and 413 was sent instead of the app's answer. */
  isTooLarge: boolean;
  /** What went wrong on our side (a throwing handler, a failing response stream). */
  error?: unknown;
}

export interface ServeFetchOptions {
  /** The fetch handler (React Router with our checks around it). */
  handler: (request: Request) => Promise<Response>;
  /** `http:` or `https:`, for the request URL. */
  protocol: string;
  /** The body limit of this route class; 0 means the request gets no body. */
  limit: number;
  /** A body already read (and checked) by the caller; used instead of the socket. */
  body?: Uint8Array<ArrayBuffer>;
  /** The answer when the body passes `limit` while streaming in. */
  tooLarge: () => Response;
  /** Called before the body is first read (to send `100 Continue`). */
  onFirstRead?: () => void;
}

function plain(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}

function isOpen(res: ServerResponse): boolean {
  return !res.destroyed && !res.writableEnded;
}

/** Resolves once `res` has finished or its connection is gone. */
function settled(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once("finish", resolve);
    res.once("close", resolve);
  });
}

/** Resolves when `stream` may take more (`drain`), or when `res` is gone. */
function drained(stream: Writable, res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const go = () => {
      stream.removeListener("drain", go);
      res.removeListener("close", go);
      resolve();
    };
    stream.once("drain", go);
    res.once("close", go);
  });
}

/**
 * Writes `response` to `res`: status and headers (each Set-Cookie on its own), then the body
 * with backpressure. A compressible body is compressed on the way (compression.ts) when the
 * client accepts it, and flushed whenever the app's stream pauses — so streamed HTML still
 * reaches the browser chunk by chunk. A client that goes away cancels the body (live streams
 * end); a body that fails midway ends the connection. Never throws.
 */
async function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<unknown> {
  const acceptEncoding = req.headers["accept-encoding"];
  const encoding: Encoding | null = encodingFor(
    req.method ?? "GET",
    Array.isArray(acceptEncoding) ? acceptEncoding.join(",") : acceptEncoding,
    response,
  );
  const varies = isCompressibleType(response.headers.get("Content-Type"));
  const raw: string[] = [];
  for (const [name, value] of response.headers) {
    if (varies && name === "vary") continue;
    // The compressed length is not known up front: the body goes out chunked.
    if (encoding && name === "content-length") continue;
    raw.push(name, value);
  }
  if (varies) raw.push("Vary", varyWithEncoding(response.headers.get("Vary")));
  if (encoding) raw.push("Content-Encoding", encoding);
  // A body nobody read would otherwise keep the connection busy: close it after this answer.
  if (hasPendingBody(req)) {
    if (!response.headers.has("Connection")) raw.push("Connection", "close");
    lingerBeforeClose(req);
  }
  res.writeHead(response.status, raw);
  if (!response.body || req.method === "HEAD") {
    res.end();
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = response.body.getReader();
  const encoder = encoding ? createEncoder(encoding) : null;
  let flushTimer: NodeJS.Immediate | null = null;
  if (encoder) {
    encoder.on("error", () => res.destroy());
    encoder.pipe(res);
  }
  const onClose = () => {
    reader.cancel().catch(() => undefined);
    if (flushTimer) clearImmediate(flushTimer);
    encoder?.destroy();
  };
  res.once("close", onClose);
  /*
   * Flush once the chunks that are ready have been written: React writes a document in many
   * small pieces within one tick, and a flush per piece would cost compression for nothing,
   * while a flush at the end of the tick sends everything rendered so far (first byte and
   * streamed Suspense boundaries are not held back).
   */
  const scheduleFlush = () => {
    if (!encoder || flushTimer) return;
    flushTimer = setImmediate(() => {
      flushTimer = null;
      if (!encoder.destroyed && !encoder.writableEnded) encoder.flush();
    });
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || !isOpen(res)) break;
      if (encoder) {
        const hasRoom = encoder.write(value);
        scheduleFlush();
        if (!hasRoom) await drained(encoder, res);
      } else if (!res.write(value)) {
        await drained(res, res);
      }
    }
    if (flushTimer) {
      clearImmediate(flushTimer);
      flushTimer = null;
    }
    if (isOpen(res)) {
      // The encoder ends `res` through the pipe once its last bytes are out.
      if (encoder) encoder.end();
      else res.end();
    }
    return undefined;
  } catch (error) {
    // Headers are out: the only honest way to say "this body is broken" is to cut it short.
    if (flushTimer) clearImmediate(flushTimer);
    encoder?.destroy();
    res.destroy();
    return res.writableFinished ? undefined : error;
  } finally {
    res.removeListener("close", onClose);
  }
}

/**
 * Serves one request through a fetch handler. Whatever the handler or the client does, this
 * resolves (never rejects) with what happened, for the caller to log.
 */
export async function serveFetch(
  req: IncomingMessage,
  res: ServerResponse,
  options: ServeFetchOptions,
): Promise<Exchange> {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort();
  };
  res.once("close", onClose);
  const exchange: Exchange = { status: null, isAborted: false, isTooLarge: false };
  try {
    const method = req.method ?? "GET";
    let request: Request;
    try {
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        headers.append(req.rawHeaders[i] ?? "", req.rawHeaders[i + 1] ?? "");
      }
      const url = new URL(
        req.url ?? "/",
        `${options.protocol}//${headers.get("Host") ?? "localhost"}`,
      );
      const init: RequestInit & { duplex?: "half" } = {
        method,
        headers,
        signal: controller.signal,
      };
      if (options.body) {
        init.body = options.body;
      } else if (options.limit > 0 && method !== "GET" && method !== "HEAD") {
        init.body = requestBodyStream(req, {
          limit: options.limit,
          onFirstRead: options.onFirstRead,
          onTooLarge: () => {
            exchange.isTooLarge = true;
            if (res.headersSent) {
              res.destroy();
              return;
            }
            void writeResponse(req, res, options.tooLarge());
          },
        });
        init.duplex = "half";
      }
      request = new Request(url, init);
    } catch {
      // A Host or header value the URL and Headers parsers refuse.
      const error = plain(400, "Bad Request: the request line or headers could not be read.");
      exchange.status = 400;
      await writeResponse(req, res, error);
      return exchange;
    }

    let response: Response;
    try {
      response = await options.handler(request);
    } catch (error) {
      if (controller.signal.aborted || exchange.isTooLarge) {
        exchange.isAborted = controller.signal.aborted;
        exchange.status = exchange.isTooLarge ? 413 : null;
        return exchange;
      }
      exchange.error = error;
      response = plain(500, "Internal Server Error");
    }
    if (exchange.isTooLarge) {
      // 413 has been sent already; the app's answer to a body it never fully got is dropped.
      await response.body?.cancel().catch(() => undefined);
      exchange.status = 413;
    } else if (isOpen(res) && !res.headersSent) {
      exchange.status = response.status;
      const failure = await writeResponse(req, res, response);
      if (failure && !controller.signal.aborted) exchange.error = failure;
    } else {
      await response.body?.cancel().catch(() => undefined);
    }
    await settled(res);
    exchange.isAborted = controller.signal.aborted || !res.writableFinished;
    return exchange;
  } finally {
    res.removeListener("close", onClose);
  }
}
