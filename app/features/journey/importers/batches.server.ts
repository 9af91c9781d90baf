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
 * thread that talks to the database only passes `data` on.
 */
export interface ReadBatch {
  /**
   * The batch's plays as the staging insert takes them. Format `json`: a JSON array of
   * `{ s, t, d, a, n, r, ak, tk, rk, o }`: their number in the upload (from 1, counting plays
   * only), start (epoch seconds), duration (ms), artist, track and release names, their keys,
   * and the source; `[]` when the batch has no plays. Format `copy`: PostgreSQL's COPY text,
   * a line per play with the columns of `listen_import_rows` in order (import, number, start,
   * duration, names and keys, source), tab-separated, `\N` for null, `\\`, `\t`, `\n`, `\r`
   * escaped.
   */
  data: string;
  /** Plays in `data`. */
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
  /** `rows` as JSON (the default) or as COPY text for the import `importId`. */
  format?: "json" | "copy";
  importId?: string;
}

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIALS = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
};

/** A value as COPY's text format writes it. */
function copyText(value: string | number | null): string {
  if (value === null) return "\\N";
  if (typeof value === "number") return String(value);
  return COPY_SPECIAL.test(value)
    ? value.replace(COPY_SPECIALS, (c) => COPY_ESCAPES[c] ?? c)
    : value;
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
  const isCopy = options.format === "copy";
  const importId = options.importId ?? "";
  let rows: unknown[] = [];
  let lines: string[] = [];
  let plays = 0;
  let rowCount = 0;
  let skipped = new Map<SkipReason, number>();
  let problems: ReadProblem[] = [];
  let reports: FileReport[] = [];
  const take = (): ReadBatch => {
    const batch: ReadBatch = {
      data: isCopy ? lines.join("") : JSON.stringify(rows),
      plays,
      rows: rowCount,
      skipped: [...skipped],
      problems,
      files: reports,
    };
    rows = [];
    lines = [];
    plays = 0;
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
    plays++;
    if (isCopy) {
      lines.push(
        `${importId}\t${seq}\t${new Date(item.listenedAt * 1000).toISOString()}\t${copyText(item.durationMs)}\t${copyText(item.artistName)}\t${copyText(item.trackName)}\t${copyText(item.releaseName)}\t${copyText(item.artistKey)}\t${copyText(item.trackKey)}\t${copyText(item.releaseKey)}\t${item.source}\n`,
      );
    } else {
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
    }
    if (plays >= options.batchSize) yield take();
  }
  yield take();
}
