import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
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
export async function* parseListenBrainzJsonl(input: Readable): AsyncGenerator<ImportItem> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
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
  } finally {
    lines.close();
    input.destroy();
  }
}
