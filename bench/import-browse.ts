import { openAsBlob, rmSync } from "node:fs";
import path from "node:path";
import { SERVER_NODE_FLAGS } from "../server/node-flags";
import {
  insertAccounts,
  type LiveAccount,
  signIn,
  startLiveServer,
} from "../tests/support/live-server";
import { loadPeople, seedLoad, signInPeople } from "../tests/support/load-workload";
import { writeHistory } from "./import";
import { type BudgetRow, log, ms, percentile, type StepOutcome } from "./lib/report";
import { tempDataDir } from "./lib/server";
import { loop, METRICS_TOKEN, metrics, metricValue, type Timings, timings } from "./lib/traffic";

/**
 * Issue 36: a history import of BENCH_IMPORT_PLAYS plays (default 500,000, a Spotify extended
 * history file) on the production server on PGlite, with the heap flags `npm start` uses, while
 * 20 people read their feed. Page views are measured unloaded, then while the file is uploaded
 * and read into its preview (the upload request), then while the confirmed import copies the
 * plays into the history (the job, until it is done); `/healthz` is asked every 100 ms
 * throughout. Budgets: page views' p99 ≤ 3× unloaded in each loaded phase, `/healthz` never over
 * 200 ms, no 503.
 */

const PLAYS = Number(process.env.BENCH_IMPORT_PLAYS ?? 500_000);
const SECONDS = Number(process.env.BENCH_IMPORT_BROWSE_SECONDS ?? 20);
const IMPORTER: LiveAccount = {
  id: "bench-importer",
  email: "importer@import.bench.test",
  username: "bench_importer",
  displayName: "Importer",
};

export async function benchImportBrowse(): Promise<StepOutcome> {
  const started = performance.now();
  const data = tempDataDir("import-browse");
  const file = path.join(data.dir, "Streaming_History_Audio_2019-2024.json");
  await writeHistory(file, PLAYS);
  const browsers = loadPeople(20);
  const server = await startLiveServer({
    seed: async (db) => {
      await seedLoad(db, browsers);
      await insertAccounts(db, [IMPORTER]);
    },
    env: { NODE_OPTIONS: SERVER_NODE_FLAGS.join(" "), METRICS_TOKEN, LOG_LEVEL: "warn" },
  });
  try {
    const base = server.base;
    const signedIn = await signInPeople(base, browsers);
    const importer = { Cookie: await signIn(base, IMPORTER.email, "100.66.0.1") };
    const importerHeaders = { ...importer, Origin: base, "X-Forwarded-For": "100.66.0.1" };
    const browse = (until: () => boolean, into: Timings) =>
      Promise.all(
        signedIn.map((person) =>
          loop(
            base,
            () => "/feed",
            { Cookie: person.cookie, "X-Forwarded-For": person.ip },
            until,
            into,
          ),
        ),
      );
    const health = timings();
    const watchHealth = async (until: () => boolean) => {
      while (!until()) {
        const t = performance.now();
        const response = await fetch(`${base}/healthz`);
        await response.arrayBuffer();
        health.samples.push(performance.now() - t);
        health.statuses.set(response.status, (health.statuses.get(response.status) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    // 1. Unloaded.
    const end = Date.now() + SECONDS * 1000;
    const unloaded = timings();
    await browse(() => Date.now() > end, unloaded);
    log(`import-browse: unloaded ${unloaded.samples.length} page views`);

    // 2. The upload and its preview.
    let uploaded = false;
    const duringPreview = timings();
    const form = new FormData();
    form.set("intent", "upload");
    form.set("files", await openAsBlob(file), path.basename(file));
    const uploadStarted = performance.now();
    const [uploadStatus] = await Promise.all([
      fetch(`${base}/settings/listening`, {
        method: "POST",
        body: form,
        headers: importerHeaders,
        redirect: "manual",
      }).then(async (r) => {
        await r.arrayBuffer();
        uploaded = true;
        return r.status;
      }),
      browse(() => uploaded, duringPreview),
      watchHealth(() => uploaded),
    ]);
    const previewSeconds = (performance.now() - uploadStarted) / 1000;
    log(`import-browse: uploaded and read in ${previewSeconds.toFixed(1)} s (${uploadStatus})`);

    // 3. The copy into the history.
    const page = await fetch(`${base}/settings/listening`, { headers: importerHeaders }).then((r) =>
      r.text(),
    );
    const importId = /name="importId" value="([0-9a-f-]{36})"/.exec(page)?.[1];
    if (!importId) throw new Error("no import to confirm on /settings/listening");
    const confirm = await fetch(`${base}/settings/listening`, {
      method: "POST",
      headers: { ...importerHeaders, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "confirm", importId }).toString(),
      redirect: "manual",
    });
    await confirm.arrayBuffer();
    const copyStarted = performance.now();
    let copied = false;
    const duringCopy = timings();
    await Promise.all([
      browse(() => copied, duringCopy),
      watchHealth(() => copied),
      (async () => {
        for (;;) {
          const text = await metrics(base);
          if (metricValue(text, "soundtrail_jobs", { kind: "journey.import", status: "done" })) {
            break;
          }
          await new Promise((r) => setTimeout(r, 1000));
        }
        copied = true;
      })(),
    ]);
    const copySeconds = (performance.now() - copyStarted) / 1000;
    log(`import-browse: copied in ${copySeconds.toFixed(1)} s`);

    const p99 = (t: Timings) => percentile(t.samples, 0.99);
    const base99 = p99(unloaded);
    const busy = [duringPreview, duringCopy, health].reduce(
      (n, t) => n + (t.statuses.get(503) ?? 0),
      0,
    );
    const slowestHealth = Math.max(...health.samples);
    const rows: BudgetRow[] = [
      {
        step: "import-browse",
        metric: `page views p99 during upload + preview ÷ unloaded (${PLAYS} plays, 20 clients)`,
        measured: `${(p99(duringPreview) / base99).toFixed(2)} (${ms(base99)} → ${ms(p99(duringPreview))})`,
        budget: "≤ 3",
        pass: p99(duringPreview) / base99 <= 3,
      },
      {
        step: "import-browse",
        metric: "page views p99 during the copy ÷ unloaded",
        measured: `${(p99(duringCopy) / base99).toFixed(2)} (${ms(base99)} → ${ms(p99(duringCopy))})`,
        budget: "≤ 3",
        pass: p99(duringCopy) / base99 <= 3,
      },
      {
        step: "import-browse",
        metric: "/healthz slowest during the import",
        measured: ms(slowestHealth),
        budget: "≤ 200 ms",
        pass: slowestHealth <= 200,
      },
      {
        step: "import-browse",
        metric: "503 answers",
        measured: String(busy),
        budget: "0",
        pass: busy === 0,
      },
    ];
    return {
      step: "import-browse",
      rows,
      notes: [
        `upload + preview ${previewSeconds.toFixed(1)} s; copy ${copySeconds.toFixed(1)} s (${(PLAYS / copySeconds).toFixed(0)} plays/s, the journey's aggregation after it not included)`,
        `page views: unloaded ${unloaded.samples.length}, during the preview ${duringPreview.samples.length}, during the copy ${duringCopy.samples.length}`,
      ],
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await server.stop();
    rmSync(data.dir, { recursive: true, force: true });
  }
}
