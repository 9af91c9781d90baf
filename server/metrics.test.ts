import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  insertAccounts,
  type LiveServer,
  signIn,
  startLiveServer,
} from "../tests/support/live-server";

/*
 * `/metrics` on the production server: off (404) without METRICS_TOKEN; with it, 401 unless
 * `Authorization: Bearer <token>`, then Prometheus text with requests counted by route id (not
 * by URL), latency histograms, open live streams, the outbox and the database connections.
 */

const TOKEN = "metrics-token-for-the-test-0123456789";
const MEMBER = {
  id: "metrics-member",
  email: "metrics@example.org",
  username: "metrics_member",
  displayName: "Metrics Member",
};

/** The value of the sample `name{…labels…}` (labels in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const body = /\{(.*)\}/.exec(line)?.[1] ?? "";
    const has = Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`));
    if (has) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

describe("/metrics", () => {
  let withToken: LiveServer;
  let without: LiveServer;

  beforeAll(async () => {
    [withToken, without] = await Promise.all([
      startLiveServer({
        env: { METRICS_TOKEN: TOKEN },
        seed: (db) => insertAccounts(db, [MEMBER]),
      }),
      startLiveServer(),
    ]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([withToken?.stop(), without?.stop()]);
  });

  const scrape = (token = TOKEN) =>
    fetch(`${withToken.base}/metrics`, { headers: { Authorization: `Bearer ${token}` } });

  it("is off without METRICS_TOKEN", async () => {
    const response = await fetch(`${without.base}/metrics`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    // No such page (404); or, since an unknown path is the app's and the bearer token is no
    // session of ours, a 401 — never the metrics.
    expect([401, 404]).toContain(response.status);
    expect(await response.text()).not.toContain("soundtrail_http_requests_total");
  });

  it("asks for the bearer token", async () => {
    const bare = await fetch(`${withToken.base}/metrics`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(await bare.text()).not.toContain("soundtrail_");
    const wrong = await scrape("not-the-token-at-all-0000000000");
    expect(wrong.status).toBe(401);
    await wrong.body?.cancel();
  });

  it("counts requests by route id, with latency histograms, streams, outbox and connections", async () => {
    const cookie = await signIn(withToken.base, MEMBER.email, "10.7.0.1");
    // Two different post ids: one route.
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids) {
      const response = await fetch(`${withToken.base}/post/${id}`, { headers: { Cookie: cookie } });
      await response.body?.cancel();
    }
    const page = await fetch(`${withToken.base}/feed`, { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    await page.text();
    // A live stream stays open while we scrape.
    const abort = new AbortController();
    const stream = await fetch(`${withToken.base}/api/events`, {
      headers: { Cookie: cookie, Accept: "text/event-stream" },
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body?.getReader();
    await reader?.read();

    try {
      const response = await scrape();
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("text/plain");
      const text = await response.text();

      const postRequests = sample(text, "soundtrail_http_requests_total", {
        route: "routes/_app/post",
        method: "GET",
      });
      expect(postRequests).toBe(2);
      for (const id of ids) expect(text).not.toContain(id);
      expect(
        sample(text, "soundtrail_http_requests_total", {
          route: "routes/_app/feed",
          method: "GET",
          status: "200",
        }),
      ).toBe(1);
      expect(
        sample(text, "soundtrail_http_request_duration_seconds_count", {
          route: "routes/_app/feed",
        }),
      ).toBe(1);
      expect(
        sample(text, "soundtrail_http_request_duration_seconds_bucket", {
          route: "routes/_app/feed",
          le: "+Inf",
        }),
      ).toBe(1);
      expect(sample(text, "soundtrail_sse_connections", {})).toBe(1);
      // The admission queue: nobody waits; nothing was refused as busy.
      expect(sample(text, "soundtrail_request_queue_waiting", {})).toBe(0);
      expect(sample(text, "soundtrail_request_queue_active", {})).toBeGreaterThanOrEqual(0);
      expect(sample(text, "soundtrail_requests_shed_total", {})).toBe(0);
      // Database failures by kind (none here; the outage suite sees them counted).
      expect(text).toContain("# TYPE soundtrail_database_unavailable_total counter");
      expect(sample(text, "soundtrail_mail_outbox", { status: "pending" })).toBeGreaterThanOrEqual(
        0,
      );
      expect(text).toContain("# TYPE soundtrail_mail_delivery_failures_total counter");
      expect(sample(text, "soundtrail_db_connections", { state: "total" })).toBe(1);
      expect(text).toContain("soundtrail_process_resident_memory_bytes");
      // The embedded engine's statements that held the event loop, by how long.
      const over = (ms: number) =>
        Number(sample(text, "soundtrail_embedded_statements_over_total", { over_ms: String(ms) }));
      expect(over(10)).toBeGreaterThanOrEqual(over(100));
      expect(over(100)).toBeGreaterThanOrEqual(over(5000));
      expect(sample(text, "soundtrail_embedded_statement_longest_seconds", {})).toBeGreaterThan(0);
    } finally {
      abort.abort();
    }

    // The stream's end is counted under its route, the scrape under "metrics".
    const after = await (await scrape()).text();
    expect(
      sample(after, "soundtrail_http_requests_total", { route: "metrics", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
  });
});
