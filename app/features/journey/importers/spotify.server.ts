import type { Readable } from "node:stream";
import type { ListenSource } from "~/db/schema/listens";
import { jsonArrayElements } from "./json-array.server";
import { broken, makePlay } from "./play";
import { type ImportItem, MIN_PLAY_MS, type SkippedRow } from "./types";

const END_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** "2014-05-22 20:11" (UTC) as epoch milliseconds, or NaN. */
export function parseSpotifyEndTime(value: unknown): number {
  if (typeof value !== "string") return Number.NaN;
  const m = END_TIME.exec(value.trim());
  if (!m) return Number.NaN;
  const [year, month, day, hour, minute, second] = m.slice(1).map((p) => Number(p ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function skip(reason: SkippedRow["reason"], line: number): SkippedRow {
  return { kind: "skip", reason, line };
}

/**
 * The rows of a Spotify history file: each an object with its line, or (yielded as is) the
 * broken-row item for one that is not, or for a file that stops being a JSON array.
 */
async function* spotifyRows(
  input: Readable,
): AsyncGenerator<ImportItem | { index: number; value: Record<string, unknown> }> {
  for await (const element of jsonArrayElements(input)) {
    if ("error" in element) {
      yield broken(element.index, element.error);
      return;
    }
    const { index, value } = element;
    yield isObject(value) ? { index, value } : broken(index, "It is not an object.");
  }
}

/**
 * A row's play from when it ended (epoch ms) and how long it played (`msField`, checked here):
 * too short a play is skipped as Spotify's own stats skip it.
 */
function endedPlay(
  index: number,
  ended: number,
  ms: unknown,
  msField: string,
  row: { artist: unknown; track: unknown; release: unknown; source: ListenSource },
): ImportItem {
  const played = typeof ms === "number" ? ms : Number.NaN;
  if (!Number.isFinite(played) || played < 0) {
    return broken(index, `Its ${msField} is not a number of milliseconds.`);
  }
  if (played < MIN_PLAY_MS) return skip("short", index);
  return makePlay({ ...row, startedAt: (ended - played) / 1000, durationMs: played }, index);
}

/**
 * Spotify "Account data" (`StreamingHistory_music_N.json`): `{ endTime, artistName, trackName,
 * msPlayed }`, the end of the play in UTC to the minute. A play started `msPlayed` before its
 * end. `isPodcastFile` (StreamingHistory_podcast_N.json) marks every row as a podcast.
 */
export async function* parseSpotifyAccountData(
  input: Readable,
  options: { isPodcastFile?: boolean } = {},
): AsyncGenerator<ImportItem> {
  for await (const row of spotifyRows(input)) {
    if (!("value" in row)) {
      yield row;
      continue;
    }
    const { index, value } = row;
    if (options.isPodcastFile || "episodeName" in value || "podcastName" in value) {
      yield skip("podcast", index);
      continue;
    }
    const ended = parseSpotifyEndTime(value.endTime);
    if (Number.isNaN(ended)) {
      yield broken(index, "Its endTime is not a date like 2014-05-22 20:11.");
      continue;
    }
    yield endedPlay(index, ended, value.msPlayed, "msPlayed", {
      artist: value.artistName,
      track: value.trackName,
      release: null,
      source: "spotify",
    });
  }
}

function present(value: unknown): boolean {
  return value !== null && value !== undefined && value !== "";
}

/**
 * Spotify "Extended streaming history" (`Streaming_History_Audio_*.json`, `endsong_N.json`):
 * `ts` is when the play ended (UTC), `ms_played` how long it played. Podcast episodes,
 * audiobook chapters and plays in a private session are left out with their reason.
 */
export async function* parseSpotifyExtended(input: Readable): AsyncGenerator<ImportItem> {
  for await (const row of spotifyRows(input)) {
    if (!("value" in row)) {
      yield row;
      continue;
    }
    const { index, value } = row;
    if (
      present(value.episode_name) ||
      present(value.episode_show_name) ||
      present(value.spotify_episode_uri)
    ) {
      yield skip("podcast", index);
      continue;
    }
    if (
      present(value.audiobook_title) ||
      present(value.audiobook_uri) ||
      present(value.audiobook_chapter_uri)
    ) {
      yield skip("audiobook", index);
      continue;
    }
    if (value.incognito_mode === true) {
      yield skip("incognito", index);
      continue;
    }
    const ended = typeof value.ts === "string" ? Date.parse(value.ts) : Number.NaN;
    if (Number.isNaN(ended) || !/(?:Z|[+-]\d{2}:?\d{2})$/.test(String(value.ts))) {
      yield broken(index, "Its ts is not a UTC date like 2019-06-01T12:34:56Z.");
      continue;
    }
    yield endedPlay(index, ended, value.ms_played, "ms_played", {
      artist: value.master_metadata_album_artist_name,
      track: value.master_metadata_track_name,
      release: value.master_metadata_album_album_name,
      source: "spotify_extended",
    });
  }
}
