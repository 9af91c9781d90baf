import { chromium } from "@playwright/test";
import { DEMO_EMAIL, signIn } from "./html-size";
import { type BudgetRow, log, ms, percentile, type StepOutcome } from "./lib/report";
import {
  ensureBuild,
  PORTS,
  type RunningServer,
  seedDemo,
  serverEnv,
  startServer,
  tempDataDir,
} from "./lib/server";

/**
 * Issue 17 item 6: notification delivery over SSE on one instance, from a like to the event in
 * the author's browser. Budget: p99 ≤ 250 ms.
 *
 * The production build on the seeded demo community. Ana's browser (Debian's chromium through
 * Playwright, signed in, on /feed) holds an EventSource on /api/events as the app's own live
 * client does and notes `Date.now()` when a `notification` event arrives; Ben likes one of
 * Ana's posts over HTTP (`POST /api/like`, as the like button's fetcher does), noting
 * `Date.now()` just before sending. Same machine, same clock. Before each like, Ben's earlier
 * like of that post is taken back (untimed), so every like is a new event.
 */

const BUDGET_MS = 250;
const LIKER_EMAIL = "ben-okafor@demo.soundtrail.test";

declare global {
  interface Window {
    __likeEvents?: number[];
  }
}

async function like(base: string, cookie: string, postId: string, intent: "like" | "unlike") {
  const response = await fetch(`${base}/api/like`, {
    method: "POST",
    headers: {
      cookie,
      Origin: base,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ postId, intent }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${intent} ${postId}: HTTP ${response.status}`);
}

export async function benchLiveLatency(): Promise<StepOutcome> {
  const runs = Number(process.env.BENCH_LIVE_RUNS ?? 100);
  await ensureBuild();
  const data = tempDataDir("live");
  const env = serverEnv({ port: PORTS.liveLatency, dataDir: data.dir });
  let server: RunningServer | null = null;
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
  try {
    log("live-latency: seeding the demo community (npm run seed) …");
    await seedDemo(env);
    server = await startServer(env);
    const base = server.baseUrl;
    const ana = await signIn(base);
    const ben = await signIn(base, LIKER_EMAIL);
    const profile = await (
      await fetch(`${base}/u/ana_rivera`, { headers: { cookie: ben } })
    ).text();
    const postIds = [...new Set(profile.match(/\/post\/[0-9a-f-]{36}/g) ?? [])].map((p) =>
      p.slice("/post/".length),
    );
    if (postIds.length === 0) throw new Error("found none of Ana's posts on her profile");

    const context = await browser.newContext({ baseURL: base });
    await context.addCookies(
      ana.split("; ").map((pair) => {
        const [name = "", ...value] = pair.split("=");
        return { name, value: value.join("="), url: base };
      }),
    );
    const page = await context.newPage();
    await page.goto("/feed");
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          window.__likeEvents = [];
          const source = new EventSource("/api/events");
          source.addEventListener("ready", () => resolve());
          source.addEventListener("notification", () => window.__likeEvents?.push(Date.now()));
        }),
    );

    const samples: number[] = [];
    const requests: number[] = [];
    for (let i = 0; i < runs + 5; i++) {
      const postId = postIds[i % postIds.length] as string;
      await like(base, ben, postId, "unlike");
      // Whatever the unlike sent has arrived before the clock starts.
      await new Promise((resolve) => setTimeout(resolve, 150));
      await page.evaluate(() => {
        window.__likeEvents = [];
      });
      const sent = Date.now();
      await like(base, ben, postId, "like");
      const answered = Date.now();
      const handle = await page.waitForFunction(() => window.__likeEvents?.[0], null, {
        timeout: 10_000,
        polling: 5,
      });
      const received = (await handle.jsonValue()) as number;
      if (i >= 5) {
        samples.push(received - sent);
        requests.push(answered - sent);
      }
    }
    await context.close();
    const p50 = percentile(samples, 50);
    const p99 = percentile(samples, 99);
    const rows: BudgetRow[] = [
      {
        step: "live-latency",
        metric: "like → notification event in the browser, p99",
        measured: `${ms(p99)} (p50 ${ms(p50)}, n=${samples.length})`,
        budget: `≤ ${BUDGET_MS} ms`,
        pass: p99 <= BUDGET_MS,
      },
      {
        step: "live-latency",
        metric: "of which the like request itself, p99",
        measured: `${ms(percentile(requests, 99))} (p50 ${ms(percentile(requests, 50))})`,
        budget: "—",
        pass: null,
      },
    ];
    return {
      step: "live-latency",
      rows,
      notes: [
        `one instance (PGlite), demo community; ${DEMO_EMAIL} on /feed in chromium with an EventSource on /api/events; ${LIKER_EMAIL} likes her posts over HTTP; ${runs} likes after 5 warm-up; ` +
          "time from just before the like request is sent to the event's arrival (Date.now() on both sides, one machine); includes the like's own request time.",
      ],
      seconds: 0,
    };
  } finally {
    await browser.close();
    await server?.stop();
    data.cleanup();
  }
}
