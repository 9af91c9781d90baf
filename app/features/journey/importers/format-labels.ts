import type { HistoryFormat } from "./read-files.server";

/** How the preview names each kind of file. */
export const FORMAT_LABELS_BY_FORMAT: Record<HistoryFormat, string> = {
  spotify: "Spotify account data",
  spotify_podcast: "Spotify podcasts (not music)",
  spotify_extended: "Spotify extended streaming history",
  lastfm: "Last.fm CSV",
  listenbrainz: "ListenBrainz export",
  listenbrainz_json: "ListenBrainz export",
  zip: "Zip",
  unknown: "Not a listening history file",
};
