import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { DEMO_EMAIL, signIn } from "./html-size";
import { type BudgetRow, log, type StepOutcome } from "./lib/report";
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
 * Issue 17 item 6: Lighthouse 12 (mobile, its default: a mid-range phone on a throttled
 * network, simulated) on signed-in `/feed`, `/post/{id}` and the landing page `/` (signed out:
 * signed in, `/` goes to the feed). Median of 5 runs per page and category. Budgets:
 * performance ≥ 95; accessibility, best practices and SEO 100.
 *
 * The production build on the seeded demo community, Debian's chromium (headless).
 */

const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
type Category = (typeof CATEGORIES)[number];
const BUDGET: Record<Category, number> = {
  performance: 95,
  accessibility: 100,
  "best-practices": 100,
  seo: 100,
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function benchLighthouse(): Promise<StepOutcome> {
  const runs = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 5);
  await ensureBuild();
  const data = tempDataDir("lighthouse");
  const env = serverEnv({ port: PORTS.lighthouse, dataDir: data.dir });
  let server: RunningServer | null = null;
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? "/usr/bin/chromium",
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"],
  });
  try {
    log("lighthouse: seeding the demo community (npm run seed) …");
    await seedDemo(env);
    server = await startServer(env);
    const base = server.baseUrl;
    const cookie = await signIn(base);
    const feed = await (await fetch(`${base}/feed`, { headers: { cookie } })).text();
    const postPath = feed.match(/\/post\/[0-9a-f-]{36}/)?.[0];
    if (!postPath) throw new Error("no post link on the signed-in feed");
    const pages = [
      { label: "/feed (signed in)", url: `${base}/feed`, cookie },
      { label: "/post/{id} (signed in)", url: `${base}${postPath}`, cookie },
      { label: "/ (signed out)", url: `${base}/`, cookie: null },
    ];
    const rows: BudgetRow[] = [];
    const notes: string[] = [];
    for (const page of pages) {
      const scores: Record<Category, number[]> = {
        performance: [],
        accessibility: [],
        "best-practices": [],
        seo: [],
      };
      const failed = new Map<string, number>();
      for (let i = 0; i < runs; i++) {
        log(`lighthouse: ${page.label}, run ${i + 1}/${runs} …`);
        const result = await lighthouse(page.url, {
          port: Number(chrome.port),
          output: "json",
          logLevel: "error",
          onlyCategories: [...CATEGORIES],
          ...(page.cookie ? { extraHeaders: { Cookie: page.cookie } } : {}),
        });
        if (!result) throw new Error(`Lighthouse gave no result for ${page.url}`);
        const { lhr } = result;
        // A run Lighthouse could not finish has no scores: say why, instead of a row of "?".
        if (lhr.runtimeError) {
          notes.push(
            `${page.label} run ${i + 1}: no result (${lhr.runtimeError.code}: ${lhr.runtimeError.message}); not counted`,
          );
          continue;
        }
        for (const category of CATEGORIES) {
          const score = lhr.categories[category]?.score;
          if (typeof score === "number") scores[category].push(Math.round(score * 100));
        }
        // What cost points, to act on (audits below a full score, by id).
        for (const category of CATEGORIES) {
          for (const ref of lhr.categories[category]?.auditRefs ?? []) {
            const audit = lhr.audits[ref.id];
            if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) {
              failed.set(`${category}: ${ref.id}`, (failed.get(`${category}: ${ref.id}`) ?? 0) + 1);
              // For the 100-point categories, which elements (the first run is enough).
              if (i === 0 && category !== "performance") {
                const items = (audit.details as { items?: { node?: { selector?: string } }[] })
                  ?.items;
                const where = (items ?? [])
                  .map((item) => item.node?.selector)
                  .filter(Boolean)
                  .slice(0, 5);
                if (where.length > 0) notes.push(`${page.label} ${ref.id}: ${where.join(" | ")}`);
              }
            }
          }
        }
        if (i === 0) notes.push(`${page.label} run 1: ${lcpElement(lhr.audits)}`);
        const metric = (id: string) => lhr.audits[id]?.displayValue ?? "?";
        notes.push(
          `${page.label} run ${i + 1}: FCP ${metric("first-contentful-paint")}, LCP ${metric("largest-contentful-paint")}, TBT ${metric("total-blocking-time")}, CLS ${metric("cumulative-layout-shift")}`,
        );
      }
      for (const category of CATEGORIES) {
        const value = median(scores[category]);
        rows.push({
          step: "lighthouse",
          metric: `${category}, ${page.label}, median of ${scores[category].length}`,
          measured: String(value),
          budget: `${BUDGET[category] === 100 ? "= " : "≥ "}${BUDGET[category]}`,
          pass: value >= BUDGET[category],
        });
      }
      if (failed.size > 0) {
        notes.push(
          `${page.label} — audits below full score (in how many runs): ${[...failed]
            .map(([id, n]) => `${id} (${n})`)
            .join(", ")}`,
        );
      }
    }
    notes.unshift(
      `Lighthouse 12 default (mobile) settings, headless chromium; signed in as ${DEMO_EMAIL} through the Cookie header for the first two pages.`,
    );
    return { step: "lighthouse", rows, notes, seconds: 0 };
  } finally {
    chrome.kill();
    await server?.stop();
    data.cleanup();
  }
}

/**
 * Which element was the largest contentful paint and where its time went (Lighthouse 12's
 * `largest-contentful-paint-element` audit: a table with the node, then one with the phases).
 */
function lcpElement(audits: Record<string, { details?: unknown }>): string {
  const tables = (
    audits["largest-contentful-paint-element"]?.details as
      | { items?: { items?: Record<string, unknown>[] }[] }
      | undefined
  )?.items;
  const node = tables?.[0]?.items?.[0]?.node as { selector?: string; snippet?: string } | undefined;
  const phases = (tables?.[1]?.items ?? [])
    .map((row) => `${String(row.phase)} ${Math.round(Number(row.timing))} ms`)
    .join(", ");
  return `LCP element ${node?.snippet?.slice(0, 120) ?? "?"} (${node?.selector ?? "?"}); ${phases || "no phases"}`;
}
