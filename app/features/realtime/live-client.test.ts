import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "../../../tests/support/wait-for";
import { LiveClient, type LiveStatus, parseEventStream } from "./live-client";
import { HEARTBEAT_MS, type LiveEvent, RECONNECT_DELAYS_MS, SILENCE_TIMEOUT_MS } from "./protocol";

describe("parseEventStream", () => {
  it("splits complete events, keeps the partial rest, and ignores comments", () => {
    const { events, rest } = parseEventStream(
      ': hello\n\nid: 7\nevent: notification\ndata: {"a":1}\n\nevent: unread\r\ndata: {"count"',
    );
    expect(events).toEqual([{ id: "7", event: "notification", data: '{"a":1}' }]);
    expect(rest).toBe('event: unread\ndata: {"count"');
  });

  it("joins multi-line data", () => {
    expect(parseEventStream("data: a\ndata: b\n\n").events[0]?.data).toBe("a\nb");
  });
});

/** A real HTTP server whose answer to each connection the test scripts. */
let server: http.Server;
let url: string;
const requests: { lastEventId: string | undefined }[] = [];
let respond: (res: http.ServerResponse, n: number) => void = () => {};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push({ lastEventId: req.headers["last-event-id"] as string | undefined });
    respond(res, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/events`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Timers the test fires by hand, recording each delay asked for. */
function manualTimers() {
  let next = 1;
  const pending = new Map<number, { fn: () => void; ms: number }>();
  return {
    delays: [] as number[],
    setTimeout(fn: () => void, ms: number) {
      const id = next++;
      pending.set(id, { fn, ms });
      this.delays.push(ms);
      return id;
    },
    clearTimeout(id: unknown) {
      pending.delete(id as number);
    },
    /** Fires the pending timer of `ms` (the newest one). */
    fire(ms: number) {
      const entry = [...pending.entries()].reverse().find(([, t]) => t.ms === ms);
      if (!entry)
        throw new Error(
          `no pending ${ms} ms timer (have ${[...pending.values()].map((t) => t.ms)})`,
        );
      pending.delete(entry[0]);
      entry[1].fn();
    },
    has(ms: number) {
      return [...pending.values()].some((t) => t.ms === ms);
    },
  };
}

/** Waits for what the stream should show (a generous deadline: the machine may be busy). */
const until = (check: () => boolean, what: string) => waitUntil(what, check);

function frame(type: string, data: unknown, id?: number) {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

describe("LiveClient", () => {
  it("reconnects after 1, 2, 5 and then every 10 s, asking for what it missed, showing nothing twice", async () => {
    requests.length = 0;
    respond = (res, n) => {
      if (n <= 4) {
        res.writeHead(503).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(frame("ready", { heartbeatMs: HEARTBEAT_MS }));
      if (n === 5) {
        res.write(frame("notification", { id: "a", seq: 12 }, 12));
        res.end(); // the server goes away
      } else {
        // A repeat of 12 (must be dropped), then news.
        res.write(frame("notification", { id: "a", seq: 12 }, 12));
        res.write(frame("notification", { id: "b", seq: 13 }, 13));
      }
    };
    const timers = manualTimers();
    const events: LiveEvent[] = [];
    const statuses: LiveStatus[] = [];
    const client = new LiveClient({
      url,
      after: 10,
      onEvent: (e) => events.push(e),
      onStatus: (s) => statuses.push(s),
      setTimeout: (fn, ms) => timers.setTimeout(fn, ms),
      clearTimeout: (id) => timers.clearTimeout(id),
    });
    client.start();
    for (const [i, delay] of [1_000, 2_000, 5_000, 10_000].entries()) {
      await until(() => timers.has(delay) && requests.length === i + 1, `retry after ${delay}`);
      timers.fire(delay);
    }
    await until(() => events.length === 2, "ready and the first notification");
    expect(requests[0]?.lastEventId).toBe("10");
    // The stream ended: the next try comes 1 s later (the backoff started over once it worked).
    await until(() => timers.has(1_000), "retry after the stream ended");
    timers.fire(1_000);
    await until(() => events.length === 4, "the missed notification");
    expect(requests[5]?.lastEventId).toBe("12");
    expect(events.map((e) => e.type)).toEqual(["ready", "notification", "ready", "notification"]);
    expect(events.filter((e) => e.type === "notification").map((e) => e.data.seq)).toEqual([
      12, 13,
    ]);
    expect(statuses).toContain("reconnecting");
    expect(statuses.at(-1)).toBe("open");
    client.stop();
    expect(RECONNECT_DELAYS_MS).toEqual([1_000, 2_000, 5_000, 10_000]);
  });

  it("treats 10 s of silence after connecting as a failure, and a missed heartbeat too", async () => {
    requests.length = 0;
    respond = (res, n) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      // The first connection says nothing at all; the second says ready, then nothing.
      if (n >= 2) res.write(frame("ready", { heartbeatMs: HEARTBEAT_MS }));
    };
    const timers = manualTimers();
    const statuses: LiveStatus[] = [];
    const client = new LiveClient({
      url,
      after: 0,
      onEvent: () => {},
      onStatus: (s) => statuses.push(s),
      setTimeout: (fn, ms) => timers.setTimeout(fn, ms),
      clearTimeout: (id) => timers.clearTimeout(id),
    });
    client.start();
    await until(() => requests.length === 1, "the first connection");
    timers.fire(SILENCE_TIMEOUT_MS);
    await until(() => timers.has(1_000), "a retry after the silent connection");
    timers.fire(1_000);
    await until(() => statuses.at(-1) === "open", "the second connection");
    // After `ready`, silence is allowed up to a heartbeat plus 10 s.
    timers.fire(HEARTBEAT_MS + SILENCE_TIMEOUT_MS);
    await until(() => statuses.at(-1) === "reconnecting", "the missed heartbeat");
    client.stop();
    expect(statuses.at(-1)).toBe("stopped");
  });

  it("stops for good when the server says the person is signed out", async () => {
    requests.length = 0;
    respond = (res) => res.writeHead(401).end();
    const statuses: LiveStatus[] = [];
    const timers = manualTimers();
    const client = new LiveClient({
      url,
      after: 0,
      onEvent: () => {},
      onStatus: (s) => statuses.push(s),
      setTimeout: (fn, ms) => timers.setTimeout(fn, ms),
      clearTimeout: (id) => timers.clearTimeout(id),
    });
    client.start();
    await until(() => statuses.at(-1) === "stopped", "the refusal");
    expect(requests).toHaveLength(1);
    expect(timers.has(1_000)).toBe(false);
  });
});
