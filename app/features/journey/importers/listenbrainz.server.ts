import { createInterface } from "node:readline";
import { type Readable, Transform } from "node:stream";
import { broken, makePlay } from "./play";
import type { ImportItem } from "./types";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How long the track is, from `additional_info` (duration_ms, or duration in seconds). */
function durationOf(info: unknown): number | null {
  if (!isObject(info)) return null;
  const ms = Number(info.duration_ms);
  if (info.duration_ms !== undefined && Number.isFinite(ms) && ms > 0) return ms;
  const seconds = Number(info.duration);
  if (info.duration !== undefined && Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
  return null;
}

/** One ListenBrainz listen (`{ listened_at, track_metadata }`) as a play, or why not. */
export function listenToItem(value: unknown, line: number): ImportItem {
  if (!isObject(value)) return broken(line, "It is not a listen object.");
  const metadata = value.track_metadata;
  if (!isObject(metadata)) return broken(line, "It has no track_metadata.");
  const at = value.listened_at;
  const startedAt =
    typeof at === "number"
      ? at
      : typeof at === "string" && /^\d+$/.test(at)
        ? Number(at)
        : typeof at === "string"
          ? Date.parse(at) / 1000
          : Number.NaN;
  if (!Number.isFinite(startedAt)) return broken(line, "Its listened_at is not a time.");
  return makePlay(
    {
      startedAt,
      durationMs: durationOf(metadata.additional_info),
      artist: metadata.artist_name,
      track: metadata.track_name,
      release: metadata.release_name,
      source: "listenbrainz",
    },
    line,
  );
}

/**
 * ListenBrainz's export (`listens/YYYY/M.jsonl`): one listen per line, `listened_at` in Unix
 * seconds (when the listen started). Blank lines are ignored; a line that is not JSON is a
 * broken row with its number.
 */
/** Longest line read (a listen takes a few hundred bytes; readline would hold any line whole). */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Passes bytes on until a line grows past MAX_LINE_BYTES, then fails. */
function lineGuard(): Transform {
  let run = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const last = chunk.lastIndexOf(0x0a);
      run = last < 0 ? run + chunk.length : chunk.length - last - 1;
      if (run > MAX_LINE_BYTES) callback(new Error("line too long"));
      else callback(null, chunk);
    },
  });
}

export async function* parseListenBrainzJsonl(input: Readable): AsyncGenerator<ImportItem> {
  const guarded = input.pipe(lineGuard());
  input.once("error", (error) => guarded.destroy(error));
  const lines = createInterface({ input: guarded, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (!text.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        yield broken(line, "The line is not valid JSON.");
        continue;
      }
      yield listenToItem(value, line);
    }
  } catch {
    yield broken(
      line + 1,
      "This line is far too long to be a listen; the rest of the file was not read.",
    );
  } finally {
    lines.close();
    guarded.destroy();
    input.destroy();
  }
}
