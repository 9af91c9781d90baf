import type { RecognizedLink, StreamingService } from "~/core/streaming-links";
import { type ProcessedImage, processImage } from "~/features/media/index.server";
import { FetchRefused, type Lookup, safeFetch } from "./safe-fetch.server";

/**
 * What a streaming service says about one of its links — title, artist, artwork, player — from
 * its oEmbed endpoint (Spotify, YouTube, SoundCloud, Deezer, Tidal) or the page's Open Graph
 * tags (Bandcamp, Apple Music). Every request goes through safeFetch.
 */

export interface UnfurlConfig {
  isEnabled: boolean;
  /** oEmbed endpoint per service that has one. */
  oembed: Partial<Record<StreamingService, string>>;
  /** Origin that serves the pages read for Open Graph tags, when not the link's own. */
  pageOrigin: Partial<Record<StreamingService, string>>;
  /**
   * Origins the operator configured in place of a service's own (a local fake in tests):
   * trusted as they are (plain HTTP, private addresses). Empty with the defaults.
   */
  trustedOrigins: readonly string[];
  /** Origins a player may be framed from (the CSP's frame-src). */
  frameOrigins: readonly string[];
  timeoutMs: number;
  lookup?: Lookup;
}

export interface LinkMetadata {
  title: string | null;
  artist: string | null;
  embedUrl: string | null;
  artwork: ProcessedImage | null;
}

/** Hosts each service answers from: its API and the CDN its artwork lives on. */
export const SERVICE_HOSTS: Record<StreamingService, readonly string[]> = {
  spotify: ["open.spotify.com", "i.scdn.co", "*.spotifycdn.com", "mosaic.scdn.co"],
  youtube: ["www.youtube.com", "i.ytimg.com"],
  youtube_music: ["www.youtube.com", "i.ytimg.com"],
  soundcloud: ["soundcloud.com", "i1.sndcdn.com"],
  deezer: ["api.deezer.com", "*.dzcdn.net"],
  tidal: ["oembed.tidal.com", "resources.tidal.com"],
  bandcamp: ["bandcamp.com", "*.bandcamp.com", "*.bcbits.com"],
  apple_music: ["music.apple.com", "*.mzstatic.com"],
};

const JSON_MAX_BYTES = 256 * 1024;
const PAGE_MAX_BYTES = 2 * 1024 * 1024;
const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Stored artwork is at most this many pixels on its longest side (cards show 48–320 px). */
export const ARTWORK_MAX_SIDE = 640;
const TEXT_MAX = 300;

function oembedRequest(base: string, link: RecognizedLink): string {
  const url = new URL(base);
  url.searchParams.set("url", link.url);
  url.searchParams.set("format", "json");
  return url.toString();
}

function pageRequest(link: RecognizedLink, origin: string | undefined): string {
  if (!origin) return link.url;
  const original = new URL(link.url);
  return new URL(`${original.pathname}${original.search}`, origin).toString();
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  "#39": "'",
  nbsp: " ",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z0-9]+);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith("#x")) return safeCodePoint(Number.parseInt(lower.slice(2), 16), whole);
    if (lower.startsWith("#") && lower !== "#39") {
      return safeCodePoint(Number.parseInt(lower.slice(1), 10), whole);
    }
    return ENTITIES[lower] ?? whole;
  });
}

function safeCodePoint(code: number, fallback: string): string {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff
    ? String.fromCodePoint(code)
    : fallback;
}

/** Plain text for a card: no control or direction marks, one line, bounded. */
export function cleanText(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
    .replace(/[\u0000-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return null;
  return text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX - 1)}…` : text;
}

/** The player named in an oEmbed `html` (an iframe), when it is on an allowed origin. */
export function playerFromHtml(html: unknown, frameOrigins: readonly string[]): string | null {
  if (typeof html !== "string") return null;
  const match = /<iframe\b[^>]*?\ssrc=(["'])(.*?)\1/i.exec(html);
  if (!match?.[2]) return null;
  try {
    const url = new URL(decodeEntities(match[2]));
    if (!frameOrigins.includes(url.origin)) return null;
    if (url.username || url.password) return null;
    return url.toString();
  } catch {
    return null;
  }
}

/** The Open Graph (and music:) meta tags of a page, first value of each. */
export function openGraphTags(html: string): Map<string, string> {
  const tags = new Map<string, string>();
  const head = html.slice(0, 512 * 1024);
  for (const [tag] of head.matchAll(/<meta\b[^>]*>/gi)) {
    const attrs = new Map<string, string>();
    for (const m of tag.matchAll(/([a-z:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
      const name = m[1]?.toLowerCase();
      if (name) attrs.set(name, decodeEntities(m[2] ?? m[3] ?? ""));
    }
    const key = (attrs.get("property") ?? attrs.get("name") ?? "").toLowerCase();
    const content = attrs.get("content");
    if (key && content !== undefined && !tags.has(key)) tags.set(key, content);
  }
  return tags;
}

/** "Album, by Artist" (Bandcamp) and "Song by Artist on Apple Music" into their parts. */
function splitPageTitle(
  service: StreamingService,
  raw: string | null,
): { title: string | null; artist: string | null } {
  if (!raw) return { title: null, artist: null };
  const pattern =
    service === "bandcamp"
      ? /^(.+), by (.+)$/
      : service === "apple_music"
        ? /^(.+?) (?:by|von|de|par|di) (.+?)(?: on Apple Music)?$/
        : null;
  const match = pattern?.exec(raw);
  if (match?.[1] && match[2]) return { title: cleanText(match[1]), artist: cleanText(match[2]) };
  return { title: raw, artist: null };
}

function fetchOptions(
  link: RecognizedLink,
  config: UnfurlConfig,
  maxBytes: number,
  accept: string,
) {
  return {
    allowedHosts: SERVICE_HOSTS[link.service],
    trustedOrigins: config.trustedOrigins,
    maxBytes,
    timeoutMs: config.timeoutMs,
    accept,
    lookup: config.lookup,
  };
}

/**
 * Asks the service about `link`. Throws FetchRefused when a safety rule refused a request,
 * another Error when the service could not be reached or answered nonsense.
 */
export async function fetchLinkMetadata(
  link: RecognizedLink,
  config: UnfurlConfig,
): Promise<LinkMetadata> {
  let title: string | null = null;
  let artist: string | null = null;
  let embedUrl: string | null = null;
  let imageUrl: string | null = null;
  let base: string;
  const oembed =
    config.oembed[link.service] ??
    (link.service === "youtube_music" ? config.oembed.youtube : undefined);
  if (oembed) {
    const answer = await safeFetch(
      oembedRequest(oembed, link),
      fetchOptions(link, config, JSON_MAX_BYTES, "application/json"),
    );
    base = answer.url;
    let data: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(answer.body.toString("utf8"));
      if (!parsed || typeof parsed !== "object") throw new Error("not an object");
      data = parsed as Record<string, unknown>;
    } catch {
      throw new Error("the oEmbed answer is not JSON");
    }
    title = cleanText(data.title);
    artist = cleanText(data.author_name);
    embedUrl = playerFromHtml(data.html, config.frameOrigins);
    imageUrl = typeof data.thumbnail_url === "string" ? data.thumbnail_url : null;
  } else {
    const answer = await safeFetch(
      pageRequest(link, config.pageOrigin[link.service]),
      fetchOptions(link, config, PAGE_MAX_BYTES, "text/html"),
    );
    base = answer.url;
    const tags = openGraphTags(answer.body.toString("utf8"));
    const split = splitPageTitle(link.service, cleanText(tags.get("og:title")));
    title = split.title;
    artist = split.artist ?? cleanText(tags.get("music:musician_description"));
    imageUrl = tags.get("og:image:secure_url") ?? tags.get("og:image") ?? null;
  }
  let artwork: ProcessedImage | null = null;
  if (imageUrl) {
    let absolute: string;
    try {
      absolute = new URL(imageUrl, base).toString();
    } catch {
      throw new FetchRefused("the artwork address is not a URL");
    }
    const image = await safeFetch(absolute, fetchOptions(link, config, IMAGE_MAX_BYTES, "image/*"));
    try {
      artwork = await processImage(new Uint8Array(image.body), { maxSide: ARTWORK_MAX_SIDE });
    } catch {
      throw new FetchRefused("the artwork is not an image");
    }
  }
  return { title, artist, embedUrl, artwork };
}
