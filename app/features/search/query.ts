/** Search parameters shared by the server and the browser (no imports). */

export const SEARCH_TYPES = ["top", "people", "posts", "music", "tags"] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SEARCH_TYPE_LABELS: Record<SearchType, string> = {
  top: "Top",
  people: "People",
  posts: "Posts",
  music: "Music",
  tags: "Tags",
};

export const MUSIC_SECTIONS = ["artists", "albums", "tracks"] as const;
export type MusicSection = (typeof MUSIC_SECTIONS)[number];

export const MUSIC_SECTION_LABELS: Record<MusicSection, string> = {
  artists: "Artists",
  albums: "Albums",
  tracks: "Tracks",
};

/** Longest query we search for (characters); longer input is cut, never refused. */
export const SEARCH_QUERY_MAX_LENGTH = 200;

export function parseSearchType(value: string | null | undefined): SearchType {
  return (SEARCH_TYPES as readonly string[]).includes(value ?? "") ? (value as SearchType) : "top";
}

export function parseMusicSection(value: string | null | undefined): MusicSection | null {
  return (MUSIC_SECTIONS as readonly string[]).includes(value ?? "")
    ? (value as MusicSection)
    : null;
}

/**
 * Any input made safe to search: control characters (NUL included, which PostgreSQL refuses in
 * text) become spaces, lone surrogates become U+FFFD, runs of space collapse, and the result is
 * cut to SEARCH_QUERY_MAX_LENGTH characters.
 */
export function normalizeQuery(raw: string | null | undefined, max = SEARCH_QUERY_MAX_LENGTH) {
  if (!raw) return "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  const cleaned = raw.slice(0, max * 4).replace(/[\u0000-\u001f\u007f]+/g, " ");
  const wellFormed = toWellFormed(cleaned).replace(/\s+/g, " ").trim();
  return toWellFormed(Array.from(wellFormed).slice(0, max).join("")).trim();
}

function toWellFormed(text: string): string {
  return text.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    "\uFFFD",
  );
}

/** The tag a query names when it is one `#word` (what a tag link searches), else null. */
export function tagOfQuery(query: string): string | null {
  const match = /^#([\p{L}\p{N}_]{1,50})$/u.exec(query.trim());
  if (!match?.[1] || !/\p{L}/u.test(match[1])) return null;
  return match[1].toLowerCase();
}

/** Folds text the way the database does for matching: lower case, accents dropped. */
export function foldText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/**
 * The words of a query worth highlighting in results: folded, without operators ("or", a
 * leading "-" for words to leave out, quotes, "#").
 */
export function highlightTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const raw of query.split(/\s+/)) {
    if (!raw || raw.startsWith("-")) continue;
    for (const word of foldText(raw).split(/[^\p{L}\p{N}]+/u)) {
      if (word && word !== "or") terms.add(word);
    }
  }
  return [...terms].slice(0, 20);
}

export interface SearchHrefOptions {
  q?: string;
  type?: SearchType;
  cursor?: string | null;
  section?: MusicSection | null;
  artist?: string | null;
  album?: string | null;
  track?: string | null;
}

/** The URL of a search page; empty and default values are left out. */
export function searchHref(options: SearchHrefOptions): string {
  const params = new URLSearchParams();
  if (options.q) params.set("q", options.q);
  if (options.type && options.type !== "top") params.set("type", options.type);
  if (options.section) params.set("section", options.section);
  if (options.artist) params.set("artist", options.artist);
  if (options.album) params.set("album", options.album);
  if (options.track) params.set("track", options.track);
  if (options.cursor) params.set("cursor", options.cursor);
  const query = params.toString();
  return query ? `/search?${query}` : "/search";
}
