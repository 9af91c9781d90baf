import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { type DatabaseHandle, openDatabase, rowsOf, setDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { listenImports, profiles, user } from "~/db/schema";
import {
  confirmListenImport,
  createListenImport,
  settleListenImports,
} from "~/features/journey/import.server";
import { importWorkerScript, setImportReadMode } from "~/features/journey/importers/worker.server";
import { type BudgetRow, log, type StepOutcome } from "./lib/report";
import { tempDataDir } from "./lib/server";

/**
 * Issue 15: importing a Spotify extended streaming history of 1M plays (BENCH_IMPORT_PLAYS)
 * through the app's own functions, in process, on PGlite on disk (as the app runs): reading the
 * file into staging with its preview (createListenImport), then the background copy into the
 * history (confirmListenImport + the job). Throughput is plays ÷ the time of both; memory is
 * the peak resident set size during both, less the RSS before (sampled every 50 ms).
 */

const ARTISTS = 3000;
const TRACKS_PER_ARTIST = 40;

/**
 * The generator of a realistic extended-history file (one play every ~3 minutes, 3,000 artists),
 * run as a child process so that its garbage never counts in this process's memory.
 */
const GENERATOR = `
import { createWriteStream } from "node:fs";
import { once } from "node:events";
const [file, count] = [process.argv[1], Number(process.argv[2])];
const out = createWriteStream(file);
const start = Date.UTC(2019, 0, 1);
let buffer = "[\\n";
for (let i = 0; i < count; i++) {
  const artist = (i * 7919) % ${ARTISTS};
  const track = (i * 104729) % ${TRACKS_PER_ARTIST};
  buffer += (i === 0 ? "" : ",\\n") + JSON.stringify({
    ts: new Date(start + i * 180000 + 170000).toISOString().replace(/\\.\\d{3}Z$/, "Z"),
    platform: "Android OS", ms_played: 150000 + (i % 20000), conn_country: "DE",
    ip_addr: "192.0.2.1",
    master_metadata_track_name: "Track " + track + " of Artist " + artist + " (Remastered 2011)",
    master_metadata_album_artist_name: "Artist " + artist,
    master_metadata_album_album_name: "Album " + (artist % 700),
    spotify_track_uri: "spotify:track:" + (i % 999999).toString(36).padStart(22, "0"),
    episode_name: null, episode_show_name: null, spotify_episode_uri: null,
    audiobook_title: null, audiobook_uri: null, audiobook_chapter_uri: null,
    audiobook_chapter_title: null, reason_start: "trackdone", reason_end: "trackdone",
    shuffle: i % 3 === 0, skipped: false, offline: false, offline_timestamp: null,
    incognito_mode: false,
  });
  if (buffer.length > 1 << 20) {
    if (!out.write(buffer)) await once(out, "drain");
    buffer = "";
  }
}
out.end(buffer + "\\n]\\n");
await once(out, "finish");
`;

export async function writeHistory(file: string, plays: number): Promise<void> {
  const child = spawn(
    process.execPath,
    ["--input-type=module", "-e", GENERATOR, file, String(plays)],
    {
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`the history generator exited with ${code}`);
}

/**
 * CPU seconds (user + system) of this process's main thread alone, where PGlite runs and every
 * statement waits its turn (Linux: /proc/self/task/<pid>/stat; null elsewhere). With the
 * files read in a worker thread, this and not the process's CPU is what bounds the wall time.
 */
function mainThreadCpu(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    // Fields after the command name (in parentheses, which may hold spaces): utime is the 14th
    // field of the line, stime the 15th, in clock ticks (100 a second on Linux).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export async function benchImport(): Promise<StepOutcome> {
  const plays = Number(process.env.BENCH_IMPORT_PLAYS ?? 1_000_000);
  const data = tempDataDir("import");
  let handle: DatabaseHandle | null = null;
  try {
    const file = path.join(data.dir, "Streaming_History_Audio_2019-2024.json");
    const started = performance.now();
    await writeHistory(file, plays);
    const bytes = (await stat(file)).size;
    log(
      `import: ${plays} plays written (${(bytes / 1048576).toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    handle = await openDatabase({ dataDir: path.join(data.dir, "pglite") });
    await migrateDatabase(handle);
    setDatabase(handle);
    const userId = "bench-importer";
    await handle.db.insert(user).values({
      id: userId,
      name: "Bench Importer",
      email: "importer@bench.soundtrail.test",
      emailVerified: true,
      username: "bench_importer",
    });
    await handle.db.insert(profiles).values({
      userId,
      email: "importer@bench.soundtrail.test",
      displayName: "Bench Importer",
      username: "bench_importer",
    });

    // The reader's worker script, as a production server has it from the build (here bundled
    // from the sources once per process): not part of an import.
    // BENCH_IMPORT_READ=thread reads in the main thread, as before the worker (for an A/B).
    if (process.env.BENCH_IMPORT_READ === "thread") setImportReadMode("thread");
    const workerScript =
      process.env.BENCH_IMPORT_READ === "thread" ? null : await importWorkerScript();
    log(`import: files read ${workerScript ? "in a worker thread" : "in the main thread"}`);

    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 50);

    const c0 = process.cpuUsage();
    const m0 = mainThreadCpu();
    const t0 = performance.now();
    const preview = await createListenImport({
      userId,
      files: [{ name: path.basename(file), path: file }],
    });
    const t1 = performance.now();
    const readPeak = Math.max(peak, process.memoryUsage.rss());
    const c1 = process.cpuUsage();
    const m1 = mainThreadCpu();
    await confirmListenImport({ userId, importId: preview.id });
    await settleListenImports();
    const t2 = performance.now();
    const c2 = process.cpuUsage();
    const m2 = mainThreadCpu();
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());

    const [done] = await handle.db
      .select({ status: listenImports.status, added: listenImports.added })
      .from(listenImports)
      .where(eq(listenImports.id, preview.id));
    const [count] = rowsOf<{ n: number }>(
      await handle.db.execute(sql`select count(*)::int as n from listens`),
    );
    if (done?.status !== "done" || Number(count?.n) !== plays) {
      throw new Error(
        `the import did not bring every play in: ${done?.status}, ${count?.n} of ${plays}`,
      );
    }
    const readSeconds = (t1 - t0) / 1000;
    const copySeconds = (t2 - t1) / 1000;
    const total = readSeconds + copySeconds;
    const rate = plays / total;
    const growthMb = (peak - baseline) / 1048576;
    // CPU time of this process (user + system, every thread: the reader's worker too): on a
    // busy machine the wall time mostly measures the others' load; plays per CPU second is what
    // a change to the import moves.
    const cpu = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) =>
      (b.user - a.user + b.system - a.system) / 1e6;
    const readCpu = cpu(c0, c1);
    const copyCpu = cpu(c1, c2);
    const n = plays.toLocaleString("en-US");
    const rows: BudgetRow[] = [
      {
        step: "import",
        metric: `throughput, ${n}-play Spotify file (read + preview + copy)`,
        measured: `${Math.round(rate).toLocaleString("en-US")} plays/s (${total.toFixed(1)} s)`,
        budget: "≥ 20,000 plays/s",
        pass: rate >= 20_000,
      },
      {
        step: "import",
        metric: "read into staging with the preview",
        measured: `${Math.round(plays / readSeconds).toLocaleString("en-US")} plays/s (${readSeconds.toFixed(1)} s)`,
        budget: "—",
        pass: null,
      },
      {
        step: "import",
        metric: "copy into the history (background job)",
        measured: `${Math.round(plays / copySeconds).toLocaleString("en-US")} plays/s (${copySeconds.toFixed(1)} s)`,
        budget: "—",
        pass: null,
      },
      {
        step: "import",
        metric: "plays per CPU second of this process, read / copy (information)",
        measured: `${Math.round(plays / readCpu).toLocaleString("en-US")} / ${Math.round(plays / copyCpu).toLocaleString("en-US")} (${readCpu.toFixed(1)} s / ${copyCpu.toFixed(1)} s CPU)`,
        budget: "—",
        pass: null,
      },
      {
        step: "import",
        metric: "CPU of the main thread (PGlite's), read / copy (information)",
        measured:
          m0 === null || m1 === null || m2 === null
            ? "not measured here"
            : `${(m1 - m0).toFixed(1)} s / ${(m2 - m1).toFixed(1)} s`,
        budget: "—",
        pass: null,
      },
      {
        step: "import",
        metric: "peak RSS growth during the import",
        measured: `${growthMb.toFixed(0)} MB (${(baseline / 1048576).toFixed(0)} → ${(peak / 1048576).toFixed(0)} MB; ${((readPeak - baseline) / 1048576).toFixed(0)} MB by the end of the read)`,
        budget: "≤ 150 MB",
        pass: growthMb <= 150,
      },
    ];
    return {
      step: "import",
      rows,
      notes: [
        `import: ${n} plays, ${(bytes / 1048576).toFixed(0)} MB of JSON, ${ARTISTS} artists; PGlite on disk in a temp dir; RSS sampled every 50 ms`,
      ],
      seconds: 0,
    };
  } finally {
    setDatabase(undefined);
    await handle?.close();
    data.cleanup();
  }
}
