import http, { type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, createBrotliDecompress, createGunzip, gunzipSync } from "node:zlib";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodingFor, negotiateEncoding, varyWithEncoding } from "./compression";
import { createNodeHandler } from "./http-handler";

/*
 * Compression on the wire (ARCHITECTURE §9) through the real node:http server and bridge, over
 * real sockets, with stand-in apps: a document compressed when asked and identity when not,
 * server-sent events never compressed, and a streamed document still delivering its first chunk
 * while the rest is being rendered. Headers and bytes only — nothing timed.
 */

type App = (request: Request) => Promise<Response>;
let app: App = async () => new Response("ok");
let server: Server;
let port = 0;

beforeAll(async () => {
  const handler = createNodeHandler({
    handleRequest: (request) => app(request),
    isReady: async () => true,
    isShuttingDown: () => false,
    clientDir: null,
    allowedOrigins: ["http://app.test"],
    trustProxy: false,
    securityHeaders: {},
    logger: pino({ level: "silent" }),
  });
  server = http.createServer(handler.onRequest);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const PAGE = `<!DOCTYPE html><html><body>${'<article class="post-card"><p>Hello</p></article>'.repeat(200)}</body></html>`;

function html(body: string = PAGE, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    headers: { "Content-Type": "text/html; charset=utf-8", ...headers },
  });
}

/** One GET over a fresh socket; the body exactly as it came off the wire. */
function get(
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method, headers, agent: false });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("negotiation", () => {
  it.each([
    [undefined, null],
    ["", null],
    ["identity", null],
    ["gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["br;q=0, gzip", "gzip"],
    ["gzip;q=0", null],
    ["*", "br"],
    ["*;q=0, gzip;q=0.5", "gzip"],
    ["BR", "br"],
  ] as const)("Accept-Encoding %j → %j", (accept, expected) => {
    expect(negotiateEncoding(accept)).toBe(expected);
  });

  it("adds Accept-Encoding to Vary once", () => {
    expect(varyWithEncoding(null)).toBe("Accept-Encoding");
    expect(varyWithEncoding("Cookie")).toBe("Cookie, Accept-Encoding");
    expect(varyWithEncoding("accept-encoding")).toBe("accept-encoding");
    expect(varyWithEncoding("*")).toBe("*");
  });

  it("leaves alone what must not or need not be compressed", () => {
    const br = "br";
    expect(encodingFor("GET", br, html())).toBe("br");
    expect(encodingFor("HEAD", br, html())).toBeNull();
    expect(encodingFor("GET", br, html(PAGE, { "Content-Encoding": "gzip" }))).toBeNull();
    expect(encodingFor("GET", br, html(PAGE, { "Cache-Control": "no-transform" }))).toBeNull();
    expect(encodingFor("GET", br, html("tiny", { "Content-Length": "4" }))).toBeNull();
    const sse = new Response("data: 1\n\n", { headers: { "Content-Type": "text/event-stream" } });
    expect(encodingFor("GET", br, sse)).toBeNull();
    const image = new Response(PAGE, { headers: { "Content-Type": "image/webp" } });
    expect(encodingFor("GET", br, new Response(PAGE))).toBeNull();
    expect(encodingFor("GET", br, image)).toBeNull();
    const data = new Response(PAGE, { headers: { "Content-Type": "text/x-script" } });
    expect(encodingFor("GET", "gzip", data)).toBe("gzip");
  });
});

describe("on the wire", () => {
  it("compresses a document with brotli when accepted, else gzip, with Vary", async () => {
    app = async () => html(PAGE, { "Content-Length": String(PAGE.length), Vary: "Cookie" });
    const br = await get("/feed", { "Accept-Encoding": "gzip, deflate, br" });
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-length"]).toBeUndefined();
    expect(br.headers.vary).toBe("Cookie, Accept-Encoding");
    expect(br.body.byteLength).toBeLessThan(PAGE.length / 10);
    expect(brotliDecompressSync(br.body).toString()).toBe(PAGE);

    const gzip = await get("/feed", { "Accept-Encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).toString()).toBe(PAGE);
  });

  it("compresses .data responses too", async () => {
    const payload = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, ok: true })));
    app = async () => new Response(payload, { headers: { "Content-Type": "text/x-script" } });
    const answer = await get("/feed.data", { "Accept-Encoding": "br" });
    expect(answer.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(answer.body).toString()).toBe(payload);
  });

  it("sends identity when not asked, still with Vary", async () => {
    app = async () => html();
    const asks: Record<string, string>[] = [{}, { "Accept-Encoding": "identity" }];
    for (const headers of asks) {
      const answer = await get("/feed", headers);
      expect(answer.headers["content-encoding"]).toBeUndefined();
      expect(answer.headers.vary).toBe("Accept-Encoding");
      expect(answer.body.toString()).toBe(PAGE);
    }
  });

  it("answers HEAD without a body", async () => {
    app = async () => html();
    const answer = await get("/feed", { "Accept-Encoding": "br" }, "HEAD");
    expect(answer.status).toBe(200);
    expect(answer.body.byteLength).toBe(0);
  });

  it("never compresses server-sent events, and streams them as they come", async () => {
    let close: () => void = () => undefined;
    app = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            // Headers go out with the first bytes: the first event is there from the start.
            controller.enqueue(new TextEncoder().encode(`data: ${"x".repeat(2000)}\n\n`));
            close = () => controller.close();
          },
        }),
        { headers: { "Content-Type": "text/event-stream; charset=utf-8" } },
      );
    const first = await new Promise<{ headers: IncomingHttpHeaders; chunk: string }>(
      (resolve, reject) => {
        const req = http.request({
          host: "127.0.0.1",
          port,
          path: "/api/events",
          agent: false,
          headers: { "Accept-Encoding": "gzip, deflate, br", Accept: "text/event-stream" },
        });
        req.on("response", (res) => {
          res.once("data", (c: Buffer) => {
            resolve({ headers: res.headers, chunk: c.toString() });
            close();
            res.resume();
          });
        });
        req.on("error", reject);
        req.end();
      },
    );
    expect(first.headers["content-encoding"]).toBeUndefined();
    expect(first.headers.vary).toBeUndefined();
    expect(first.chunk).toBe(`data: ${"x".repeat(2000)}\n\n`);
  });

  it.each([
    ["br", createBrotliDecompress],
    ["gzip", createGunzip],
  ] as const)(
    "streams a %s document: the first chunk arrives before the document ends",
    async (encoding, decompressor) => {
      let finish: () => void = () => undefined;
      app = async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              const encode = (text: string) => new TextEncoder().encode(text);
              controller.enqueue(
                encode(`<!DOCTYPE html><html><body><p>shell ${"a".repeat(3000)}</p>`),
              );
              // The rest waits until the client has decoded the shell: it arrives only if flushed.
              finish = () => {
                controller.enqueue(encode("<p>the rest</p></body></html>"));
                controller.close();
              };
            },
          }),
          { headers: { "Content-Type": "text/html; charset=utf-8" } },
        );
      const decoded = await new Promise<string[]>((resolve, reject) => {
        const req = http.request({
          host: "127.0.0.1",
          port,
          path: "/feed",
          agent: false,
          headers: { "Accept-Encoding": encoding },
        });
        req.on("response", (res) => {
          expect(res.headers["content-encoding"]).toBe(encoding);
          const parts: string[] = [];
          let text = "";
          const inflate = decompressor();
          inflate.on("data", (c: Buffer) => {
            text += c.toString();
            if (parts.length === 0 && text.includes("</p>")) {
              parts.push(text);
              finish();
            }
          });
          inflate.on("end", () => {
            parts.push(text);
            resolve(parts);
          });
          inflate.on("error", reject);
          res.pipe(inflate);
        });
        req.on("error", reject);
        req.end();
      });
      expect(decoded[0]).toContain("<p>shell ");
      expect(decoded[0]).not.toContain("the rest");
      expect(decoded[1]).toMatch(/<p>the rest<\/p><\/body><\/html>$/);
    },
  );
});
