/**
 * Recognises streaming-service links from the URL alone (no network) and says how to show
 * them: an embedded player where the service offers one for that URL, otherwise a clean card.
 */

export type StreamingService =
  | "spotify"
  | "apple_music"
  | "youtube"
  | "youtube_music"
  | "soundcloud"
  | "bandcamp"
  | "deezer"
  | "tidal";

export interface RecognizedLink {
  service: StreamingService;
  /** Human name of the service, e.g. "Apple Music". */
  serviceName: string;
  /** The player to frame, or null when the service has no URL-only embed for this link. */
  embedUrl: string | null;
  /** Height of the player in CSS pixels; YouTube players use a 16:9 box instead. */
  embedHeight: number | null;
  /** The original link (normalised), for "Open in …". */
  url: string;
}

export const SERVICE_NAMES: Record<StreamingService, string> = {
  spotify: "Spotify",
  apple_music: "Apple Music",
  youtube: "YouTube",
  youtube_music: "YouTube Music",
  soundcloud: "SoundCloud",
  bandcamp: "Bandcamp",
  deezer: "Deezer",
  tidal: "Tidal",
};

/** Every origin a player may be framed from: the CSP's frame-src is exactly this list. */
export const EMBED_ORIGINS = [
  "https://open.spotify.com",
  "https://embed.music.apple.com",
  "https://www.youtube-nocookie.com",
  "https://w.soundcloud.com",
  "https://widget.deezer.com",
  "https://embed.tidal.com",
] as const;

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;
const SAFE_ID = /^[A-Za-z0-9]+$/;
const SLUG = /^[A-Za-z0-9._~%-]+$/;

function result(
  service: StreamingService,
  url: URL,
  embedUrl: string | null,
  embedHeight: number | null,
): RecognizedLink {
  return {
    service,
    serviceName: SERVICE_NAMES[service],
    embedUrl,
    embedHeight: embedUrl ? embedHeight : null,
    url: url.toString(),
  };
}

function hostIs(host: string, ...names: string[]): boolean {
  return names.includes(host);
}

function spotify(url: URL): RecognizedLink | null {
  if (!hostIs(url.hostname, "open.spotify.com", "play.spotify.com")) return null;
  const parts = url.pathname.split("/").filter(Boolean);
  if (parts[0]?.startsWith("intl-")) parts.shift();
  if (parts[0] === "embed") parts.shift();
  const [type, id] = parts;
  const heights: Record<string, number> = {
    track: 152,
    episode: 152,
    album: 352,
    playlist: 352,
    artist: 352,
    show: 232,
  };
  if (type && id && type in heights && SAFE_ID.test(id)) {
    return result(
      "spotify",
      url,
      `https://open.spotify.com/embed/${type}/${id}`,
      heights[type] ?? 352,
    );
  }
  return result("spotify", url, null, null);
}

function appleMusic(url: URL): RecognizedLink | null {
  if (!hostIs(url.hostname, "music.apple.com", "embed.music.apple.com", "itunes.apple.com")) {
    return null;
  }
  const parts = url.pathname.split("/").filter(Boolean);
  const [country, type, ...rest] = parts;
  const types = ["album", "playlist", "song", "music-video", "station"];
  const valid =
    url.hostname !== "itunes.apple.com" &&
    country !== undefined &&
    /^[a-z]{2}$/.test(country) &&
    type !== undefined &&
    types.includes(type) &&
    rest.length > 0 &&
    rest.every((p) => SLUG.test(p));
  if (!valid) return result("apple_music", url, null, null);
  const song = url.searchParams.get("i");
  const query = song && /^\d+$/.test(song) ? `?i=${song}` : "";
  const isSingle = type === "song" || Boolean(query);
  return result(
    "apple_music",
    url,
    `https://embed.music.apple.com/${country}/${type}/${rest.join("/")}${query}`,
    isSingle ? 175 : 450,
  );
}

function youtube(url: URL): RecognizedLink | null {
  const host = url.hostname;
  const isMusic = host === "music.youtube.com";
  const isYoutube =
    isMusic || hostIs(host, "youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be");
  if (!isYoutube) return null;
  const service: StreamingService = isMusic ? "youtube_music" : "youtube";
  let videoId: string | null = null;
  if (host === "youtu.be") {
    videoId = url.pathname.split("/").filter(Boolean)[0] ?? null;
  } else if (url.pathname === "/watch") {
    videoId = url.searchParams.get("v");
  } else {
    const [first, second] = url.pathname.split("/").filter(Boolean);
    if (first && ["shorts", "embed", "live", "v"].includes(first)) videoId = second ?? null;
  }
  if (videoId && YOUTUBE_ID.test(videoId)) {
    return result(service, url, `https://www.youtube-nocookie.com/embed/${videoId}`, null);
  }
  const list = url.searchParams.get("list");
  if ((url.pathname === "/playlist" || url.pathname === "/watch") && list && SLUG.test(list)) {
    return result(
      service,
      url,
      `https://www.youtube-nocookie.com/embed/videoseries?list=${encodeURIComponent(list)}`,
      null,
    );
  }
  return result(service, url, null, null);
}

function soundcloud(url: URL): RecognizedLink | null {
  const host = url.hostname;
  if (
    !hostIs(host, "soundcloud.com", "www.soundcloud.com", "m.soundcloud.com", "on.soundcloud.com")
  ) {
    return null;
  }
  const parts = url.pathname.split("/").filter(Boolean);
  // Short links (on.soundcloud.com) need a network round trip to resolve: show a card.
  const isTrackOrSet =
    host !== "on.soundcloud.com" &&
    parts.length >= 2 &&
    parts.every((p) => SLUG.test(p)) &&
    !["discover", "search", "you", "stream", "upload", "charts"].includes(parts[0] ?? "");
  if (!isTrackOrSet) return result("soundcloud", url, null, null);
  const canonical = `https://soundcloud.com/${parts.join("/")}`;
  const isSet = parts[1] === "sets";
  return result(
    "soundcloud",
    url,
    `https://w.soundcloud.com/player/?url=${encodeURIComponent(canonical)}&color=%2315803d&auto_play=false&show_comments=false&visual=false`,
    isSet ? 300 : 166,
  );
}

function bandcamp(url: URL): RecognizedLink | null {
  if (url.hostname !== "bandcamp.com" && !url.hostname.endsWith(".bandcamp.com")) return null;
  // Bandcamp's player needs the numeric album/track id, which is not in the URL.
  return result("bandcamp", url, null, null);
}

function deezer(url: URL): RecognizedLink | null {
  const host = url.hostname;
  if (!hostIs(host, "deezer.com", "www.deezer.com", "link.deezer.com", "deezer.page.link")) {
    return null;
  }
  const parts = url.pathname.split("/").filter(Boolean);
  if (parts[0] && /^[a-z]{2}$/.test(parts[0])) parts.shift();
  const [type, id] = parts;
  const heights: Record<string, number> = { track: 152, album: 300, playlist: 300, artist: 300 };
  if (host.endsWith("deezer.com") && type && id && type in heights && /^\d+$/.test(id)) {
    return result(
      "deezer",
      url,
      `https://widget.deezer.com/widget/auto/${type}/${id}`,
      heights[type] ?? 300,
    );
  }
  return result("deezer", url, null, null);
}

function tidal(url: URL): RecognizedLink | null {
  if (!hostIs(url.hostname, "tidal.com", "www.tidal.com", "listen.tidal.com")) return null;
  const parts = url.pathname.split("/").filter(Boolean);
  if (parts[0] === "browse") parts.shift();
  const [type, id] = parts;
  const kinds: Record<string, [string, number]> = {
    track: ["tracks", 120],
    album: ["albums", 300],
    playlist: ["playlists", 300],
    video: ["videos", 300],
  };
  const kind = type ? kinds[type] : undefined;
  const validId = id !== undefined && (type === "playlist" ? /^[0-9a-f-]{36}$/i : /^\d+$/).test(id);
  if (kind && validId) {
    return result("tidal", url, `https://embed.tidal.com/${kind[0]}/${id}`, kind[1]);
  }
  return result("tidal", url, null, null);
}

const RECOGNIZERS = [spotify, appleMusic, youtube, soundcloud, bandcamp, deezer, tidal];

/** The service behind `input` and how to show it; null for unknown or unsafe links. */
export function recognizeLink(input: string | null | undefined): RecognizedLink | null {
  if (!input) return null;
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password) return null;
  url.hostname = url.hostname.toLowerCase();
  for (const recognize of RECOGNIZERS) {
    const found = recognize(url);
    if (found) return found;
  }
  return null;
}
