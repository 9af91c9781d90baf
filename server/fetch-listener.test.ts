import http, { type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMITS } from "~/body-limits.server";
import { passDataHeaders } from "~/lib/data-headers.server";
import { waitUntil } from "../tests/support/wait-for";
import { createNodeHandler } from "./http-handler";

/*
 * The node-to-fetch bridge in-process, with stand-in apps that do what real routes do to a
 * body: cancel it halfway (a form reader stopping at its own limit), read all of it, ignore it,
 * or throw. The server must answer every time and keep serving.
 */

type App = (request: Request) => Promise<Response>;
let app: App = async () => new Response("ok");
const lines: Array<{ level: number; msg: string }> = [];
let server: Server;
let port = 0;

beforeAll(async () => {
  const logger = pino(
    { level: "info" },
    { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) },
  );
  const handler = createNodeHandler({
    handleRequest: (request) => app(request),
    isReady: async () => true,
    isShuttingDown: () => false,
    clientDir: null,
    allowedOrigins: ["http://app.test"],
    trustProxy: false,
    securityHeaders: {},
    logger,
  });
  server = http.createServer(handler.onRequest);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A chunked multipart upload of `size` bytes to /feed; resolves with the status (0 if none). */
function upload(size: number, abortAfterMs?: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/feed",
      agent: false,
      headers: {
        Origin: "http://app.test",
        "Content-Type": "multipart/form-data; boundary=X",
        "Transfer-Encoding": "chunked",
      },
    });
    let status = 0;
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => resolve(status));
    });
    req.on("error", () => resolve(status));
    if (abortAfterMs !== undefined) {
      req.write(Buffer.alloc(64 * 1024));
      setTimeout(() => {
        req.destroy();
        resolve(0);
      }, abortAfterMs);
      return;
    }
    void (async () => {
      const chunk = Buffer.alloc(64 * 1024, 1);
      for (let sent = 0; sent < size && !status && !req.destroyed; sent += chunk.length) {
        if (!req.write(chunk)) {
          await new Promise<void>((r) => {
            const go = () => {
              req.off("drain", go);
              req.off("close", go);
              r();
            };
            req.on("drain", go);
            req.on("close", go);
          });
        }
      }
      if (!req.destroyed) req.end();
    })();
  });
}

async function healthy() {
  return (await fetch(`http://127.0.0.1:${port}/healthz`)).status;
}

describe("node-to-fetch bridge", () => {
  it("survives an app that cancels the body while the client keeps sending", async () => {
    app = async (request) => {
      const reader = request.body?.getReader();
      await reader?.read();
      await reader?.cancel();
      return new Response("stopped reading", { status: 400 });
    };
    expect(await upload(3 * 1024 * 1024)).toBe(400);
    expect(await healthy()).toBe(200);
  });

  it("answers 413 once a chunked body passes the limit, dropping the app's answer", async () => {
    app = async (request) => {
      await request.arrayBuffer().catch(() => undefined);
      return new Response("the app never saw the end", { status: 200 });
    };
    expect(await upload(BODY_LIMITS.upload + 1024 * 1024)).toBe(413);
    expect(lines.some((l) => l.msg === "request refused" && l.level === 40)).toBe(true);
    expect(await healthy()).toBe(200);
  });

  it("never reads a body the app does not ask for", async () => {
    let seen = -1;
    app = async (request) => {
      seen = request.bodyUsed ? 1 : 0;
      return new Response(null, { status: 302, headers: { Location: "/auth/login" } });
    };
    expect(await upload(50 * 1024 * 1024)).toBe(302);
    expect(seen).toBe(0);
  });

  it("turns a throwing app into a logged 500", async () => {
    lines.length = 0;
    app = async () => {
      throw new Error("boom");
    };
    const res = await fetch(`http://127.0.0.1:${port}/anything`);
    expect(res.status).toBe(500);
    expect(lines.some((l) => l.msg === "request failed" && l.level === 50)).toBe(true);
  });

  it("logs a client that hangs up as an aborted request, not an error", async () => {
    lines.length = 0;
    app = (request) =>
      new Promise((_, reject) => {
        request.signal.addEventListener("abort", () => reject(request.signal.reason));
      });
    await upload(0, 100);
    await waitUntil("the aborted request's log line", () =>
      lines.some((l) => l.msg === "request aborted"),
    );
    expect(lines.some((l) => l.level >= 50)).toBe(false);
    expect(await healthy()).toBe(200);
  });
});

describe("headers from data()", () => {
  it("reach the response unless React Router handles them itself", () => {
    const headers = passDataHeaders({
      parentHeaders: new Headers({ "X-Parent": "1" }),
      loaderHeaders: new Headers(),
      actionHeaders: new Headers({ "Retry-After": "42", "Set-Cookie": "a=b", Location: "/x" }),
      errorHeaders: undefined,
    });
    expect(headers.get("Retry-After")).toBe("42");
    expect(headers.get("X-Parent")).toBe("1");
    expect(headers.get("Set-Cookie")).toBeNull();
    expect(headers.get("Location")).toBeNull();
  });
});
