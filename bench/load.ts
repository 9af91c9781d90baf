import { startLiveServer } from "../tests/support/live-server";
import {
  emptyCounts,
  LOAD_PEOPLE,
  loadPeople,
  runWorkload,
  seedLoad,
  signInPeople,
} from "../tests/support/load-workload";
import { type BudgetRow, log, type StepOutcome } from "./lib/report";

/**
 * `npm run bench -- load`: the longer run of server/load.test.ts. 50 simulated people (the same
 * mixed workload: feed, post, like, comment, follow, notifications) for BENCH_LOAD_ROUNDS rounds
 * (default 20) after a warm-up round, against the production server on PGlite. Reports requests
 * per second, answers by status class (budget: 0 5xx, 0 dropped connections) and resident
 * memory after warm-up, half-way and at the end (budget: flat — the end within 1.5× of the
 * warm-up figure).
 */
export async function benchLoad(): Promise<StepOutcome> {
  const rounds = Number(process.env.BENCH_LOAD_ROUNDS ?? 20);
  const people = loadPeople(LOAD_PEOPLE);
  log(`load: seeding ${people.length} people and starting the server`);
  const server = await startLiveServer({ seed: (db) => seedLoad(db, people) });
  try {
    const signedIn = await signInPeople(server.base, people);
    const counts = emptyCounts();
    await runWorkload(server.base, signedIn, 1, counts);
    const warm = server.rss() ?? Number.NaN;
    const started = performance.now();
    const half = Math.max(1, Math.floor(rounds / 2));
    await runWorkload(server.base, signedIn, half, counts);
    const middle = server.rss() ?? Number.NaN;
    log(`load: ${half} of ${rounds} rounds, ${counts.requests} requests`);
    await runWorkload(server.base, signedIn, rounds - half, counts);
    const seconds = (performance.now() - started) / 1000;
    const end = server.rss() ?? Number.NaN;
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    const rows: BudgetRow[] = [
      {
        step: "load",
        metric: `requests/s, ${LOAD_PEOPLE} people × ${rounds} rounds`,
        measured: (counts.requests / seconds).toFixed(1),
        budget: "",
        pass: null,
      },
      {
        step: "load",
        metric: "5xx answers",
        measured: String(counts.byClass["5xx"]),
        budget: "0",
        pass: counts.byClass["5xx"] === 0,
      },
      {
        step: "load",
        metric: "dropped connections",
        measured: String(counts.byClass.network),
        budget: "0",
        pass: counts.byClass.network === 0,
      },
      {
        step: "load",
        metric: "RSS end ÷ after warm-up",
        measured: `${(end / warm).toFixed(2)} (${mb(warm)} → ${mb(middle)} → ${mb(end)})`,
        budget: "≤ 1.5",
        pass: end / warm <= 1.5,
      },
    ];
    return {
      step: "load",
      rows,
      notes: [
        `answers: ${JSON.stringify(counts.byClass)} of ${counts.requests} requests`,
        ...counts.failures.map((f) => `failure: ${f}`),
      ],
      seconds,
    };
  } finally {
    await server.stop();
  }
}
