import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import {
  captureStatements,
  countStatements,
  type DatabaseHandle,
  getDb,
  openDatabase,
  setDatabase,
} from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { searchPeople, searchPosts } from "~/features/search/search.server";
import { datasetDir, generateDataset, timed } from "./lib/dataset";
import { type BudgetRow, log, ms, percentile, type StepOutcome, timeCalls } from "./lib/report";

/**
 * Issue 12: search p50/p99 for a people query and a posts query on the 1M-post data set, against
 * a primary-key lookup in the same run. Budget: p99 ≤ 15 ms on PGlite.
 *
 * The data set is the one `feed-query` uses (bench/lib/dataset.ts): 10,000 active authors with
 * display names from 40 first × 50 last names, 1M posts whose notes take turns among twelve
 * sentences (a common word matches one post in twelve), artists "Artist 0" … "Artist 4999".
 */

const BUDGET_MS = 15;
const VIEWER = "bench-v-150";

interface Pattern {
  label: string;
  /** null: informational row (no budget applies). */
  budget: number | null;
  call: () => Promise<{ items: unknown[] }>;
}

const PATTERNS: Pattern[] = [
  {
    label: "people, misspelt name (“ingird johanson”)",
    budget: BUDGET_MS,
    call: () => searchPeople({ viewerId: VIEWER, query: "ingird johanson" }),
  },
  {
    label: "people, accent-less name (“zoe muller”)",
    budget: BUDGET_MS,
    call: () => searchPeople({ viewerId: VIEWER, query: "zoe muller" }),
  },
  {
    label: "posts, an artist (“Artist 4322”, ~200 posts)",
    budget: BUDGET_MS,
    call: () => searchPosts({ viewerId: VIEWER, query: "Artist 4322" }),
  },
  {
    label: "posts, a rare word + tag (“goosebumps tag41”)",
    budget: BUDGET_MS,
    call: () => searchPosts({ viewerId: VIEWER, query: "goosebumps tag41" }),
  },
  {
    label: "posts, a common word (“goosebumps”, 1 post in 12)",
    budget: null,
    call: () => searchPosts({ viewerId: VIEWER, query: "goosebumps" }),
  },
];

/** Every EXPLAIN (ANALYZE, BUFFERS) in full (path in the notes). */
const PLAN_FILE = path.join(tmpdir(), "soundtrail-bench-search-query-plans.txt");

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statement the pattern sends (captured through the Drizzle
 * logger): planning against execution time, and how many pages came from PGlite's shared
 * buffers ("hit") or had to be read from its files ("read").
 */
async function explain(handle: DatabaseHandle, pattern: Pattern, log: string[]): Promise<string> {
  const pglite = handle.pglite;
  if (!pglite) return "n/a";
  const { statements } = await captureStatements(pattern.call);
  const statement = statements[0];
  if (!statement) return "n/a";
  const plan = await pglite.query<{ "QUERY PLAN": string }>(
    `explain (analyze, buffers) ${statement.sql}`,
    statement.params,
  );
  const lines = plan.rows.map((r) => r["QUERY PLAN"]);
  log.push(`-- ${pattern.label}\n${lines.join("\n")}\n`);
  const value = (label: string) =>
    lines.find((l) => l.trim().startsWith(label))?.replace(/^.*: /, "");
  const buffers = lines.find((l) => l.trim().startsWith("Buffers:"))?.trim();
  return `planning ${value("Planning Time")}, execution ${value("Execution Time")}; ${buffers ?? "no buffers"}`;
}

export async function benchSearchQuery(): Promise<StepOutcome> {
  const postCount = Number(process.env.BENCH_POSTS ?? 1_000_000);
  const runs = Number(process.env.BENCH_QUERY_RUNS ?? 500);
  const maxSeconds = Number(process.env.BENCH_QUERY_SECONDS ?? 15);
  if (!Number.isInteger(postCount) || postCount < 1000)
    throw new Error("BENCH_POSTS must be ≥ 1000");
  const data = datasetDir("search", postCount);
  let opened: DatabaseHandle | null = null;
  try {
    opened = await openDatabase({ dataDir: data.dir });
    const handle = opened;
    await migrateDatabase(handle);
    setDatabase(handle);
    const started = performance.now();
    const facts = data.reused
      ? [`data set reused from ${data.dir} (BENCH_DATA_DIR)`]
      : await generateDataset(handle, postCount, "search-query");
    const generation = (performance.now() - started) / 1000;
    log(`search-query: generation took ${generation.toFixed(1)} s`);
    if (!data.reused) data.markGenerated();
    await timed("search-query", "ANALYZE", () => handle.db.execute(sql`analyze`));

    const ids = (
      (await getDb().execute(
        sql`select id from posts tablesample system (1) limit 500`,
      )) as unknown as { rows: { id: string }[] }
    ).rows.map((r) => r.id);
    let next = 0;
    const lookup = () =>
      getDb().execute(
        sql`select id, title, artist from posts where id = ${ids[next++ % ids.length]}`,
      );

    const rows: BudgetRow[] = [];
    const notes = [
      `PGlite on disk (a temp DATA_DIR); generation took ${generation.toFixed(1)} s, then ANALYZE`,
      ...facts,
      `viewer ${VIEWER}; up to ${runs} sequential calls per query (at most ${maxSeconds} s, at least 30) after up to 20 warm-up calls, timed around the app's search function (SQL + row mapping), first page of 20`,
    ];
    log("search-query: primary-key lookups …");
    const base = await timeCalls(lookup, { runs, maxSeconds, minRuns: 30, warmRuns: 20 });
    const baseP50 = percentile(base, 50);
    const baseP99 = percentile(base, 99);
    rows.push({
      step: "search-query",
      metric: "primary-key lookup of a post (baseline)",
      measured: `p99 ${ms(baseP99)} (p50 ${ms(baseP50)}, n=${base.length})`,
      budget: "—",
      pass: null,
    });
    const planLog: string[] = [];
    for (const pattern of PATTERNS) {
      log(`search-query: ${pattern.label} …`);
      const check = await countStatements(pattern.call);
      const samples = await timeCalls(pattern.call, {
        runs,
        maxSeconds,
        minRuns: 30,
        warmRuns: 20,
      });
      // After the timed calls, so the plan shows the warm state they ran in.
      notes.push(`EXPLAIN ${pattern.label}: ${await explain(handle, pattern, planLog)}`);
      const p50 = percentile(samples, 50);
      const p99 = percentile(samples, 99);
      rows.push({
        step: "search-query",
        metric: `p99 ${pattern.label}`,
        measured: `${ms(p99)} (p50 ${ms(p50)}, ${(p50 / baseP50).toFixed(1)}× the lookup's p50; n=${samples.length}, ${check.result.items.length} results, ${check.statements} statement${check.statements === 1 ? "" : "s"})`,
        budget: pattern.budget === null ? "—" : `≤ ${pattern.budget} ms`,
        pass: pattern.budget === null ? null : p99 <= pattern.budget,
      });
    }
    writeFileSync(PLAN_FILE, planLog.join("\n"));
    notes.push(`full plans: ${PLAN_FILE}`);
    return { step: "search-query", rows, notes, seconds: 0 };
  } finally {
    setDatabase(undefined);
    await opened?.close();
    data.cleanup();
  }
}
