import { mkdtempSync } from "node:fs";
import http from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { killOwnServers, sparePort, startOwnServer, waitForReady } from "./own-server";

test.describe("server lifecycle", () => {
  // Each test starts servers of its own; on two busy cores a start alone can take 10 s.
  test.describe.configure({ timeout: 90_000 });
  test.afterEach(() => killOwnServers());

  test("a bad setting stops the server with a message naming the variable", async () => {
    const server = startOwnServer({
      PORT: "not-a-port",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "st-")),
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("PORT");
  });

  test("SIGTERM finishes cleanly and the data survives a restart", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "st-life-"));
    const port = sparePort(1);
    const first = startOwnServer({ PORT: String(port), DATA_DIR: dataDir });
    await waitForReady(first, port);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // A request in flight when the signal arrives still gets its answer.
    const inFlight = fetch(`http://127.0.0.1:${port}/feed`);
    first.child.kill("SIGTERM");
    expect((await inFlight).status).toBe(200);
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain("database closed");

    const second = startOwnServer({ PORT: String(port), DATA_DIR: dataDir });
    await waitForReady(second, port);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  test("a second server on the same data directory refuses to start", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "st-lock-"));
    const owner = startOwnServer({ PORT: String(sparePort(2)), DATA_DIR: dataDir });
    await waitForReady(owner, sparePort(2));
    const intruder = startOwnServer({ PORT: String(sparePort(3)), DATA_DIR: dataDir });
    expect(await intruder.exited).toBe(1);
    expect(intruder.output()).toContain("in use by another Soundtrail process");
    owner.child.kill("SIGTERM");
    expect(await owner.exited).toBe(0);
  });

  test("an unreachable PostgreSQL server is reported clearly", async () => {
    const server = startOwnServer({
      PORT: String(sparePort(4)),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "st-")),
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/soundtrail",
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("Cannot reach PostgreSQL at 127.0.0.1:1/soundtrail");
  });

  test("SIGTERM under load: not ready first, every request on the wire answered, a quick exit", async () => {
    const port = sparePort(5);
    const server = startOwnServer({
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "st-drain-")),
      SHUTDOWN_DRAIN_SECONDS: "2",
    });
    await waitForReady(server, port);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const get = (pathname: string) =>
      new Promise<number | string>((resolve) => {
        const request = http.get({ host: "127.0.0.1", port, path: pathname, agent }, (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        });
        request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
    // Eight clients on keep-alive connections, asking again as soon as they are answered.
    let stopAt = Number.POSITIVE_INFINITY;
    const outcomes: (number | string)[] = [];
    const client = async () => {
      while (Date.now() < stopAt) outcomes.push(await get("/healthz"));
    };
    const clients = Array.from({ length: 8 }, client);
    // And one connection that was opened and never used.
    const idle = connect(port, "127.0.0.1");
    idle.on("error", () => {});
    // And one opened now whose request is sent only once the server stopped listening (a
    // request in flight as the listener closes): it is answered, not reset.
    const late = connect(port, "127.0.0.1");
    let lateAnswer = "";
    const lateOutcome = new Promise<string>((resolve) => {
      late.on("data", (chunk) => {
        lateAnswer += chunk;
      });
      late.on("close", () => resolve(lateAnswer));
      late.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalledAt = Date.now();
    server.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Draining: still serving, but telling the load balancer to stop sending.
    expect(await get("/readyz")).toBe(503);
    // Stop asking before the drain ends, as a load balancer would have.
    stopAt = signalledAt + 1_500;
    await Promise.all(clients);
    expect(outcomes.length).toBeGreaterThan(20);
    expect(outcomes.filter((outcome) => outcome !== 200)).toEqual([]);
    // The listener is closed once a new connection is refused.
    for (;;) {
      const refused = await new Promise<boolean>((resolve) => {
        const probe = connect(port, "127.0.0.1");
        probe.on("connect", () => {
          probe.destroy();
          resolve(false);
        });
        probe.on("error", () => resolve(true));
      });
      if (refused) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    late.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const answer = await lateOutcome;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(await server.exited).toBe(0);
    agent.destroy();
    idle.destroy();
    // The 10 s force timer was not needed: idle keep-alive sockets did not hold the exit.
    expect(Date.now() - signalledAt).toBeLessThan(7_000);
  });
});
