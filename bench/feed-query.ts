import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import {
  countStatements,
  type DatabaseHandle,
  getDb,
  openDatabase,
  setDatabase,
} from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { listFeed } from "~/features/posts/feed.server";
import { FEED_PAGE_SIZE, queryRows } from "~/features/posts/post-cards.server";
import { datasetDir, generateDataset, timed } from "./lib/dataset";
import { benchPostgresDatabase } from "./lib/postgres";
import { type BudgetRow, log, ms, percentile, type StepOutcome, timeCalls } from "./lib/report";
import { tempDataDir } from "./lib/server";

/**
 * ARCHITECTURE §9: the home feed query ("Following", first page) p99 ≤ 3 ms on PGlite with 1M
 * posts, for every follow pattern: 5 inactive follows, 150 and 1000.
 *
 * The data is generated in SQL (generate_series) into a fresh PGlite database migrated with the
 * app's migrations, and `home_timeline` holds what the app's fan-out on write
 * (app/features/feed/timeline.server.ts) would have produced: every post in its author's
 * timeline, and every post except "only me" in the timelines of the author's followers.
 */

const BUDGET_MS = 3;

interface Pattern {
  viewerId: string;
  label: string;
}

const PATTERNS: Pattern[] = [
  { viewerId: "bench-v-5", label: "5 inactive follows" },
  { viewerId: "bench-v-150", label: "150 follows" },
  { viewerId: "bench-v-1000", label: "1000 follows" },
];

/**
 * EXPLAIN ANALYZE of the exact statement listFeed sends (captured from the PGlite client), to
 * tell planning time from execution time.
 */
/** Every EXPLAIN ANALYZE in full, written next to the temp data (path in the notes). */
const planLog: string[] = [];
const PLAN_FILE = path.join(tmpdir(), "soundtrail-bench-feed-query-plans.txt");

async function explain(
  handle: DatabaseHandle,
  viewerId: string,
  call: (viewerId: string) => Promise<unknown> = feedCall,
): Promise<string> {
  const pglite = handle.pglite;
  if (!pglite) return "n/a";
  const original = pglite.query.bind(pglite);
  let captured: { text: string; params: unknown[] } | null = null;
  pglite.query = ((text: string, params?: unknown[], options?: unknown) => {
    captured ??= { text, params: params ?? [] };
    return original(text, params as never, options as never);
  }) as typeof pglite.query;
  try {
    await call(viewerId);
  } finally {
    pglite.query = original;
  }
  if (!captured) return "n/a";
  const { text, params } = captured as { text: string; params: unknown[] };
  const plan = await pglite.query<{ "QUERY PLAN": string }>(
    `explain (analyze, buffers off) ${text}`,
    params,
  );
  const lines = plan.rows.map((r) => r["QUERY PLAN"]);
  planLog.push(`-- ${viewerId}\n${lines.join("\n")}\n`);
  const time = (label: string) =>
    lines.find((l) => l.trim().startsWith(label))?.replace(/^.*: /, "");
  const shape = (line: string | undefined) =>
    line
      ?.trim()
      .replace(/^->\s*/, "")
      .replace(/\s+\(cost=.*$/, "");
  const driver = lines.find((l) => /on home_timeline/.test(l));
  return `planning ${time("Planning Time")}, execution ${time("Execution Time")}; ${shape(lines[0])}${driver ? ` … ${shape(driver)}` : ""}`;
}

/** What the budget times: the app's own call. */
const feedCall = (viewerId: string) => listFeed({ viewerId, tab: "following" });

/**
 * The statement listFeed sent before the plan was cached (issue 17 item 5): the same page as
 * one inline statement, planned on every call (rows only; mapping 20 rows is microseconds).
 */
const inlineCall = (viewerId: string) =>
  queryRows(getDb(), viewerId, { kind: "timeline", userId: viewerId }, null, FEED_PAGE_SIZE + 1);

/**
 * `runs` timed calls per pattern after up to 100 warm-up calls; a pattern stops early after
 * `maxSeconds` (a slow plan at 1M posts would otherwise take many minutes), with at least 50.
 * The inline statement is timed in turn with each call (information: the same moment's load for
 * both, so their ratio holds on a busy machine where the absolute figures do not).
 */
async function measure(
  runs: number,
  maxSeconds: number,
): Promise<{ pattern: Pattern; samples: number[]; inline: number[]; posts: number }[]> {
  const out = [];
  for (const pattern of PATTERNS) {
    const check = await countStatements(() => feedCall(pattern.viewerId));
    if (check.statements !== 1) {
      throw new Error(
        `listFeed sent ${check.statements} statements for ${pattern.label}, expected 1`,
      );
    }
    // Odd calls are listFeed's, even ones the inline statement's; warm-up calls are not sampled.
    let turn = 0;
    const alternating = await timeCalls(
      () => (++turn % 2 === 1 ? feedCall(pattern.viewerId) : inlineCall(pattern.viewerId)),
      { runs: runs * 2, maxSeconds, minRuns: 100, warmRuns: 200 },
    );
    const firstTurn = turn - alternating.length + 1;
    const isFeed = (i: number) => (firstTurn + i) % 2 === 1;
    const samples = alternating.filter((_, i) => isFeed(i));
    const inline = alternating.filter((_, i) => !isFeed(i));
    out.push({ pattern, samples, inline, posts: check.result.posts.length });
  }
  return out;
}

/** Information: the inline statement timed in turn with listFeed, and listFeed's share of it. */
function inlineRow(label: string, samples: number[], inline: number[]): BudgetRow {
  const ratio = (q: number) => (percentile(samples, q) / percentile(inline, q)).toFixed(2);
  return {
    step: "feed-query",
    metric: `  inline statement (before), ${label}`,
    measured: `p99 ${ms(percentile(inline, 99))} (p50 ${ms(percentile(inline, 50))}); listFeed ÷ inline: p50 ${ratio(50)}, p99 ${ratio(99)}`,
    budget: "—",
    pass: null,
  };
}

/** The same data and calls on the PostgreSQL server (BENCH_DATABASE_URL): rows for information. */
async function postgresRows(postCount: number, runs: number, maxSeconds: number) {
  const database = await benchPostgresDatabase("feed-query");
  if (!database)
    return { rows: [], notes: ["PostgreSQL rows: set BENCH_DATABASE_URL to add them."] };
  let opened: DatabaseHandle | null = null;
  try {
    opened = await openDatabase({ databaseUrl: database.url });
    await migrateDatabase(opened);
    setDatabase(opened);
    const started = performance.now();
    await generateDataset(opened, postCount, "feed-query (PostgreSQL)");
    const generation = (performance.now() - started) / 1000;
    await opened.db.execute(sql`analyze`);
    const rows: BudgetRow[] = [];
    for (const { pattern, samples, inline, posts } of await measure(runs, maxSeconds)) {
      rows.push(
        {
          step: "feed-query",
          metric: `p99 ${pattern.label}, PostgreSQL server`,
          measured: `${ms(percentile(samples, 99))} (p50 ${ms(percentile(samples, 50))}, n=${samples.length}, ${posts} posts)`,
          budget: "—",
          pass: null,
        },
        inlineRow(`${pattern.label}, PostgreSQL server`, samples, inline),
      );
    }
    return {
      rows,
      notes: [
        `PostgreSQL server (BENCH_DATABASE_URL, a fresh database): the same data set (generation ${generation.toFixed(1)} s), after ANALYZE, through the app's pool over TCP.`,
      ],
    };
  } finally {
    setDatabase(undefined);
    await opened?.close();
    await database.drop();
  }
}

export async function benchFeedQuery(): Promise<StepOutcome> {
  const postCount = Number(process.env.BENCH_POSTS ?? 1_000_000);
  const runs = Number(process.env.BENCH_QUERY_RUNS ?? 1000);
  const maxSeconds = Number(process.env.BENCH_QUERY_SECONDS ?? 20);
  if (!Number.isInteger(postCount) || postCount < 1000)
    throw new Error("BENCH_POSTS must be ≥ 1000");
  const inMemory = process.env.BENCH_QUERY_MEMORY === "1";
  // BENCH_DATA_DIR keeps the data set between runs (shared with search-query: the same data).
  const data = inMemory
    ? { ...tempDataDir("query"), reused: false, markGenerated() {} }
    : datasetDir("query", postCount);
  let opened: DatabaseHandle | null = null;
  try {
    opened = await openDatabase({ dataDir: inMemory ? "memory://" : data.dir });
    const handle = opened;
    await migrateDatabase(handle);
    setDatabase(handle);
    const started = performance.now();
    const facts = data.reused
      ? [
          `data set reused from ${data.dir} (BENCH_DATA_DIR; "as loaded" is then as the last run left it)`,
        ]
      : await generateDataset(handle, postCount, "feed-query");
    if (!data.reused) data.markGenerated();
    const generation = (performance.now() - started) / 1000;
    log(`feed-query: generation took ${generation.toFixed(1)} s`);

    const rows: BudgetRow[] = [];
    const notes = [
      `PGlite ${inMemory ? "in memory" : "on disk (a temp DATA_DIR, as the app runs)"}; generation took ${generation.toFixed(1)} s`,
      ...facts,
      `up to ${runs} sequential listFeed({ viewerId, tab: "following" }) calls per pattern and phase (at most ${maxSeconds} s, at least 50; n in the table) after up to 100 warm-up calls, ` +
        "timed around the call (SQL + row mapping); 1 statement each (checked).",
    ];
    for (const [phase, label] of [
      ["as loaded", "as loaded (no ANALYZE; PGlite runs no autovacuum)"],
      ["after ANALYZE", "after ANALYZE"],
    ] as const) {
      if (phase === "after ANALYZE") {
        await timed("feed-query", "ANALYZE", () => handle.db.execute(sql`analyze`));
      }
      log(`feed-query: timing ${label} …`);
      planLog.push(`==== ${label}\n`);
      for (const pattern of PATTERNS) {
        notes.push(`${phase}, ${pattern.label}: ${await explain(handle, pattern.viewerId)}`);
        notes.push(
          `${phase}, ${pattern.label}, the inline statement: ${await explain(handle, pattern.viewerId, inlineCall)}`,
        );
      }
      for (const { pattern, samples, inline, posts } of await measure(runs, maxSeconds)) {
        const p50 = percentile(samples, 50);
        const p99 = percentile(samples, 99);
        rows.push(
          {
            step: "feed-query",
            metric: `p99 ${pattern.label}, ${phase}`,
            measured: `${ms(p99)} (p50 ${ms(p50)}, n=${samples.length}, ${posts} posts)`,
            budget: `≤ ${BUDGET_MS} ms`,
            pass: p99 <= BUDGET_MS,
          },
          inlineRow(`${pattern.label}, ${phase}`, samples, inline),
        );
      }
    }
    writeFileSync(PLAN_FILE, planLog.join("\n"));
    notes.push(`full plans: ${PLAN_FILE}`);
    setDatabase(undefined);
    await opened.close();
    opened = null;
    data.cleanup();
    const postgres = await postgresRows(postCount, runs, maxSeconds);
    return {
      step: "feed-query",
      rows: [...rows, ...postgres.rows],
      notes: [...notes, ...postgres.notes],
      seconds: 0,
    };
  } finally {
    setDatabase(undefined);
    await opened?.close();
    data.cleanup();
  }
}
