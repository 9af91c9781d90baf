import { type FileReport, type HistoryFile, readHistoryFiles } from "./read-files.server";
import type { SkipReason } from "./types";

/** A broken row as the preview lists it. */
export interface ReadProblem {
  file: string;
  line: number;
  message: string;
}

/**
 * Plays read from history files, a batch at a time, in the form the staging insert takes:
 * everything a batch needs is worked out here, so that this can run in a worker thread and the
 * thread that talks to the database only passes `rowsJson` on.
 */
export interface ReadBatch {
  /**
   * The batch's plays as a JSON array of `{ s, t, d, a, n, r, ak, tk, rk, o }`: their number
   * in the upload (from 1, counting plays only), start (epoch seconds), duration (ms), artist,
   * track and release names, their keys, and the source. `[]` when the batch has no plays.
   */
  rowsJson: string;
  /** Plays in `rowsJson`. */
  plays: number;
  /** Rows read since the previous batch: plays and rows left out. */
  rows: number;
  /** Rows left out since the previous batch, by reason. */
  skipped: [SkipReason, number][];
  /** Broken rows since the previous batch, while fewer than `maxProblems` were reported. */
  problems: ReadProblem[];
  /** Files read to their end since the previous batch. */
  files: FileReport[];
}

export interface ReadBatchOptions {
  /** Plays per batch (the last one may hold fewer). */
  batchSize: number;
  /** Broken rows reported with their line over the whole read (all are counted). */
  maxProblems: number;
}

/**
 * Reads the files (readHistoryFiles: streamed, zips entry by entry) into batches of
 * `batchSize` plays. Rows left out and finished files travel with the next batch; the last
 * batch carries what is left, even with no play.
 */
export async function* readBatches(
  files: HistoryFile[],
  options: ReadBatchOptions,
): AsyncGenerator<ReadBatch> {
  let seq = 0;
  let problemsReported = 0;
  let rows: unknown[] = [];
  let rowCount = 0;
  let skipped = new Map<SkipReason, number>();
  let problems: ReadProblem[] = [];
  let reports: FileReport[] = [];
  const take = (): ReadBatch => {
    const batch: ReadBatch = {
      rowsJson: JSON.stringify(rows),
      plays: rows.length,
      rows: rowCount,
      skipped: [...skipped],
      problems,
      files: reports,
    };
    rows = [];
    rowCount = 0;
    skipped = new Map();
    problems = [];
    reports = [];
    return batch;
  };
  for await (const event of readHistoryFiles(files)) {
    if (event.type === "file") {
      reports.push(event.report);
      continue;
    }
    const { item } = event;
    rowCount++;
    if (item.kind === "skip") {
      skipped.set(item.reason, (skipped.get(item.reason) ?? 0) + 1);
      if (item.reason === "broken" && problemsReported < options.maxProblems) {
        problemsReported++;
        problems.push({
          file: event.file,
          line: item.line ?? 0,
          message: item.message ?? "The row could not be read.",
        });
      }
      continue;
    }
    seq++;
    rows.push({
      s: seq,
      t: item.listenedAt,
      d: item.durationMs,
      a: item.artistName,
      n: item.trackName,
      r: item.releaseName,
      ak: item.artistKey,
      tk: item.trackKey,
      rk: item.releaseKey,
      o: item.source,
    });
    if (rows.length >= options.batchSize) yield take();
  }
  yield take();
}
