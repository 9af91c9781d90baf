import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { logger } from "~/core/logger.server";
import { type ReadBatch, type ReadBatchOptions, readBatches } from "./batches.server";
import type { HistoryFile } from "./read-files.server";
import type { FromWorker, ToWorker, WorkerInput } from "./worker-entry.server";

/** The worker's source, bundled on demand where the sources are (development, tests, bench). */
const ENTRY = "app/features/journey/importers/worker-entry.server.ts";
/** The worker as `npm run build` writes it (scripts/postbuild.mjs), in the build directory. */
export const IMPORT_WORKER_FILE = "import-worker.mjs";
/** Batches the worker reads ahead of the database: enough to keep both threads busy. */
const AHEAD = 2;

/**
 * The worker's heap: it holds a chunk of the file, a few batches and the name-key caches (tens
 * of MB at most). V8's defaults would let it grow far larger before collecting, all of it
 * resident memory on top of the server's. A young generation under ~24 MB costs CPU instead:
 * reading 200,000 plays took 4.0–4.2 s with 8 MB semi-spaces, 5.2 s with 2 MB ones.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 24, maxOldGenerationSizeMb: 96 };

export type ReadMode = "worker" | "thread";

let mode: ReadMode = "worker";
let script: Promise<string | null> | null = null;

/**
 * Where to read files for imports: in a worker thread (the default, when its script can be
 * found) or in this thread. For tests of both paths.
 */
export function setImportReadMode(next: ReadMode): void {
  mode = next;
}

async function bundleEntry(): Promise<string | null> {
  const source = path.resolve(ENTRY);
  if (!existsSync(source)) return null;
  // esbuild is a development dependency: a production install has none (and uses the build's).
  const esbuildName = "esbuild";
  const esbuild = (await import(esbuildName)) as typeof import("esbuild");
  const result = await esbuild.build({
    entryPoints: [source],
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
    tsconfig: path.resolve("tsconfig.json"),
  });
  const code = result.outputFiles[0]?.contents;
  if (!code) return null;
  const outDir = path.resolve("node_modules/.cache/soundtrail");
  mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, IMPORT_WORKER_FILE);
  // Written under another name, then renamed: processes bundling at once never read half a file.
  const partial = `${outfile}.${process.pid}.${Date.now()}`;
  writeFileSync(partial, code);
  renameSync(partial, outfile);
  return outfile;
}

/**
 * The worker's script: the build's in production, else bundled from the sources (once per
 * process), else the build's if there is one. Null when there is neither.
 */
export function importWorkerScript(): Promise<string | null> {
  script ??= (async () => {
    const built = path.resolve(process.env.SOUNDTRAIL_BUILD_DIR ?? "build", IMPORT_WORKER_FILE);
    if (process.env.NODE_ENV === "production" && existsSync(built)) return built;
    const bundled = await bundleEntry().catch((error: unknown) => {
      logger.debug({ err: error }, "could not bundle the import worker");
      return null;
    });
    if (bundled) return bundled;
    return existsSync(built) ? built : null;
  })();
  return script;
}

async function* readInWorker(
  file: string,
  files: HistoryFile[],
  options: ReadBatchOptions,
): AsyncGenerator<ReadBatch> {
  const input: WorkerInput = { files, options, ahead: AHEAD };
  const worker = new Worker(file, { workerData: input, resourceLimits: WORKER_HEAP });
  const queue: FromWorker[] = [];
  let failure: Error | null = null;
  let exited = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  worker.on("message", (message: FromWorker) => {
    queue.push(message);
    poke();
  });
  worker.on("error", (error) => {
    failure = error;
    poke();
  });
  worker.on("exit", () => {
    exited = true;
    poke();
  });
  try {
    while (true) {
      const message = queue.shift();
      if (!message) {
        if (failure) throw failure;
        if (exited) throw new Error("The import's reader stopped before the end of the files.");
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      if (message.type === "done") return;
      if (message.type === "error") throw new Error(message.message);
      worker.postMessage({ type: "more" } satisfies ToWorker);
      yield message.batch;
    }
  } finally {
    await worker.terminate();
  }
}

/**
 * Reads history files into batches of plays (batches.server.ts): in a worker thread, so that
 * parsing runs beside the database's work instead of taking turns with it on one core, or in
 * this thread when no worker script is at hand. The batches are the same either way. The
 * worker never reads more than a few batches ahead of the caller.
 */
export async function* readImportBatches(
  files: HistoryFile[],
  options: ReadBatchOptions,
): AsyncGenerator<ReadBatch> {
  const file = mode === "worker" ? await importWorkerScript() : null;
  if (file) yield* readInWorker(file, files, options);
  else yield* readBatches(files, options);
}
