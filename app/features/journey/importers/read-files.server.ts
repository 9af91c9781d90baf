import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import type yauzl from "yauzl";
import type { ListenSource } from "~/db/schema/listens";
import { lazyModule } from "~/lib/lazy-module.server";
import { jsonArrayElements } from "./json-array.server";
import { parseLastfmCsv } from "./lastfm.server";
import { listenToItem, parseListenBrainzJsonl } from "./listenbrainz.server";
import { broken } from "./play";
import { parseSpotifyAccountData, parseSpotifyExtended } from "./spotify.server";
import type { ImportItem } from "./types";

/** What a file holds, as far as importing goes. */
export type HistoryFormat =
  | Exclude<ListenSource, "scrobble">
  | "spotify_podcast"
  | "listenbrainz_json"
  | "zip"
  | "unknown";

export interface HistoryFile {
  /** The name the person's file had (for messages). */
  name: string;
  /** Where its bytes are on disk. */
  path: string;
}

export interface FileReport {
  name: string;
  format: HistoryFormat;
  /** Rows read from it (plays and skipped rows). */
  rows: number;
}

export type HistoryEvent =
  | { type: "item"; file: string; item: ImportItem }
  | { type: "file"; report: FileReport };

const SNIFF_BYTES = 4096;

/** The format a file name alone gives away (null: look inside). */
export function formatByName(name: string): HistoryFormat | null {
  const base = path.posix.basename(name.replaceAll("\\", "/"));
  if (/^StreamingHistory_podcast_\d+\.json$/i.test(base)) return "spotify_podcast";
  if (/^StreamingHistory(?:_music)?_?\d*\.json$/i.test(base)) return "spotify";
  if (/^(?:Streaming_History_Audio_.*|endsong(?:_\d+)?)\.json$/i.test(base)) {
    return "spotify_extended";
  }
  if (/^Streaming_History_Video_.*\.json$/i.test(base)) return "unknown";
  if (/\.jsonl$/i.test(base)) return "listenbrainz";
  if (/\.csv$/i.test(base)) return "lastfm";
  if (/\.zip$/i.test(base)) return "zip";
  if (/\.json$/i.test(base)) return null;
  return "unknown";
}

/** The format of a JSON file from its first bytes. */
export function formatByContent(head: string): HistoryFormat {
  if (/"ms_played"|"master_metadata_/.test(head)) return "spotify_extended";
  if (/"(?:episodeName|podcastName)"/.test(head)) return "spotify_podcast";
  if (/"msPlayed"|"endTime"/.test(head)) return "spotify";
  if (/"listened_at"/.test(head)) return "listenbrainz_json";
  return "unknown";
}

async function headOfFile(filePath: string): Promise<string> {
  const handle = await open(filePath, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

async function headOfStream(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= SNIFF_BYTES) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, SNIFF_BYTES).toString("utf8");
}

async function* listenBrainzJsonArray(input: Readable): AsyncGenerator<ImportItem> {
  for await (const element of jsonArrayElements(input)) {
    if ("error" in element) {
      yield broken(element.index, element.error);
      return;
    }
    yield listenToItem(element.value, element.index);
  }
}

function parserFor(format: HistoryFormat, input: Readable): AsyncGenerator<ImportItem> | null {
  switch (format) {
    case "spotify":
      return parseSpotifyAccountData(input);
    case "spotify_podcast":
      return parseSpotifyAccountData(input, { isPodcastFile: true });
    case "spotify_extended":
      return parseSpotifyExtended(input);
    case "lastfm":
      return parseLastfmCsv(input);
    case "listenbrainz":
      return parseListenBrainzJsonl(input);
    case "listenbrainz_json":
      return listenBrainzJsonArray(input);
    default:
      return null;
  }
}

async function* readOne(
  name: string,
  format: HistoryFormat,
  open: () => Promise<Readable>,
): AsyncGenerator<HistoryEvent> {
  let rows = 0;
  const input = await open();
  const items = parserFor(format, input);
  if (!items) {
    input.destroy();
  } else {
    for await (const item of items) {
      rows++;
      yield { type: "item", file: name, item };
    }
  }
  yield { type: "file", report: { name, format, rows } };
}

/** yauzl, imported when the first zip is read (lazyModule: not needed to serve a page). */
const loadYauzl = lazyModule(async () => (await import("yauzl")).default);

/** Files in a zip worth reading: history files by name, and JSON files that look like one. */
async function* readZip(zipName: string, zipPath: string): AsyncGenerator<HistoryEvent> {
  // Outside the try: a package that fails to load is the server's fault, not a broken zip.
  const { openPromise } = await loadYauzl();
  let zip: yauzl.ZipFile;
  try {
    zip = await openPromise(zipPath, { lazyEntries: true, autoClose: false });
  } catch {
    yield { type: "file", report: { name: zipName, format: "unknown", rows: 0 } };
    yield {
      type: "item",
      file: zipName,
      item: broken(0, "The zip file could not be opened; is it complete?"),
    };
    return;
  }
  try {
    let sawHistory = false;
    while (true) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        const onEntry = (e: yauzl.Entry) => {
          zip.off("end", onEnd);
          zip.off("error", onError);
          resolve(e);
        };
        const onEnd = () => {
          zip.off("entry", onEntry);
          zip.off("error", onError);
          resolve(null);
        };
        const onError = (error: Error) => {
          zip.off("entry", onEntry);
          zip.off("end", onEnd);
          reject(error);
        };
        zip.once("entry", onEntry);
        zip.once("end", onEnd);
        zip.once("error", onError);
        zip.readEntry();
      });
      if (!entry) break;
      const name = entry.fileName;
      if (name.endsWith("/") || name.startsWith("__MACOSX/") || /(^|\/)\._/.test(name)) continue;
      let format = formatByName(name);
      if (format === "zip" || format === "unknown") continue;
      const label = `${zipName}/${name}`;
      if (format === null) {
        format = formatByContent(await headOfStream(await zip.openReadStreamPromise(entry)));
        if (format === "unknown") continue;
      }
      sawHistory = true;
      yield* readOne(label, format, () => zip.openReadStreamPromise(entry));
    }
    if (!sawHistory) {
      yield { type: "file", report: { name: zipName, format: "unknown", rows: 0 } };
    }
  } catch {
    yield {
      type: "item",
      file: zipName,
      item: broken(0, "The zip file is damaged; the rest of it was not read."),
    };
  } finally {
    zip.close();
  }
}

/**
 * Reads history files one after the other (zips entry by entry), each streamed from disk, and
 * yields every play or skipped row with the file it came from, then a report per file.
 * The format comes from the file's name and, for JSON, from its first bytes.
 */
export async function* readHistoryFiles(files: HistoryFile[]): AsyncGenerator<HistoryEvent> {
  for (const file of files) {
    let format = formatByName(file.name);
    if (format === "zip") {
      yield* readZip(file.name, file.path);
      continue;
    }
    if (format === null) format = formatByContent(await headOfFile(file.path));
    yield* readOne(file.name, format, async () => createReadStream(file.path));
  }
}
