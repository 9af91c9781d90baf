import type { Period } from "./tools.server";

/*
 * The built-in engine's understanding of a message: a few intents recognised from keywords,
 * tolerant of wording and typos. Each word is folded (lower case, no accents) and, when it is
 * not a keyword itself, matched to the nearest keyword within a small edit distance (one edit
 * for words of 4–6 letters, two from 7; a swap of neighbours counts as one), so "artsts",
 * "reccomend" and "frends" still count. Arguments (an artist, a tag, a track) are taken from the
 * message as written, after the word that introduces them.
 */

export type Intent =
  | { kind: "recent" }
  | { kind: "top_artists"; period: Period }
  | { kind: "friends" }
  | { kind: "who_likes"; artist: string }
  | { kind: "recommend" }
  | { kind: "summary"; year: number | null }
  | { kind: "find"; query: string }
  | { kind: "draft"; track: string }
  | { kind: "help" }
  | { kind: "unknown" };

type Keyword =
  | "draft"
  | "post"
  | "find"
  | "about"
  | "who"
  | "like"
  | "top"
  | "artist"
  | "friend"
  | "listening"
  | "recommend"
  | "new"
  | "summary"
  | "year"
  | "month"
  | "week"
  | "all"
  | "lately"
  | "help"
  | "to";

const KEYWORDS: Record<Keyword, string[]> = {
  draft: ["draft", "write", "compose"],
  post: ["post", "posts"],
  find: ["find", "search", "show", "look", "lookup", "list"],
  about: ["about", "for", "on", "tagged", "mentioning", "with", "called", "titled"],
  who: ["who", "whom", "anyone", "anybody", "someone", "somebody", "else", "others"],
  like: [
    "like",
    "likes",
    "love",
    "loves",
    "into",
    "enjoy",
    "enjoys",
    "fan",
    "fans",
    "digs",
    "listens",
    "follows",
  ],
  top: ["top", "favourite", "favorite", "favourites", "favorites", "most", "best", "played"],
  artist: ["artist", "artists", "band", "bands", "musicians", "singers"],
  friend: ["friend", "friends", "following", "mates", "buddies", "pals"],
  listening: ["listening", "playing", "sharing", "posting", "spinning", "hearing", "up"],
  recommend: [
    "recommend",
    "recommendation",
    "recommendations",
    "suggest",
    "suggestion",
    "suggestions",
    "discover",
    "discovery",
  ],
  new: ["new", "fresh", "next"],
  summary: ["summarise", "summarize", "summary", "recap", "wrapped", "review"],
  year: ["year", "yearly", "annual"],
  month: ["month", "monthly"],
  week: ["week", "weekly"],
  all: ["ever", "alltime"],
  lately: ["lately", "recently", "recent", "latest", "nowadays"],
  help: ["help", "commands", "can"],
  to: ["to"],
};

const EXACT = new Map<string, Keyword>();
for (const [keyword, words] of Object.entries(KEYWORDS) as [Keyword, string[]][]) {
  for (const word of words) EXACT.set(word, keyword);
}
/** Words typos are corrected towards: the longer keywords (short ones would match too much). */
const FUZZY_TARGETS = [...EXACT.entries()].filter(([word]) => word.length >= 4);

/** Optimal string alignment distance (Levenshtein plus swaps of neighbours), capped. */
export function editDistance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push(Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  }
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return rows[a.length]?.[b.length] ?? max + 1;
}

export function foldWord(word: string): string {
  return word
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[’']/g, "");
}

/** The keyword a folded word stands for, allowing a typo in longer words. */
export function keywordOf(word: string): Keyword | null {
  const exact = EXACT.get(word);
  if (exact) return exact;
  if (word.length < 4 || /\d/.test(word)) return null;
  const allowed = word.length >= 7 ? 2 : 1;
  let best: { keyword: Keyword; distance: number } | null = null;
  for (const [target, keyword] of FUZZY_TARGETS) {
    const distance = editDistance(word, target, allowed);
    if (distance <= allowed && (!best || distance < best.distance)) best = { keyword, distance };
  }
  return best?.keyword ?? null;
}

interface Token {
  /** The word as written. */
  raw: string;
  folded: string;
  keyword: Keyword | null;
  /** Where it starts in the message. */
  start: number;
}

export function tokenize(message: string): Token[] {
  const tokens: Token[] = [];
  for (const match of message.matchAll(/#?[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu)) {
    const raw = match[0];
    const folded = foldWord(raw);
    tokens.push({ raw, folded, keyword: keywordOf(folded), start: match.index ?? 0 });
  }
  return tokens;
}

/** The message as written from token `index` on, without closing punctuation or quotes. */
function restFrom(message: string, tokens: Token[], index: number): string {
  const token = tokens[index];
  if (!token) return "";
  return message
    .slice(token.start)
    .replace(/[\s?!.,;:]+$/u, "")
    .replace(/^["“'‘]+|["”'’]+$/gu, "")
    .trim();
}

/** The argument after the last of the `after` keywords (at or past `from`), if any. */
function argumentAfter(message: string, tokens: Token[], after: Keyword[], from = 0): string {
  let at = -1;
  for (let i = from; i < tokens.length; i++) {
    const keyword = tokens[i]?.keyword;
    if (keyword && after.includes(keyword)) {
      at = i;
      break;
    }
  }
  if (at < 0) return "";
  // Skip a run of connecting words: "likes listening to", "posts about the".
  let next = at + 1;
  while (next < tokens.length) {
    const t = tokens[next] as Token;
    if (t.keyword && [...after, "to", "listening"].includes(t.keyword)) next++;
    else if (
      ["the", "a", "an", "some", "music", "songs", "tracks", "track", "song"].includes(t.folded) &&
      next + 1 < tokens.length
    )
      next++;
    else break;
  }
  return restFrom(message, tokens, next);
}

function periodOf(has: (k: Keyword) => boolean, folded: string[]): Period {
  if (has("week")) return "week";
  if (has("month")) return "month";
  if (has("year")) return "year";
  if (has("all") || folded.includes("time")) return "all";
  return "all";
}

/** What a message asks for. */
export function recogniseIntent(message: string): Intent {
  const tokens = tokenize(message);
  const folded = tokens.map((t) => t.folded);
  const keywords = new Set(tokens.map((t) => t.keyword).filter(Boolean));
  const has = (k: Keyword) => keywords.has(k);
  const indexOf = (k: Keyword) => tokens.findIndex((t) => t.keyword === k);

  if (tokens.length === 0) return { kind: "unknown" };

  if (has("draft") && (has("post") || has("about"))) {
    const from = indexOf("draft");
    const track =
      argumentAfter(message, tokens, ["about"], from) ||
      argumentAfter(message, tokens, ["post"], from);
    return { kind: "draft", track };
  }

  const hashtag = tokens.find((t) => t.raw.startsWith("#") && t.raw.length > 1);
  if (has("find") || (has("post") && has("about"))) {
    const from = Math.max(indexOf("find"), 0);
    const query =
      argumentAfter(message, tokens, ["about"], from) ||
      argumentAfter(message, tokens, ["post"], from) ||
      (hashtag?.raw ?? "");
    if (query) return { kind: "find", query };
  }

  if (has("who") && has("like")) {
    const artist = argumentAfter(message, tokens, ["like"], indexOf("who"));
    if (artist) return { kind: "who_likes", artist };
  }

  if (has("summary")) {
    const year = tokens.map((t) => /^(19|20)\d\d$/.exec(t.folded)?.[0]).find(Boolean);
    return { kind: "summary", year: year ? Number(year) : null };
  }

  if (has("top") && (has("artist") || has("month") || has("year") || has("week"))) {
    return { kind: "top_artists", period: periodOf(has, folded) };
  }
  if (has("artist") && folded.includes("my") && !has("recommend") && !has("new")) {
    return { kind: "top_artists", period: periodOf(has, folded) };
  }

  if (has("friend") || (folded.includes("people") && folded.includes("follow"))) {
    return { kind: "friends" };
  }

  if (
    has("recommend") ||
    (has("new") && (folded.includes("something") || folded.includes("music")))
  ) {
    return { kind: "recommend" };
  }
  if (folded.includes("should") && (has("like") || folded.includes("listen"))) {
    return { kind: "recommend" };
  }

  if (has("lately") || (folded.includes("been") && (has("like") || has("listening")))) {
    return { kind: "recent" };
  }

  if (hashtag) return { kind: "find", query: hashtag.raw };

  if (has("help") || (folded.includes("what") && folded.includes("do"))) return { kind: "help" };
  return { kind: "unknown" };
}
