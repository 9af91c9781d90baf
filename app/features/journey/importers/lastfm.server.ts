import type { Readable } from "node:stream";
import type { CsvError } from "csv-parse";
import { lazyModule } from "~/lib/lazy-module.server";
import { broken, makePlay } from "./play";
import type { ImportItem } from "./types";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const LASTFM_DATE =
  /^(\d{1,2})\s+([A-Za-z]{3})[A-Za-z]*\s+(\d{4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/**
 * A Last.fm export date as epoch seconds (UTC): "22 May 2014, 20:11", a Unix time in seconds,
 * or an ISO date with a zone; NaN when it is none of these.
 */
export function parseLastfmDate(value: string | undefined): number {
  const text = (value ?? "").trim();
  if (!text) return Number.NaN;
  if (/^\d{9,11}$/.test(text)) return Number(text);
  const m = LASTFM_DATE.exec(text);
  if (m) {
    const month = MONTHS.indexOf((m[2] ?? "").toLowerCase());
    const day = Number(m[1]);
    const hour = Number(m[4]);
    const minute = Number(m[5]);
    if (month < 0 || day < 1 || day > 31 || hour > 23 || minute > 59) return Number.NaN;
    return Date.UTC(Number(m[3]), month, day, hour, minute, Number(m[6] ?? 0)) / 1000;
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
    return Date.parse(text.replace(" ", "T")) / 1000;
  }
  return Number.NaN;
}

interface Columns {
  artist: number;
  album: number;
  track: number;
  /** A Unix time column (uts), preferred when present. */
  uts: number;
  date: number;
}

/** The common exporter's layout: artist, album, track, date, no header. */
const HEADERLESS: Columns = { artist: 0, album: 1, track: 2, uts: -1, date: 3 };

/** The columns a header names, or null when the first row is not a header. */
function columnsOfHeader(row: string[]): Columns | null {
  const names = row.map((c) => c.trim().toLowerCase());
  if (!names.includes("artist") || !names.includes("track")) return null;
  return {
    artist: names.indexOf("artist"),
    album: names.indexOf("album"),
    track: names.indexOf("track"),
    uts: names.indexOf("uts"),
    date: names.indexOf("utc_time") >= 0 ? names.indexOf("utc_time") : names.indexOf("date"),
  };
}

/** csv-parse, imported with the first Last.fm file (lazyModule: not needed to serve a page). */
const loadCsvParse = lazyModule(async () => (await import("csv-parse")).parse);

/**
 * A Last.fm scrobble export as CSV: `artist,album,track,date` without a header ("22 May 2014,
 * 20:11", UTC), or with the header `uts,utc_time,artist,artist_mbid,album,album_mbid,track,
 * track_mbid`. A scrobble's time is when the track started. Rows the CSV reader cannot read are
 * reported with their line and skipped; the rest goes on.
 */
export async function* parseLastfmCsv(input: Readable): AsyncGenerator<ImportItem> {
  const parse = await loadCsvParse();
  const parser = parse({
    bom: true,
    info: true,
    // A scrobble is a few hundred bytes; a longer record is not one (and is not held whole).
    max_record_size: 64 * 1024,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  });
  const unreadable: { line: number; isTooLong: boolean }[] = [];
  parser.on("skip", (error: CsvError) => {
    unreadable.push({
      line: typeof error.lines === "number" ? error.lines : 0,
      isTooLong: error.code === "CSV_MAX_RECORD_SIZE",
    });
  });
  // The reader does not find its feet again after a record over the size limit.
  const unreadableRows = function* () {
    while (unreadable.length > 0) {
      const row = unreadable.shift();
      if (!row) break;
      yield row.isTooLong
        ? broken(
            row.line,
            "This row is far too long to be a scrobble; the rest of the file was not read.",
          )
        : broken(row.line, "The CSV reader could not read this row.");
      if (row.isTooLong) return true;
    }
    return false;
  };
  input.once("error", (error) => parser.destroy(error));
  const records = input.pipe(parser) as AsyncIterable<{
    record: string[];
    info: { lines: number };
  }>;
  let columns: Columns | null = null;
  try {
    for await (const { record, info } of records) {
      if (yield* unreadableRows()) return;
      const line = info.lines;
      if (columns === null) {
        const header = columnsOfHeader(record);
        columns = header ?? HEADERLESS;
        if (header) continue;
      }
      const at = (i: number) => (i >= 0 ? record[i] : undefined);
      if (record.length < 3) {
        yield broken(line, "It does not have the artist, album, track and date columns.");
        continue;
      }
      const fromUts = columns.uts >= 0 ? parseLastfmDate(at(columns.uts)) : Number.NaN;
      const startedAt = Number.isNaN(fromUts) ? parseLastfmDate(at(columns.date)) : fromUts;
      if (Number.isNaN(startedAt)) {
        yield broken(line, "Its date is missing or not like “22 May 2014, 20:11”.");
        continue;
      }
      yield makePlay(
        {
          startedAt,
          durationMs: null,
          artist: at(columns.artist),
          track: at(columns.track),
          release: at(columns.album),
          source: "lastfm",
        },
        line,
      );
    }
    yield* unreadableRows();
  } catch {
    yield broken(0, "The file is not a CSV file we can read; the rest of it was not read.");
  } finally {
    parser.destroy();
    input.destroy();
  }
}
