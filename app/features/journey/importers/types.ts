import type { ListenSource } from "~/db/schema/listens";

/** One play read from a history file, normalised: start time in UTC seconds, names and keys. */
export interface ImportedPlay {
  kind: "play";
  /** When the play started, seconds since the epoch (UTC). */
  listenedAt: number;
  durationMs: number | null;
  artistName: string;
  trackName: string;
  releaseName: string | null;
  artistKey: string;
  trackKey: string;
  releaseKey: string | null;
  source: ListenSource;
}

/** Why a row of a file is not imported. */
export const SKIP_REASONS = {
  duplicate: "Duplicates (already in this upload or in your history)",
  short: "Shorter than 30 seconds",
  incognito: "Played in a private (incognito) session",
  podcast: "Podcast episodes",
  audiobook: "Audiobook chapters",
  video: "Videos",
  broken: "Broken rows",
} as const;
export type SkipReason = keyof typeof SKIP_REASONS;

/** A row left out, with where it was when that helps the person. */
export interface SkippedRow {
  kind: "skip";
  reason: SkipReason;
  /** 1-based line (CSV, JSON lines) or entry number (JSON arrays) in its file. */
  line?: number;
  message?: string;
}

export type ImportItem = ImportedPlay | SkippedRow;

/** Spotify and others count a play only from 30 seconds on. */
export const MIN_PLAY_MS = 30_000;
/** Longest name kept (the listens table's limit). */
export const NAME_MAX_LENGTH = 512;
