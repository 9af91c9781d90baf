import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { sparePort, startOwnServer, waitForReady } from "./own-server";

test.describe("server lifecycle", () => {
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
});
