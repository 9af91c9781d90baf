import autocannon from "autocannon";
import { DEMO_EMAIL, htmlRows, measureFeedHtml, signIn } from "./html-size";
import { benchPostgresDatabase } from "./lib/postgres";
import { type BudgetRow, log, ms, percentile, type StepOutcome } from "./lib/report";
import {
  ensureBuild,
  PORTS,
  type RunningServer,
  rssBytes,
  seedDemo,
  serverEnv,
  startServer,
  tempDataDir,
  watchRss,
} from "./lib/server";

/**
 * ARCHITECTURE §9: SSR of `/feed` (20 posts, signed in, PGlite) ≥ 0.6× the req/s of a
 * no-database fixture route rendering the same amount of HTML, at 10 and 50 connections;
 * p99 ≤ 2.5× p50 at 50.
 */

const CONNECTIONS = [10, 50] as const;
const RATIO_BUDGET = 0.6;
const TAIL_BUDGET = 2.5;
/** Signed-in `/feed` ÷ `/bench/floor` (the same data as the plainest page): issue 17. */
const FLOOR_BUDGET = 0.25;
/** Issue 17: the server's peak RSS during the 50-connection run, and how far above it stays. */
const RSS_PEAK_BUDGET = 300 * 1024 * 1024;
const RSS_AFTER_BUDGET = 1.1;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Connection errors and timeouts (60 s): reported, and they lower req/s. */
  errors: number;
}

/** One autocannon run; latencies are kept per response (autocannon's own histogram is whole ms). */
async function load(
  url: string,
  options: { connections: number; seconds: number; cookie?: string },
): Promise<Load> {
  const latencies: number[] = [];
  let bad = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: options.connections,
        duration: options.seconds,
        pipelining: 1,
        // A slow answer is a latency to report, not an error: the default 10 s would drop them.
        timeout: 60,
        headers: options.cookie ? { cookie: options.cookie } : {},
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
    // autocannon emits (client, statusCode, bytes, responseTime); its typings leave out client.
    instance.on("response", (...args: unknown[]) => {
      const status = args[1] as number;
      if (status >= 200 && status < 300) latencies.push(args[3] as number);
      else bad++;
    });
  });
  // A non-2xx answer means a lost session or a broken page: the numbers would be meaningless.
  if (bad > 0) {
    throw new Error(`${url} at ${options.connections} connections: ${bad} non-2xx responses`);
  }
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  return {
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests: latencies.length,
    errors: result.errors,
  };
}

/** Fetches a page once and checks it is the 20-post feed markup. */
async function inspect(url: string, cookie?: string): Promise<{ bytes: number; posts: number }> {
  const response = await fetch(url, { headers: cookie ? { cookie } : {}, redirect: "manual" });
  const html = await response.text();
  const posts = html.match(/<article /g)?.length ?? 0;
  if (response.status !== 200 || posts !== 20 || !html.includes("Your feed")) {
    throw new Error(
      `${url}: HTTP ${response.status}, ${posts} posts — expected the signed-in feed with 20`,
    );
  }
  return { bytes: Buffer.byteLength(html), posts };
}

export async function benchFeedSsr(): Promise<StepOutcome> {
  const seconds = Number(process.env.BENCH_DURATION ?? 20);
  await ensureBuild();
  const data = tempDataDir("ssr");
  const env = serverEnv({
    port: PORTS.feedSsr,
    dataDir: data.dir,
    extra: { SOUNDTRAIL_BENCH: "1" },
  });
  let server: RunningServer | null = null;
  try {
    log("feed-ssr: seeding the demo community (npm run seed) …");
    await seedDemo(env);
    server = await startServer(env);
    const base = server.baseUrl;
    const cookie = await signIn(base);
    const feedUrl = `${base}/feed`;
    const fixtureUrl = `${base}/bench/fixture`;
    const floorUrl = `${base}/bench/floor`;
    const feedPage = await inspect(feedUrl, cookie);
    const fixturePage = await inspect(fixtureUrl);
    await inspect(fixtureUrl, cookie);

    log("feed-ssr: warming up …");
    await load(feedUrl, { connections: 10, seconds: 3, cookie });
    await load(fixtureUrl, { connections: 10, seconds: 3 });
    await load(fixtureUrl, { connections: 10, seconds: 3, cookie });
    await load(floorUrl, { connections: 10, seconds: 3 });

    // The byte budgets first (the same build and data as the load test below).
    const html = htmlRows("feed-ssr", await measureFeedHtml(base, cookie));
    const rows: BudgetRow[] = [...html.rows];
    const notes: string[] = [...html.notes];
    let feed50: Load | null = null;
    let fixture50: Load | null = null;
    let rssBefore = 0;
    let rssPeak = 0;
    for (const connections of CONNECTIONS) {
      log(`feed-ssr: ${connections} connections, ${seconds} s per target …`);
      const watch = connections === 50 ? watchRss(server.pid) : null;
      if (watch) rssBefore = rssBytes(server.pid);
      const feed = await load(feedUrl, { connections, seconds, cookie });
      if (watch) rssPeak = watch.stop();
      const fixture = await load(fixtureUrl, { connections, seconds });
      const fixtureSignedIn = await load(fixtureUrl, { connections, seconds, cookie });
      const floor = await load(floorUrl, { connections, seconds });
      const floorRatio = feed.rps / floor.rps;
      rows.push({
        step: "feed-ssr",
        metric: `req/s /feed ÷ framework floor, ${connections} conn`,
        measured: `${floorRatio.toFixed(2)} (${feed.rps.toFixed(0)} ÷ ${floor.rps.toFixed(0)})`,
        budget: `≥ ${FLOOR_BUDGET}`,
        pass: floorRatio >= FLOOR_BUDGET,
      });
      const ratio = feed.rps / fixture.rps;
      const ratioSignedIn = feed.rps / fixtureSignedIn.rps;
      rows.push({
        step: "feed-ssr",
        metric: `req/s /feed ÷ fixture (no cookie), ${connections} conn`,
        measured: `${ratio.toFixed(2)} (${feed.rps.toFixed(0)} ÷ ${fixture.rps.toFixed(0)})`,
        budget: `≥ ${RATIO_BUDGET}`,
        pass: ratio >= RATIO_BUDGET,
      });
      rows.push({
        step: "feed-ssr",
        metric: `req/s /feed ÷ fixture (with cookie), ${connections} conn`,
        measured: `${ratioSignedIn.toFixed(2)} (${feed.rps.toFixed(0)} ÷ ${fixtureSignedIn.rps.toFixed(0)})`,
        budget: "—",
        pass: null,
      });
      notes.push(
        `${connections} conn: /feed ${feed.rps.toFixed(1)} req/s p50 ${ms(feed.p50)} p99 ${ms(feed.p99)} (${feed.requests} req${feed.errors ? `, ${feed.errors} errors/timeouts` : ""}); ` +
          `fixture ${fixture.rps.toFixed(1)} req/s p50 ${ms(fixture.p50)} p99 ${ms(fixture.p99)}${fixture.errors ? ` (${fixture.errors} errors/timeouts)` : ""}; ` +
          `fixture+cookie ${fixtureSignedIn.rps.toFixed(1)} req/s p50 ${ms(fixtureSignedIn.p50)} p99 ${ms(fixtureSignedIn.p99)}; ` +
          `floor ${floor.rps.toFixed(1)} req/s p50 ${ms(floor.p50)} p99 ${ms(floor.p99)}`,
      );
      if (connections === 50) {
        feed50 = feed;
        fixture50 = fixture;
      }
    }
    // Settled: what the server keeps once the crowd has gone.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const rssAfter = rssBytes(server.pid);
    rows.push(
      {
        step: "feed-ssr",
        metric: "server RSS peak, /feed at 50 conn",
        measured: `${mb(rssPeak)} (before ${mb(rssBefore)})`,
        budget: `≤ ${mb(RSS_PEAK_BUDGET)}`,
        pass: rssPeak <= RSS_PEAK_BUDGET,
      },
      {
        step: "feed-ssr",
        metric: "server RSS after the runs ÷ before 50 conn",
        measured: `${(rssAfter / rssBefore).toFixed(2)} (${mb(rssAfter)} ÷ ${mb(rssBefore)})`,
        budget: `≤ ${RSS_AFTER_BUDGET}`,
        pass: rssAfter / rssBefore <= RSS_AFTER_BUDGET,
      },
    );
    if (feed50 && fixture50) {
      const tail = feed50.p99 / feed50.p50;
      rows.push({
        step: "feed-ssr",
        metric: "/feed p99 ÷ p50, 50 conn",
        measured: `${tail.toFixed(2)} (${ms(feed50.p99)} ÷ ${ms(feed50.p50)})`,
        budget: `≤ ${TAIL_BUDGET}`,
        pass: tail <= TAIL_BUDGET,
      });
      rows.push({
        step: "feed-ssr",
        metric: "fixture p99 ÷ p50, 50 conn",
        measured: `${(fixture50.p99 / fixture50.p50).toFixed(2)} (${ms(fixture50.p99)} ÷ ${ms(fixture50.p50)})`,
        budget: "—",
        pass: null,
      });
    }
    notes.unshift(
      `HTML: /feed ${feedPage.bytes} B, /bench/fixture ${fixturePage.bytes} B (${((fixturePage.bytes / feedPage.bytes) * 100).toFixed(0)}% of /feed), 20 posts each; ` +
        `/feed signed in as ${DEMO_EMAIL} on the seeded demo community (PGlite); ` +
        "the budget compares with the fixture requested WITHOUT the session cookie (no SQL at all); " +
        "'with cookie' adds the root middleware's session read (2 statements) to the fixture too. " +
        `${seconds} s per target after a 3 s warm-up, one keep-alive connection each, sequential targets.`,
    );
    await server.stop();
    server = null;
    const postgres = await postgresRows(seconds);
    return {
      step: "feed-ssr",
      rows: [...rows, ...postgres.rows],
      notes: [...notes, ...postgres.notes],
      seconds: 0,
    };
  } finally {
    await server?.stop();
    data.cleanup();
  }
}

/** `/feed` and the floor on the PostgreSQL server (BENCH_DATABASE_URL): rows for information. */
async function postgresRows(seconds: number): Promise<{ rows: BudgetRow[]; notes: string[] }> {
  const database = await benchPostgresDatabase("feed-ssr");
  if (!database)
    return { rows: [], notes: ["PostgreSQL rows: set BENCH_DATABASE_URL to add them."] };
  const data = tempDataDir("ssr-pg");
  let server: RunningServer | null = null;
  try {
    const env = serverEnv({
      port: PORTS.feedSsr,
      dataDir: data.dir,
      extra: { SOUNDTRAIL_BENCH: "1", DATABASE_URL: database.url },
    });
    log("feed-ssr (PostgreSQL): seeding the demo community …");
    await seedDemo(env);
    server = await startServer(env);
    const cookie = await signIn(server.baseUrl);
    const feedUrl = `${server.baseUrl}/feed`;
    const floorUrl = `${server.baseUrl}/bench/floor`;
    await inspect(feedUrl, cookie);
    await load(feedUrl, { connections: 10, seconds: 3, cookie });
    const rows: BudgetRow[] = [];
    for (const connections of CONNECTIONS) {
      const feed = await load(feedUrl, { connections, seconds, cookie });
      const floor = await load(floorUrl, { connections, seconds });
      rows.push({
        step: "feed-ssr",
        metric: `PostgreSQL: /feed ÷ floor, ${connections} conn`,
        measured: `${floor.rps > 0 ? (feed.rps / floor.rps).toFixed(2) : "n/a"} (${feed.rps.toFixed(0)} ÷ ${floor.rps.toFixed(0)}; /feed p50 ${ms(feed.p50)} p99 ${ms(feed.p99)})`,
        budget: "—",
        pass: null,
      });
    }
    return {
      rows,
      notes: [
        "PostgreSQL rows: the same build, seed and sign-in with DATABASE_URL set to a fresh database.",
      ],
    };
  } finally {
    await server?.stop();
    data.cleanup();
    await database.drop();
  }
}
