/**
 * The worker thread that reads history files for an import (importers/worker.server.ts starts
 * it): parsing JSON and CSV and normalising names run here, on another core than the one that
 * writes them into the database (PGlite runs in the main thread). Bundled on its own (the
 * build's `import-worker.mjs`): it imports nothing of the app but the importers.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ReadBatch, type ReadBatchOptions, readBatches } from "./batches.server";
import type { HistoryFile } from "./read-files.server";

export interface WorkerInput {
  files: HistoryFile[];
  options: ReadBatchOptions;
  /** Batches sent ahead of the reader's "more" (each "more" lets one more go). */
  ahead: number;
}

export type FromWorker =
  | { type: "batch"; batch: ReadBatch }
  | { type: "done" }
  | { type: "error"; message: string };

export type ToWorker = { type: "more" };

async function run(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("worker-entry runs in a worker thread");
  const input = workerData as WorkerInput;
  let credit = input.ahead;
  let wake: (() => void) | null = null;
  port.on("message", (message: ToWorker) => {
    if (message.type !== "more") return;
    credit++;
    wake?.();
    wake = null;
  });
  const send = (message: FromWorker) => port.postMessage(message);
  try {
    for await (const batch of readBatches(input.files, input.options)) {
      while (credit <= 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      credit--;
      send({ type: "batch", batch });
    }
    send({ type: "done" });
  } catch (error) {
    send({ type: "error", message: error instanceof Error ? error.message : String(error) });
  } finally {
    port.close();
  }
}

void run();
