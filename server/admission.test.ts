import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { AdmissionQueue, type Release } from "./admission";
import { createNodeHandler } from "./http-handler";
import { laneFor } from "./lanes";

describe("admission queue", () => {
  it("admits up to the concurrency, then queues in arrival order", async () => {
    const queue = new AdmissionQueue({ concurrency: 2, queueLimit: 10 });
    const first = await queue.enter();
    const second = await queue.enter();
    expect(first).toBeTypeOf("function");
    expect(second).toBeTypeOf("function");
    const order: number[] = [];
    const waits = [3, 4, 5].map((n) =>
      queue.enter().then((release) => {
        order.push(n);
        return release;
      }),
    );
    expect(queue.stats).toMatchObject({ active: 2, waiting: 3 });
    first?.();
    second?.();
    const third = await waits[0];
    const fourth = await waits[1];
    expect(order).toEqual([3, 4]);
    expect(queue.stats).toMatchObject({ active: 2, waiting: 1 });
    third?.();
    const fifth = await waits[2];
    expect(order).toEqual([3, 4, 5]);
    fourth?.();
    fifth?.();
    expect(queue.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("refuses at once when the queue is full", async () => {
    const queue = new AdmissionQueue({ concurrency: 1, queueLimit: 1 });
    const running = await queue.enter();
    const queued = queue.enter();
    expect(await queue.enter()).toBeNull();
    running?.();
    const next = await queued;
    expect(next).toBeTypeOf("function");
    next?.();
  });

  it("a release counts once, however often it is called", async () => {
    const queue = new AdmissionQueue({ concurrency: 1, queueLimit: 5 });
    const release = (await queue.enter()) as Release;
    const queued = [queue.enter(), queue.enter()];
    release();
    release();
    // The turn is handed on after the event loop has polled the network (server/admission.ts).
    expect(queue.stats).toMatchObject({ active: 0, waiting: 2 });
    const first = await queued[0];
    expect(queue.stats).toMatchObject({ active: 1, waiting: 1 });
    first?.();
    (await queued[1])?.();
    expect(queue.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("drops a request aborted while it waits, and never admits an aborted one", async () => {
    const queue = new AdmissionQueue({ concurrency: 1, queueLimit: 5 });
    const running = await queue.enter();
    const gone = new AbortController();
    const abandoned = queue.enter(gone.signal);
    const kept = queue.enter();
    gone.abort();
    expect(await abandoned).toBeNull();
    expect(queue.stats).toMatchObject({ active: 1, waiting: 1 });
    running?.();
    const next = await kept;
    expect(next).toBeTypeOf("function");
    next?.();
    const aborted = new AbortController();
    aborted.abort();
    expect(await queue.enter(aborted.signal)).toBeNull();
    expect(queue.stats).toMatchObject({ active: 0, waiting: 0 });
  });
});

describe("lanes and fairness", () => {
  it("gives heavy requests their own turns: however many wait, page views keep theirs", async () => {
    const queue = new AdmissionQueue({ concurrency: 1, queueLimit: 10, heavyConcurrency: 1 });
    const heavy = await queue.enter(undefined, { lane: "heavy", client: "a" });
    const moreHeavy = [1, 2, 3].map((n) =>
      queue.enter(undefined, { lane: "heavy", client: `h${n}` }),
    );
    // A page view is admitted at once although heavy requests wait.
    const page = await queue.enter(undefined, { client: "b" });
    expect(page).toBeTypeOf("function");
    expect(queue.stats).toMatchObject({ active: 1, waiting: 0, heavyActive: 1, heavyWaiting: 3 });
    page?.();
    heavy?.();
    for (const next of moreHeavy) (await next)?.();
    expect(queue.stats).toMatchObject({ active: 0, heavyActive: 0, heavyWaiting: 0 });
  });

  it("gives sign-in its own turns: a sign-in does not wait behind queued page views", async () => {
    const queue = new AdmissionQueue({ concurrency: 1, queueLimit: 10, authConcurrency: 1 });
    const page = await queue.enter(undefined, { client: "a" });
    const queued = [1, 2, 3].map((n) => queue.enter(undefined, { client: `p${n}` }));
    expect(queue.stats).toMatchObject({ active: 1, waiting: 3 });
    const signIn = await queue.enter(undefined, { lane: "auth", client: "s" });
    expect(signIn).toBeTypeOf("function");
    expect(queue.stats).toMatchObject({ authActive: 1, authWaiting: 0, waiting: 3 });
    // A second sign-in waits for the first, not for the page views.
    const second = queue.enter(undefined, { lane: "auth", client: "t" });
    expect(queue.stats).toMatchObject({ authWaiting: 1 });
    signIn?.();
    (await second)?.();
    expect(queue.stats).toMatchObject({ authActive: 0, authWaiting: 0, waiting: 3 });
    page?.();
    for (const next of queued) (await next)?.();
    expect(queue.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("sends password and code requests to the auth lane, their pages and the rest elsewhere", () => {
    expect(laneFor("POST", "/auth/login")).toBe("auth");
    expect(laneFor("POST", "/auth/login.data")).toBe("auth");
    expect(laneFor("POST", "/auth/signup")).toBe("auth");
    expect(laneFor("POST", "/api/auth/sign-in/email")).toBe("auth");
    expect(laneFor("POST", "/auth/v1/token")).toBe("auth");
    expect(laneFor("GET", "/auth/login")).toBe("light");
    expect(laneFor("POST", "/feed")).toBe("light");
    expect(laneFor("GET", "/search")).toBe("heavy");
  });

  it("goes round the clients: one client's many requests do not wait in front of another's", async () => {
    const queue = new AdmissionQueue({ concurrency: 1, queueLimit: 20, perClientQueueLimit: 10 });
    const running = await queue.enter(undefined, { client: "busy" });
    const order: string[] = [];
    const wait = (client: string, n: number) =>
      queue.enter(undefined, { client }).then((release) => {
        order.push(`${client}${n}`);
        release?.();
      });
    const all = [
      ...[1, 2, 3, 4, 5].map((n) => wait("tabs", n)),
      wait("other", 1),
      wait("third", 1),
    ];
    running?.();
    await Promise.all(all);
    expect(order).toEqual(["tabs1", "other1", "third1", "tabs2", "tabs3", "tabs4", "tabs5"]);
  });

  it("refuses a client over its share of the queue, and nobody else", async () => {
    const queue = new AdmissionQueue({ concurrency: 1, queueLimit: 100, perClientQueueLimit: 2 });
    const running = await queue.enter(undefined, { client: "x" });
    const kept = [
      queue.enter(undefined, { client: "scraper" }),
      queue.enter(undefined, { client: "scraper" }),
    ];
    expect(await queue.enter(undefined, { client: "scraper" })).toBeNull();
    const someoneElse = queue.enter(undefined, { client: "person" });
    expect(queue.stats).toMatchObject({ waiting: 3, shed: 1 });
    running?.();
    // Each is let go as soon as it is admitted (round the clients: scraper, person, scraper).
    await Promise.all([...kept, someoneElse].map((next) => next.then((release) => release?.())));
  });

  it("answers a heavy request that waited past its deadline with a refusal", async () => {
    vi.useFakeTimers();
    try {
      const queue = new AdmissionQueue({
        concurrency: 1,
        queueLimit: 10,
        heavyConcurrency: 1,
        heavyMaxWaitMs: 1000,
      });
      const running = await queue.enter(undefined, { lane: "heavy" });
      const late = queue.enter(undefined, { lane: "heavy", client: "late" });
      vi.advanceTimersByTime(1001);
      expect(await late).toBeNull();
      expect(queue.stats).toMatchObject({ heavyWaiting: 0, shed: 1 });
      running?.();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the server with a bounded number of requests at once", () => {
  it("answers in arrival order, and a request beyond the queue gets a 503 page at once", async () => {
    const gates: Array<() => void> = [];
    const started: string[] = [];
    const logger = pino({ level: "silent" });
    const handler = createNodeHandler({
      handleRequest: async (request) => {
        const path = new URL(request.url).pathname;
        if (path === "/events") {
          return new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(": open\n\n"));
              },
            }),
            {
              headers: { "Content-Type": "text/event-stream" },
            },
          );
        }
        if (path === "/settings/listening") return new Response("took the history");
        started.push(path);
        await new Promise<void>((resolve) => gates.push(resolve));
        return new Response(`done ${path}`);
      },
      isReady: async () => true,
      isShuttingDown: () => false,
      clientDir: null,
      allowedOrigins: ["http://app.test"],
      trustProxy: false,
      securityHeaders: { "X-Content-Type-Options": "nosniff" },
      logger,
      admission: new AdmissionQueue({ concurrency: 1, queueLimit: 1 }),
    });
    const server = http.createServer(handler.onRequest);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // A live event stream takes its turn only until it has started.
      const events = await fetch(`${base}/events`);
      expect(events.status).toBe(200);
      const first = fetch(`${base}/first`);
      await vi.waitFor(() => expect(started).toEqual(["/first"]));
      const second = fetch(`${base}/second`);
      // The queue (1) is taken by /second: the next request is refused at once, in the form
      // the client asked for, and never reaches the app.
      await vi.waitFor(async () => {
        const page = await fetch(`${base}/third`, { headers: { Accept: "text/html" } });
        expect(page.status).toBe(503);
        expect(page.headers.get("Retry-After")).toBe("2");
        expect(page.headers.get("X-Content-Type-Options")).toBe("nosniff");
        expect(await page.text()).toContain("Soundtrail is very busy right now");
      });
      const json = await fetch(`${base}/api/thing`, { headers: { Accept: "application/json" } });
      expect(json.status).toBe(503);
      expect(await json.json()).toMatchObject({ code: "busy" });
      const data = await fetch(`${base}/feed.data`);
      expect(data.status).toBe(503);
      expect(data.headers.get("Content-Type")).toContain("text/plain");
      expect(started).toEqual(["/first"]);
      // An upload arrives at the sender's pace: it takes no turn, so it is served even now.
      const history = await fetch(`${base}/settings/listening`, {
        method: "POST",
        headers: {
          Origin: "http://app.test",
          "Content-Type": "multipart/form-data; boundary=x",
        },
        body: '--x\r\nContent-Disposition: form-data; name="files"; filename="h.json"\r\n\r\n[]\r\n--x--\r\n',
      });
      expect(history.status).toBe(200);
      expect(await history.text()).toBe("took the history");
      gates.shift()?.();
      expect(await (await first).text()).toBe("done /first");
      await vi.waitFor(() => expect(started).toEqual(["/first", "/second"]));
      gates.shift()?.();
      expect(await (await second).text()).toBe("done /second");
      await events.body?.cancel();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe("a turn covers the server's work, not the client's download", () => {
  it("admits the next request while an earlier answer is still streaming to its client", async () => {
    let finishDownload: () => void = () => {};
    const handler = createNodeHandler({
      handleRequest: async (request) => {
        const path = new URL(request.url).pathname;
        if (path === "/big") {
          // The answer is ready; its body trickles out until the gate opens (a slow client).
          return new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode("part one\n"));
                finishDownload = () => {
                  controller.enqueue(new TextEncoder().encode("part two\n"));
                  controller.close();
                };
              },
            }),
          );
        }
        return new Response(`done ${path}`);
      },
      isReady: async () => true,
      isShuttingDown: () => false,
      clientDir: null,
      allowedOrigins: ["http://app.test"],
      trustProxy: false,
      securityHeaders: {},
      logger: pino({ level: "silent" }),
      admission: new AdmissionQueue({ concurrency: 1, queueLimit: 0 }),
    });
    const server = http.createServer(handler.onRequest);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const big = await fetch(`${base}/big`);
      const reader = big.body?.getReader();
      expect(new TextDecoder().decode((await reader?.read())?.value)).toBe("part one\n");
      // With one turn and no queue, this would be a 503 if the download still held the turn.
      const page = await fetch(`${base}/page`);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe("done /page");
      finishDownload();
      expect(new TextDecoder().decode((await reader?.read())?.value)).toBe("part two\n");
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
