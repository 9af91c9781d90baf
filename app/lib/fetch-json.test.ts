import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FetchJsonError, fetchJson } from "./fetch-json";

// A real HTTP server whose answers are scripted per test: a queue of statuses (or "drop"
// to cut the connection, which fetch sees as a network failure).
let server: Server;
let base: string;
let script: (number | "drop")[] = [];
let hits: { method: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      hits.push({ method: req.method ?? "", body });
      const next = script.shift() ?? 200;
      if (next === "drop") {
        req.socket.destroy();
        return;
      }
      res.writeHead(next, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify(
          next < 400 ? { ok: true, attempt: hits.length } : { message: `failed ${next}` },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  script = [];
  hits = [];
});

describe("fetchJson", () => {
  it.each([408, 409, 425, 429, 500, 502, 503, 504])(
    "retries a GET once after a %i and returns the second answer",
    async (status) => {
      script = [status, 200];
      await expect(fetchJson(`${base}/x`, { retryDelayMs: 1 })).resolves.toEqual({
        ok: true,
        attempt: 2,
      });
      expect(hits).toHaveLength(2);
    },
  );

  it("retries a GET once after a network failure", async () => {
    script = ["drop", 200];
    await expect(fetchJson(`${base}/x`, { retryDelayMs: 1 })).resolves.toMatchObject({ ok: true });
    expect(hits).toHaveLength(2);
  });

  it("gives up after one retry and reports the server's message", async () => {
    script = [503, 503, 200];
    const error = await fetchJson(`${base}/x`, { retryDelayMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchJsonError);
    expect((error as FetchJsonError).status).toBe(503);
    expect((error as FetchJsonError).message).toBe("failed 503");
    expect(hits).toHaveLength(2);
  });

  it("does not retry a non-retryable status such as 404", async () => {
    script = [404, 200];
    await expect(fetchJson(`${base}/x`, { retryDelayMs: 1 })).rejects.toMatchObject({
      status: 404,
    });
    expect(hits).toHaveLength(1);
  });

  it.each(["POST", "PUT", "PATCH", "DELETE"])("never retries a %s", async (method) => {
    script = [503, 200];
    await expect(
      fetchJson(`${base}/x`, { method, body: { a: 1 }, retryDelayMs: 1 }),
    ).rejects.toMatchObject({ status: 503 });
    expect(hits).toHaveLength(1);
  });

  it("never retries a POST after a network failure", async () => {
    script = ["drop", 200];
    await expect(fetchJson(`${base}/x`, { method: "POST", retryDelayMs: 1 })).rejects.toThrow();
    expect(hits).toHaveLength(1);
  });

  it("sends object bodies as JSON", async () => {
    await fetchJson(`${base}/x`, { method: "POST", body: { name: "Björk" } });
    expect(JSON.parse(hits[0]?.body ?? "")).toEqual({ name: "Björk" });
  });
});
