import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddress } from "./client-address";
import { allowedOrigins, checkOrigin } from "./origin";
import { serveStatic } from "./static";

describe("static files", () => {
  let server: Server;
  let base: string;
  const script = `console.log("${"soundtrail ".repeat(100)}")`;

  beforeAll(async () => {
    const root = mkdtempSync(path.join(tmpdir(), "st-static-"));
    mkdirSync(path.join(root, "assets"));
    writeFileSync(path.join(root, "assets", "app-abc123.js"), script);
    writeFileSync(path.join(root, "assets", "app-abc123.js.gz"), gzipSync(script));
    writeFileSync(path.join(root, "assets", "app-abc123.js.br"), brotliCompressSync(script));
    writeFileSync(path.join(root, "favicon.svg"), "<svg/>");
    writeFileSync(path.join(root, "secret.env"), "nope");
    writeFileSync(path.join(root, "offline.html"), "<!doctype html><title>Offline</title>");
    writeFileSync(path.join(root, "sw.js"), "self.addEventListener('fetch', () => {});");
    server = createServer(async (req, res) => {
      const pathname = (req.url ?? "/").split("?")[0] ?? "/";
      if (!(await serveStatic(req, res, root, pathname))) {
        res.writeHead(404);
        res.end("fallthrough");
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("serves hashed assets as immutable for a year, brotli first", async () => {
    const res = await fetch(`${base}/assets/app-abc123.js`, {
      headers: { "Accept-Encoding": "gzip, br" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("vary")).toBe("Accept-Encoding");
    expect(await res.text()).toBe(script);
  });

  it("falls back to gzip, then to the plain file", async () => {
    const gz = await fetch(`${base}/assets/app-abc123.js`, {
      headers: { "Accept-Encoding": "gzip" },
    });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(await gz.text()).toBe(script);
    const plain = await fetch(`${base}/assets/app-abc123.js`, {
      headers: { "Accept-Encoding": "identity" },
    });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(script);
  });

  it("caches unhashed public files for an hour", async () => {
    const res = await fetch(`${base}/favicon.svg`);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
  });

  it("serves the offline page with a policy that allows no script", async () => {
    const res = await fetch(`${base}/offline.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
  });

  it("has the service worker asked for again each time, so a new build is picked up", async () => {
    const res = await fetch(`${base}/sw.js`);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
  });

  it.each([
    "/../../etc/passwd",
    "/assets/%2e%2e/%2e%2e/etc/passwd",
    "/secret.env",
    "/assets/missing.js",
  ])("does not serve %s", async (url) => {
    const res = await fetch(`${base}${url}`);
    expect(await res.text()).toBe("fallthrough");
  });
});

describe("origin check for state-changing requests", () => {
  const own = ["http://localhost:3000"];
  const post = (headers: Record<string, string>) => checkOrigin("POST", headers, own);

  it("lets same-origin and safe requests through", () => {
    expect(post({ origin: "http://localhost:3000" })).toBeNull();
    expect(checkOrigin("GET", { origin: "https://evil.example" }, own)).toBeNull();
    expect(post({})).toBeNull();
  });

  it("refuses a foreign origin and cross-site fetch metadata", () => {
    expect(post({ origin: "https://evil.example" })).toBe("foreign origin");
    expect(post({ origin: "null" })).toBe("foreign origin");
    expect(post({ "sec-fetch-site": "cross-site" })).toBe("cross-site request");
  });

  it("compares with BASE_URL's origin, not with the Host the client sent", () => {
    // A DNS-rebinding page at http://rebound.example:3000 sends Host and Origin that agree.
    expect(post({ host: "rebound.example:3000", origin: "http://rebound.example:3000" })).toBe(
      "foreign origin",
    );
    expect(post({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" })).toBe(
      "foreign origin",
    );
  });
});

describe("the origins forms may come from", () => {
  it("are BASE_URL's, plus its loopback aliases when BASE_URL is this machine", () => {
    // `npm start` prints 127.0.0.1 while BASE_URL says localhost: both must be able to sign in.
    expect(allowedOrigins("http://localhost:3000")).toEqual([
      "http://localhost:3000",
      "http://127.0.0.1:3000",
      "http://[::1]:3000",
    ]);
    expect(allowedOrigins("https://music.example.org/")).toEqual(["https://music.example.org"]);
    expect(allowedOrigins("http://127.0.0.1")).toContain("http://localhost");
  });
});

describe("client address", () => {
  it("uses the socket address unless the proxy is trusted", () => {
    expect(clientAddress("10.0.0.5", "1.2.3.4", false)).toBe("10.0.0.5");
  });
  it("takes the hop the trusted proxy appended, not the client-sent ones", () => {
    expect(clientAddress("10.0.0.5", "6.6.6.6, 203.0.113.9", true)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.5", null, true)).toBe("10.0.0.5");
  });
});
