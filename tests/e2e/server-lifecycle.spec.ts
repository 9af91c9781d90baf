import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

// These tests start their own server processes from the e2e build (made by the webServer).
const BUILD_DIR = process.env.SOUNDTRAIL_BUILD_DIR ?? "build-e2e";

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startServer(env: Record<string, string>): Started {
  let output = "";
  const child = spawn(process.execPath, [path.join(BUILD_DIR, "server.mjs")], {
    env: { ...process.env, NODE_ENV: "production", SOUNDTRAIL_BUILD_DIR: BUILD_DIR, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitForReady(port: number) {
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
        } catch {
          return 0;
        }
      },
      { timeout: 30_000 },
    )
    .toBe(200);
}

test.describe("server lifecycle", () => {
  test("a bad setting stops the server with a message naming the variable", async () => {
    const server = startServer({
      PORT: "not-a-port",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "st-")),
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("PORT");
  });

  test("SIGTERM finishes cleanly and the data survives a restart", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "st-life-"));
    const port = 3191;
    const first = startServer({ PORT: String(port), DATA_DIR: dataDir });
    await waitForReady(port);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // A request in flight when the signal arrives still gets its answer.
    const inFlight = fetch(`http://127.0.0.1:${port}/feed`);
    first.child.kill("SIGTERM");
    expect((await inFlight).status).toBe(200);
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain("database closed");

    const second = startServer({ PORT: String(port), DATA_DIR: dataDir });
    await waitForReady(port);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  test("a second server on the same data directory refuses to start", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "st-lock-"));
    const owner = startServer({ PORT: "3192", DATA_DIR: dataDir });
    await waitForReady(3192);
    const intruder = startServer({ PORT: "3193", DATA_DIR: dataDir });
    expect(await intruder.exited).toBe(1);
    expect(intruder.output()).toContain("in use by another Soundtrail process");
    owner.child.kill("SIGTERM");
    expect(await owner.exited).toBe(0);
  });

  test("an unreachable PostgreSQL server is reported clearly", async () => {
    const server = startServer({
      PORT: "3194",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "st-")),
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/soundtrail",
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("Cannot reach PostgreSQL at 127.0.0.1:1/soundtrail");
  });
});
