import { artistKey, titleKey } from "~/core/music-keys";
import type { ListenSource } from "~/db/schema/listens";
import { type ImportedPlay, NAME_MAX_LENGTH, type SkippedRow } from "./types";

/** A name as text, trimmed; empty, missing or not a string gives null. */
export function cleanName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  if (!trimmed) return null;
  return trimmed.length > NAME_MAX_LENGTH ? trimmed.slice(0, NAME_MAX_LENGTH) : trimmed;
}

/**
 * Keys of names seen lately: a history repeats its artists, albums and tracks thousands of
 * times, and the key functions are the costliest part of reading a row. Bounded (cleared when
 * full), so a file of all-different names costs no more memory than this.
 */
const KEY_CACHE_MAX = 50_000;
const artistKeys = new Map<string, string>();
const titleKeys = new Map<string, string>();

function cached(cache: Map<string, string>, name: string, make: (name: string) => string) {
  let key = cache.get(name);
  if (key === undefined) {
    if (cache.size >= KEY_CACHE_MAX) cache.clear();
    key = make(name);
    cache.set(name, key);
  }
  return key;
}

/** Earliest and latest start times accepted: the year 2000 up to a day ahead of now. */
const EARLIEST = Date.UTC(2000, 0, 1) / 1000;

export function broken(line: number, message: string): SkippedRow {
  return { kind: "skip", reason: "broken", line, message };
}

/**
 * Builds a play from what a row says, or a broken-row skip with the reason. `startedAt` is in
 * seconds (UTC); names are checked and given their matching keys.
 */
export function makePlay(
  row: {
    startedAt: number;
    durationMs: number | null;
    artist: unknown;
    track: unknown;
    release: unknown;
    source: ListenSource;
  },
  line: number,
): ImportedPlay | SkippedRow {
  const artistName = cleanName(row.artist);
  const trackName = cleanName(row.track);
  if (!artistName) return broken(line, "It has no artist name.");
  if (!trackName) return broken(line, "It has no track name.");
  if (!Number.isFinite(row.startedAt)) return broken(line, "Its date could not be read.");
  const startedAt = Math.floor(row.startedAt);
  if (startedAt < EARLIEST || startedAt > Date.now() / 1000 + 86_400) {
    return broken(line, "Its date is out of range.");
  }
  const releaseName = cleanName(row.release);
  const durationMs =
    row.durationMs !== null && Number.isFinite(row.durationMs) && row.durationMs >= 0
      ? Math.min(Math.round(row.durationMs), 2_147_483_647)
      : null;
  return {
    kind: "play",
    listenedAt: startedAt,
    durationMs,
    artistName,
    trackName,
    releaseName,
    artistKey: cached(artistKeys, artistName, artistKey),
    trackKey: cached(titleKeys, trackName, titleKey),
    releaseKey: releaseName ? cached(titleKeys, releaseName, titleKey) : null,
    source: row.source,
  };
}
