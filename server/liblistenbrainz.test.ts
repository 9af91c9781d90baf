import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { follows, listenTokens } from "~/db/schema";
import { hashListenToken } from "~/features/journey/listenbrainz/tokens.server";
import {
  insertAccounts,
  type LiveAccount,
  type LiveServer,
  startLiveServer,
} from "../tests/support/live-server";

/**
 * The real Python client, metabrainz/liblistenbrainz (vendored unchanged under
 * tests/support/liblistenbrainz), run with Debian's python3 and python3-requests against the
 * production build: every method it has, submit and read, and what it raises when a read is
 * refused. Then the raw HTTP a player sends with a base URL that ends in a slash.
 */

vi.setConfig({ testTimeout: 300_000 });

const SCRIPT = fileURLToPath(
  new URL("../tests/support/liblistenbrainz/run_client.py", import.meta.url),
);

function person(name: string): LiveAccount & { token: string } {
  return {
    id: `lb-${name}`,
    email: `${name}@liblistenbrainz.test`,
    username: `lb_${name}`,
    displayName: name,
    token: randomUUID(),
  };
}

const OWNER = person("owner");
const FAN = person("fan");
const STRANGER = person("stranger");

let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer({
    seed: async (db) => {
      await insertAccounts(db, [OWNER, FAN, STRANGER]);
      for (const who of [OWNER, FAN, STRANGER]) {
        await db.insert(listenTokens).values({
          userId: who.id,
          name: "liblistenbrainz",
          tokenHash: hashListenToken(who.token),
          hint: who.token.slice(-4),
        });
      }
      // The owner's journey keeps the default audience: their followers.
      await db.insert(follows).values({ followerId: FAN.id, followeeId: OWNER.id });
    },
  });
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

function runClient(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
    const who = (p: typeof OWNER) => ({ name: p.username, token: p.token });
    child.stdin.end(
      JSON.stringify({
        base: server.base,
        owner: who(OWNER),
        fan: who(FAN),
        stranger: who(STRANGER),
      }),
    );
  });
}

describe("liblistenbrainz against Soundtrail", () => {
  it("passes every call the client has, submit and read", async () => {
    const { code, output } = await runClient();
    if (code !== 0)
      throw new Error(`liblistenbrainz failed:\n${output}\n--- server ---\n${server.output()}`);
    const checks = output.split("\n").filter((line) => line.startsWith("ok "));
    // Every check the script makes passed (one "ok" line each).
    const written = readFileSync(SCRIPT, "utf8").match(/^\s*check\(/gm) ?? [];
    expect(checks.length).toBe(written.length);
    expect(output).toContain("ok get_listens (min_ts)");
    expect(output).toContain("ok delete_listen");
    expect(output).toContain("ok get_user_feedback");
    expect(output).toContain("ok a stranger gets ListenBrainz's 403");
    expect(output.trim().endsWith("done")).toBe(true);
  });

  it("answers a doubled slash before /1 as the endpoint, and every /1 error as ListenBrainz JSON", async () => {
    const body = JSON.stringify({
      listen_type: "single",
      payload: [
        {
          listened_at: Math.floor(Date.now() / 1000) - 5,
          track_metadata: { artist_name: "Low", track_name: "Sunflower" },
        },
      ],
    });
    const submitted = await fetch(`${server.base}//1/submit-listens`, {
      method: "POST",
      headers: { Authorization: `Token ${FAN.token}`, "Content-Type": "application/json" },
      body,
    });
    expect(submitted.status).toBe(200);
    expect(await submitted.json()).toEqual({ status: "ok" });
    const read = await fetch(`${server.base}//1/user/${FAN.username}/listens?count=1`, {
      headers: { Authorization: `Token ${FAN.token}` },
    });
    const listens = (await read.json()) as {
      payload: { listens: { track_metadata: { track_name: string } }[] };
    };
    expect(listens.payload.listens[0]?.track_metadata.track_name).toBe("Sunflower");

    for (const [path, init, status] of [
      ["//1/nothing-here", {}, 404],
      ["/1/submit-listens", { method: "GET" }, 405],
      [
        "/1/submit-listens",
        { method: "POST", body: "{}", headers: { "Content-Type": "text/plain" } },
        401,
      ],
      [`/1/user/${OWNER.username}/listens`, { headers: { Authorization: "Token nope" } }, 401],
    ] as const) {
      const answer = await fetch(`${server.base}${path}`, init as RequestInit);
      expect({ path, status: answer.status }).toEqual({ path, status });
      expect(answer.headers.get("content-type")).toContain("application/json");
      expect(answer.headers.get("access-control-allow-origin")).toBe("*");
      const json = (await answer.json()) as { code: number; error: string };
      expect(json.code).toBe(status);
      expect(json.error.length).toBeGreaterThan(0);
    }
  });
});
