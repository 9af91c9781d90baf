import { cpus, loadavg } from "node:os";
import { benchExport } from "./export";
import { benchFanout } from "./fanout";
import { benchFeedQuery } from "./feed-query";
import { benchFeedSsr } from "./feed-ssr";
import { benchHeavyListeners } from "./heavy-listeners";
import { benchHtmlSize } from "./html-size";
import { benchImport } from "./import";
import { benchImportBrowse } from "./import-browse";
import { benchJourneyStats } from "./journey-stats";
import { benchJsSize } from "./js-size";
import { type BudgetRow, formatTable, log, type StepOutcome } from "./lib/report";
import { benchLighthouse } from "./lighthouse";
import { benchListenBrainzReads } from "./listenbrainz-reads";
import { benchLiveLatency } from "./live-latency";
import { benchLoad } from "./load";
import { benchMaintenance } from "./maintenance";
import { benchSearchQuery } from "./search-query";
import { benchSignIn } from "./sign-in";

/**
 * `npm run bench [-- feed-ssr|feed-query|js-size …]`: measures the ARCHITECTURE §9 budgets on
 * this machine and prints one table. Ratios come from one run on one machine; nothing here is
 * a test, and a failed budget is a finding to report, not an error.
 */

const STEPS: Record<string, () => Promise<StepOutcome>> = {
  "feed-ssr": benchFeedSsr,
  "feed-query": benchFeedQuery,
  "js-size": benchJsSize,
  "html-size": benchHtmlSize,
  "search-query": benchSearchQuery,
  fanout: benchFanout,
  "live-latency": benchLiveLatency,
  lighthouse: benchLighthouse,
  import: benchImport,
  "journey-stats": benchJourneyStats,
  "listenbrainz-reads": benchListenBrainzReads,
  load: benchLoad,
  maintenance: benchMaintenance,
  "heavy-listeners": benchHeavyListeners,
  "import-browse": benchImportBrowse,
  export: benchExport,
  "sign-in": benchSignIn,
};

export async function main(args: string[]): Promise<number> {
  const unknown = args.filter((a) => !(a in STEPS));
  if (unknown.length > 0) {
    console.error(
      `Unknown step ${unknown.join(", ")}; choose from ${Object.keys(STEPS).join(", ")}.`,
    );
    return 2;
  }
  // The load, maintenance, import, journey-stats, heavy-listeners, import-browse and export
  // runs (several minutes each) only when asked for by name.
  const chosen =
    args.length > 0
      ? args
      : Object.keys(STEPS).filter(
          (step) =>
            step !== "load" &&
            step !== "maintenance" &&
            step !== "import" &&
            step !== "journey-stats" &&
            step !== "listenbrainz-reads" &&
            step !== "heavy-listeners" &&
            step !== "import-browse" &&
            step !== "export",
        );
  const outcomes: StepOutcome[] = [];
  const failures: string[] = [];
  for (const step of chosen) {
    const run = STEPS[step];
    if (!run) continue;
    const started = performance.now();
    log(`${step} …`);
    try {
      const outcome = await run();
      outcome.seconds = (performance.now() - started) / 1000;
      // The bench itself keeps about 1–2 cores busy; more means something else ran too.
      outcome.notes.push(
        `load average at the end of the step: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(" / ")} (1 / 5 / 15 min; ${cpus().length} cores)`,
      );
      outcomes.push(outcome);
    } catch (error) {
      const seconds = (performance.now() - started) / 1000;
      failures.push(`${step} could not be measured: ${(error as Error).message}`);
      outcomes.push({ step, rows: [], notes: [], seconds });
    }
  }

  const rows: BudgetRow[] = outcomes.flatMap((o) => o.rows);
  console.log(`\nSoundtrail performance budgets (ARCHITECTURE §9) — ${new Date().toISOString()}`);
  console.log(`Node ${process.version}, ${process.platform}/${process.arch}\n`);
  if (rows.length > 0) console.log(formatTable(rows));
  for (const outcome of outcomes) {
    if (outcome.notes.length === 0) continue;
    console.log(`\n${outcome.step}:`);
    for (const note of outcome.notes) console.log(`  - ${note}`);
  }
  console.log(
    `\nrun time: ${outcomes.map((o) => `${o.step} ${o.seconds.toFixed(1)} s`).join(", ")}`,
  );
  for (const failure of failures) console.log(`\nERROR ${failure}`);
  const failed = rows.filter((r) => r.pass === false).length;
  console.log(
    failed > 0
      ? `\n${failed} budget(s) over — see the FAIL rows.`
      : failures.length === 0
        ? "\nAll budgets met."
        : "",
  );
  // A budget over is a finding (exit 0); a step that could not run at all is an error.
  return failures.length > 0 ? 1 : 0;
}
