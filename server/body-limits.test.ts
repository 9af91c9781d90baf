import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMITS, bodyClassFor, checkDeclaredBody } from "~/body-limits.server";
import { freePort } from "../tests/support/ports";
import { productionBuild } from "../tests/support/production-build";

/*
 * The production server over real sockets, fed what attackers and broken clients send: bodies
 * over each route class's limit (declared, and chunked with no length), bodies where none
 * belongs, missing and wrong content types — signed out and signed in as a guest. Every answer
 * is a 413, 400 or 415, and the server is still up at the end. The app build is reused
 * (tests/support/production-build.ts: one build shared by the server suites, made again when
 * app/ or server/ changed), node server included, so this tests the code as it is.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MB = 1024 * 1024;

describe("body classes", () => {
  it.each([
    ["GET", "/feed", "none"],
    ["HEAD", "/", "none"],
    ["OPTIONS", "/api/like", "none"],
    ["POST", "/feed", "upload"],
    ["POST", "/feed.data", "upload"],
    ["POST", "/FEED/", "upload"],
    ["POST", "/post/abc/edit.data", "upload"],
    ["POST", "/settings/profile", "upload"],
    ["POST", "/settings/listening", "history"],
    ["POST", "/settings/listening.data", "history"],
    ["POST", "/settings/listening/other", "form"],
    ["POST", "/post/abc", "form"],
    ["POST", "/auth/login", "form"],
    ["POST", "/_root.data", "form"],
    ["DELETE", "/api/follow", "form"],
    ["POST", "/api/send-email-batch", "json"],
    ["POST", "/admin/email.data", "json"],
    ["POST", "/auth/v1/token", "api"],
    ["PUT", "/auth/v1/user", "api"],
    ["DELETE", "/auth/v1/factors/x", "api"],
    ["POST", "/1/submit-listens", "listenbrainz"],
    ["POST", "/1/submit-listens/", "listenbrainz"],
    // Navidrome's validate-token is a GET carrying "{}".
    ["GET", "/1/validate-token", "listenbrainz"],
    ["OPTIONS", "/1/submit-listens", "listenbrainz"],
    ["POST", "/%66eed", "upload"],
    ["POST", "/%E0%A4%A", "form"],
  ] as const)("%s %s takes a %s body", (method, pathname, expected) => {
    expect(bodyClassFor(method, pathname)).toBe(expected);
  });

  it("refuses from the headers alone", () => {
    const form = "application/x-www-form-urlencoded";
    expect(checkDeclaredBody("none", { "content-length": "1" })?.status).toBe(413);
    expect(checkDeclaredBody("none", { "transfer-encoding": "chunked" })?.status).toBe(413);
    expect(checkDeclaredBody("none", { "content-length": "0" })).toBeNull();
    expect(checkDeclaredBody("form", { "content-type": form, "content-length": "1e3" })).toEqual(
      expect.objectContaining({ status: 400 }),
    );
    expect(
      checkDeclaredBody("form", {
        "content-type": form,
        "content-length": String(BODY_LIMITS.form + 1),
      })?.status,
    ).toBe(413);
    expect(checkDeclaredBody("form", { "content-type": form })).toBeNull();
    expect(checkDeclaredBody("form", {})?.status).toBe(415);
    expect(checkDeclaredBody("form", { "content-type": "application/json" })?.status).toBe(415);
    expect(checkDeclaredBody("form", { "content-type": "multipart/form-data" })?.status).toBe(400);
    expect(checkDeclaredBody("upload", { "content-type": "multipart/form-data; boundary=x" })).toBe(
      null,
    );
    expect(checkDeclaredBody("json", { "content-type": form })?.status).toBe(415);
    expect(checkDeclaredBody("json", { "content-type": "application/json; charset=utf-8" })).toBe(
      null,
    );
    // The token API: JSON, or no body at all (a bodiless POST /logout).
    expect(checkDeclaredBody("api", { "content-type": "application/json;charset=UTF-8" })).toBe(
      null,
    );
    expect(checkDeclaredBody("api", {})).toBeNull();
    expect(checkDeclaredBody("api", { "content-length": "0", "content-type": form })).toBeNull();
    expect(checkDeclaredBody("api", { "content-length": "5", "content-type": form })?.status).toBe(
      415,
    );
    expect(
      checkDeclaredBody("api", {
        "content-type": "application/json",
        "content-length": String(BODY_LIMITS.api + 1),
      })?.status,
    ).toBe(413);
    // The ListenBrainz API: any Content-Type (players send none, or text/plain), and
    // ListenBrainz's own 400 over its payload limit.
    expect(checkDeclaredBody("listenbrainz", { "content-length": "2" })).toBeNull();
    expect(checkDeclaredBody("listenbrainz", { "content-type": "text/plain" })).toBeNull();
    expect(
      checkDeclaredBody("listenbrainz", { "content-length": String(BODY_LIMITS.listenbrainz + 1) }),
    ).toEqual({ status: 400, message: "Payload too large. Payload cannot exceed 10240000 bytes" });
  });
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Attempt {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** Bytes to send; sent in 64 KB chunks, chunked unless `contentLength` is given. */
  size?: number;
  /** A Content-Length to declare (whatever is actually sent). */
  contentLength?: number;
  /** Exact bytes to send instead of `size` filler. */
  body?: string;
}

let port = 0;
let base = "";

/**
 * One request on its own connection. The body goes out with backpressure while the answer is
 * read; sending stops when the server answers or closes (a refused body is not sent in full).
 */
function send(attempt: Attempt): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Origin: base, ...attempt.headers };
    if (attempt.contentLength !== undefined) {
      headers["Content-Length"] = String(attempt.contentLength);
    } else if (attempt.body === undefined && attempt.size !== undefined) {
      headers["Transfer-Encoding"] = "chunked";
    } else if (attempt.body !== undefined) {
      headers["Content-Length"] = String(Buffer.byteLength(attempt.body));
    }
    let hasAnswer = false;
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: attempt.method ?? "POST",
      path: attempt.path,
      headers,
      agent: false,
    });
    req.on("response", (res) => {
      hasAnswer = true;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      const done = () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        });
      res.on("end", done);
      res.on("error", done);
      res.on("aborted", done);
    });
    req.on("error", (error) => {
      if (!hasAnswer) reject(error);
    });
    void (async () => {
      if (attempt.body !== undefined) {
        req.end(attempt.body);
        return;
      }
      req.flushHeaders();
      const chunk = Buffer.alloc(64 * 1024, "a");
      let left = attempt.size ?? 0;
      while (left > 0 && !hasAnswer && !req.destroyed) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!req.write(piece)) {
          await new Promise<void>((resolve) => {
            const go = () => {
              req.off("drain", go);
              req.off("close", go);
              req.off("response", go);
              resolve();
            };
            req.on("drain", go);
            req.on("close", go);
            req.on("response", go);
          });
        }
      }
      if (!req.destroyed && attempt.contentLength === undefined) req.end();
    })();
  });
}

describe("body limits and malformed requests", () => {
  let child: ChildProcess;
  let output = "";
  let dataDir = "";
  let guestCookie = "";

  beforeAll(async () => {
    const buildDir = await productionBuild();
    // The server as the build has it (server/index.ts is built with the app, and a change to
    // it makes a new build).
    const entry = path.join(buildDir, "server.mjs");
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dataDir = mkdtempSync(path.join(tmpdir(), "st-limits-"));
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (!key.startsWith("VITEST") && key !== "DATABASE_URL" && key !== "SMTP_URL") {
        env[key] = value;
      }
    }
    child = spawn(process.execPath, [entry], {
      cwd: ROOT,
      env: {
        ...env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: base,
        DATA_DIR: dataDir,
        SOUNDTRAIL_BUILD_DIR: buildDir,
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d) => {
      output += d;
    });
    child.stderr?.on("data", (d) => {
      output += d;
    });
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
      const ready = await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the server did not get ready:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const guest = await fetch(`${base}/auth/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
      body: "intent=guest",
    });
    guestCookie = guest.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect(guestCookie).toContain("session_token");
  }, 300_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const who = () =>
    [
      ["signed out", {}],
      ["a guest", { Cookie: guestCookie }],
    ] as const;

  const multipart = { "Content-Type": "multipart/form-data; boundary=XXX" };
  const urlencoded = { "Content-Type": "application/x-www-form-urlencoded" };
  const json = { "Content-Type": "application/json" };
  /** A body-bearing route of each class, with a content type it accepts. */
  const routes = [
    { path: "/feed", limit: BODY_LIMITS.upload, headers: multipart },
    { path: "/feed.data", limit: BODY_LIMITS.upload, headers: multipart },
    {
      path: "/post/00000000-0000-4000-8000-000000000000/edit",
      limit: BODY_LIMITS.upload,
      headers: multipart,
    },
    { path: "/auth/login", limit: BODY_LIMITS.form, headers: urlencoded },
    { path: "/settings.data", limit: BODY_LIMITS.form, headers: urlencoded },
    { path: "/api/like", limit: BODY_LIMITS.form, headers: multipart },
    { path: "/post/x", limit: BODY_LIMITS.form, headers: urlencoded },
    { path: "/api/send-email-batch", limit: BODY_LIMITS.json, headers: json },
    { path: "/admin/email.data", limit: BODY_LIMITS.json, headers: json },
  ];

  it("answers 413 to a declared length over the limit of every route class, reading nothing", async () => {
    for (const [, identity] of who()) {
      for (const route of routes) {
        const answer = await send({
          path: route.path,
          headers: { ...route.headers, ...identity },
          contentLength: route.limit + 1,
          size: 16 * 1024,
        });
        expect(answer.status, `${route.path} ${JSON.stringify(identity)}`).toBe(413);
      }
    }
  });

  it("answers 413 to a chunked body as soon as it passes the limit (or ends it unread)", async () => {
    for (const [label, identity] of who()) {
      for (const route of routes) {
        const answer = await send({
          path: route.path,
          headers: { ...route.headers, ...identity },
          size: route.limit + 2 * MB,
        });
        // Forms are read (and cut at the limit) before the app. Other routes may refuse before
        // reading (a sign-in redirect — 202 for .data —, 401/403, a missing post): then the body
        // is never read.
        if (route.limit === BODY_LIMITS.form || (label === "a guest" && route.path === "/feed")) {
          expect(answer.status, `${route.path} as ${label}`).toBe(413);
        } else {
          expect([202, 302, 401, 403, 404, 413], `${route.path} as ${label}`).toContain(
            answer.status,
          );
        }
      }
    }
  });

  it("refuses a body on GET and HEAD", async () => {
    for (const method of ["GET", "HEAD"]) {
      for (const path of ["/", "/feed", "/api/events", "/media/x"]) {
        expect((await send({ method, path, contentLength: 10, body: undefined })).status).toBe(413);
        expect((await send({ method, path, size: 1024 })).status).toBe(413);
      }
    }
  });

  it("answers 415 or 400 to missing, wrong and malformed content types — never 500", async () => {
    const bad: Array<[string, Record<string, string>, string, number]> = [
      ["/auth/login", {}, "intent=guest", 415],
      ["/auth/login", json, '{"intent":"guest"}', 415],
      ["/auth/login", { "Content-Type": "text/plain" }, "intent=guest", 415],
      ["/auth/login", { "Content-Type": "multipart/form-data" }, "x", 400],
      ["/auth/login", multipart, "--XXX\r\nnot a part", 400],
      ["/api/like", {}, "", 415],
      ["/settings", json, "{}", 415],
      ["/feed", {}, "title=x", 415],
      ["/feed.data", json, "{}", 415],
      ["/api/send-email-batch", urlencoded, "emails=1", 415],
      ["/admin/email.data", {}, "{}", 415],
    ];
    for (const [label, identity] of who()) {
      for (const [path, headers, body, status] of bad) {
        const answer = await send({ path, headers: { ...headers, ...identity }, body });
        expect(answer.status, `${path} ${JSON.stringify(headers)} as ${label}`).toBe(status);
      }
    }
  });

  it("takes a composer upload under the limit as a guest without a 5xx", async () => {
    const answer = await send({
      path: "/feed",
      headers: { ...multipart, Cookie: guestCookie },
      body: '--XXX\r\nContent-Disposition: form-data; name="title"\r\n\r\nSour Times\r\n--XXX--\r\n',
    });
    expect(answer.status).toBeLessThan(500);
  });

  it("refuses a foreign origin before reading, and sends no 100 Continue to a refused body", async () => {
    const foreign = await send({
      path: "/auth/login",
      headers: { ...urlencoded, Origin: "http://rebound.example" },
      contentLength: 100,
    });
    expect(foreign.status).toBe(403);
    let continued = false;
    const answer = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/feed",
        agent: false,
        headers: {
          ...multipart,
          Origin: base,
          Expect: "100-continue",
          "Content-Length": String(BODY_LIMITS.upload + 1),
        },
      });
      req.on("continue", () => {
        continued = true;
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(answer).toBe(413);
    expect(continued).toBe(false);
  });

  it("logs a client that hangs up mid-upload as an aborted request, not an error", async () => {
    const before = output.length;
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/feed",
        agent: false,
        headers: {
          ...multipart,
          Origin: base,
          Cookie: guestCookie,
          "Transfer-Encoding": "chunked",
        },
      });
      req.on("error", () => resolve());
      req.write(Buffer.alloc(256 * 1024, "a"));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    const deadline = Date.now() + 5_000;
    while (!output.slice(before).includes("request aborted") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const logged = output.slice(before);
    expect(logged).toContain("request aborted");
    expect(logged).not.toMatch(/"level":50/);
  });

  it("keeps memory flat across huge refused bodies", async () => {
    const rss = () => {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    };
    if (!existsSync(`/proc/${child.pid}/status`)) return;
    const attempt = async () => {
      for (const [, identity] of who()) {
        // The answer is checked elsewhere; here a client still writing when the server hangs
        // up after its 413 may see EPIPE instead, which is fine: only memory counts.
        await send({ path: "/feed", headers: { ...multipart, ...identity }, size: 200 * MB }).catch(
          (error: NodeJS.ErrnoException) => {
            if (error.code !== "EPIPE" && error.code !== "ECONNRESET") throw error;
          },
        );
      }
    };
    // A first round warms up what any request allocates (buffers, code, the allocator's pools),
    // so the rounds measured below show only what refused bodies would keep.
    await attempt();
    const before = rss();
    for (let i = 0; i < 3; i++) await attempt();
    // Buffering the refused bodies would add 200 MB an attempt; each may hold at most one
    // upload limit while it is read, and RSS does not shrink at once when that is freed.
    expect(rss() - before).toBeLessThan(64 * MB);
  });

  it("answers a 429 with Retry-After, on documents and .data requests", async () => {
    let limited: Answer | undefined;
    for (let i = 0; i < 15 && !limited; i++) {
      const answer = await send({
        path: i % 2 ? "/auth/login.data" : "/auth/login",
        headers: urlencoded,
        body: "email=nobody%40example.org&password=wrong-password-123",
      });
      if (answer.status === 429) limited = answer;
    }
    expect(limited?.headers["retry-after"]).toMatch(/^\d+$/);
    const document = await send({
      path: "/auth/login",
      headers: urlencoded,
      body: "email=nobody%40example.org&password=wrong-password-123",
    });
    expect(document.status).toBe(429);
    expect(document.headers["retry-after"]).toMatch(/^\d+$/);
  });

  it("carries weak_password with its reasons as codes, next to the sentences shown", async () => {
    const answer = await send({
      path: "/auth/signup.data",
      headers: urlencoded,
      body: "email=weak%40example.org&username=weakling&displayName=Weak&password=aaaa",
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain("weak_password");
    expect(answer.body).toMatch(/"length"/);
    expect(answer.body).toMatch(/"characters"/);
  });

  it("is still up and healthy, and never logged an uncaught error", async () => {
    expect(child.exitCode).toBeNull();
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(output).not.toMatch(/uncaught|unhandled|ERR_INVALID_STATE/i);
    expect(output).not.toMatch(/"status":5\d\d/);
  });
});
