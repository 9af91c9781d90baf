/*
 * The built-in engine's understanding of a message: intents recognised from keywords, tolerant
 * of wording and typos, never from a list of exact sentences. Each word is folded (lower case,
 * no accents, no apostrophes) and, when it is not a keyword itself, matched to the nearest
 * keyword within a small edit distance (one edit for words of 4–6 letters, two from 7; a swap of
 * neighbours counts as one), so "artsts", "reccomend" and "frends" still count. Synonyms map to
 * one keyword ("songs" and "tunes" are tracks, "records" are albums). Arguments (an artist, a
 * tag, a track, a person) are taken from the message as written. A period ("in March", "this
 * year", "last summer", "the last 30 days") becomes a journey period: the journey's own rolling
 * windows, or a range of days the journey shows as a custom range.
 */

/** The journey's rolling windows (its "Last 7 days", "Last 30 days", "Last 12 months", "All time"). */
export type RollingPeriod = "week" | "month" | "year" | "all";

/**
 * A period as the journey page takes it: one of its rolling windows, or a custom range of days
 * (UTC, both included) with the words to say it with ("in March 2026", "this year").
 */
export type PeriodSpec =
  | { kind: "rolling"; period: RollingPeriod }
  | { kind: "range"; from: string; to: string; name: string };

/** What a question about listening wants to know. */
export type Focus = "overview" | "artists" | "albums" | "tracks" | "time" | "plays";

export type Intent =
  /** Listening (the journey's numbers) of the person asking (`person` null) or someone else. */
  | { kind: "listening"; person: string | null; focus: Focus; period: PeriodSpec }
  /** What someone else has been posting. */
  | { kind: "posts_by"; person: string }
  | { kind: "friends" }
  /** Posts about a topic or tag from the people the person follows. */
  | { kind: "friends_topic"; topic: string }
  | { kind: "who_likes"; artist: string }
  | { kind: "recommend" }
  | { kind: "summary"; period: PeriodSpec }
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
  | "album"
  | "track"
  | "time"
  | "friend"
  | "follow"
  | "listening"
  | "recommend"
  | "new"
  | "summary"
  | "year"
  | "month"
  | "week"
  | "day"
  | "all"
  | "lately"
  | "help"
  | "tips"
  | "to";

const KEYWORDS: Record<Keyword, string[]> = {
  draft: ["draft", "write", "compose"],
  post: [
    "post",
    "posts",
    "posted",
    "posting",
    "share",
    "shared",
    "sharing",
    "shares",
    "wrote",
    "writing",
  ],
  find: ["find", "search", "show", "look", "lookup", "list"],
  about: ["about", "for", "on", "tagged", "mentioning", "with", "called", "titled"],
  who: ["who", "whom", "anyone", "anybody", "someone", "somebody", "else", "others"],
  like: ["like", "likes", "love", "loves", "into", "enjoy", "enjoys", "fan", "fans", "digs"],
  top: [
    "top",
    "favourite",
    "favorite",
    "favourites",
    "favorites",
    "fave",
    "faves",
    "most",
    "best",
    "biggest",
    "stats",
    "statistics",
    "numbers",
  ],
  artist: ["artist", "artists", "band", "bands", "musicians", "singers", "singer", "groups"],
  album: ["album", "albums", "record", "records", "lp", "lps", "ep", "eps", "release", "releases"],
  track: ["track", "tracks", "song", "songs", "tune", "tunes", "single", "singles"],
  time: ["hours", "hour", "minutes", "hrs", "long", "time"],
  friend: ["friend", "friends", "mates", "buddies", "pals", "contacts"],
  follow: ["follow", "follows", "following", "followed", "followees"],
  listening: [
    "listening",
    "listen",
    "listened",
    "listens",
    "playing",
    "play",
    "played",
    "plays",
    "spinning",
    "spun",
    "hearing",
    "heard",
    "scrobbled",
    "scrobbles",
    "scrobbling",
    "streamed",
    "streaming",
    "journey",
  ],
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
  new: ["new", "fresh", "next", "different"],
  summary: ["summarise", "summarize", "summary", "recap", "wrapped", "review", "overview"],
  year: ["year", "yearly", "annual", "years"],
  month: ["month", "monthly", "months"],
  week: ["week", "weekly", "weeks"],
  day: ["days", "day"],
  all: ["ever", "alltime", "all-time"],
  lately: ["lately", "recently", "recent", "latest", "nowadays", "currently"],
  help: ["help", "commands", "can"],
  tips: ["tips", "tip", "picks", "pick", "recs", "gems"],
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

/**
 * Words that are never a typo of a keyword (common words one edit away from one: "year" and
 * "your", "most" and "must", "play" and "plan").
 */
const NOT_TYPOS = new Set([
  "your",
  "yours",
  "must",
  "post",
  "past",
  "last",
  "plan",
  "what",
  "whats",
  "that",
  "this",
  "then",
  "them",
  "they",
  "there",
  "their",
  "here",
  "have",
  "some",
  "from",
  "been",
  "much",
  "many",
  "make",
  "made",
  "more",
  "tell",
  "give",
  "does",
  "done",
  "just",
  "also",
  "same",
  "know",
  "people",
  "months",
  "weeks",
  "summer",
  "spring",
  "autumn",
  "winter",
  "today",
  "tonight",
  "music",
  "tracks",
  "times",
  "since",
  "which",
  "ones",
  "again",
  "past",
  "over",
  "into",
  "pass",
  "plays",
  "spent",
  "spend",
  "tips",
  "jazz",
]);

/** The keyword a folded word stands for, allowing a typo in longer words. */
export function keywordOf(word: string): Keyword | null {
  const exact = EXACT.get(word);
  if (exact) return exact;
  if (word.length < 4 || /\d/.test(word) || NOT_TYPOS.has(word)) return null;
  if (monthOf(word) !== null || SEASONS[word]) return null;
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
  /** The keyword only when written as one (no typo): names are never corrected. */
  exactKeyword: Keyword | null;
  /** Where it starts in the message. */
  start: number;
}

/** Contractions folded into the words the rules look for. */
function expand(folded: string): string[] {
  if (folded === "whats") return ["what", "is"];
  if (folded === "whos") return ["who", "is"];
  if (folded === "hows") return ["how", "is"];
  if (folded === "ive") return ["i", "have"];
  if (folded === "im") return ["i", "am"];
  if (folded === "whatve") return ["what", "have"];
  return [folded];
}

export function tokenize(message: string): Token[] {
  const tokens: Token[] = [];
  for (const match of message.matchAll(/[#@]?[\p{L}\p{N}][\p{L}\p{N}'’_.-]*/gu)) {
    const raw = match[0].replace(/[.'’-]+$/u, "");
    const whole = foldWord(raw);
    for (const folded of expand(whole)) {
      const exact = EXACT.get(folded) ?? null;
      tokens.push({
        raw,
        folded,
        keyword: keywordOf(folded),
        exactKeyword: exact,
        start: match.index ?? 0,
      });
    }
  }
  return tokens;
}

/** The message as written from token `index` on, without closing punctuation or quotes. */
function restFrom(message: string, tokens: Token[], index: number, end?: number): string {
  const token = tokens[index];
  if (!token) return "";
  const stop = end !== undefined ? tokens[end]?.start : undefined;
  return message
    .slice(token.start, stop)
    .replace(/[\s?!.,;:]+$/u, "")
    .replace(/^["“'‘]+|["”'’]+$/gu, "")
    .trim();
}

/** The argument after the first of the `after` keywords (at or past `from`), if any. */
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
  // Up to where friends or a period start ("about jazz from people I follow", "… this year").
  let end: number | undefined;
  for (let i = next + 1; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (
      ["from", "by", "among", "in", "this", "last", "of", "during", "since"].includes(t.folded) &&
      tokens
        .slice(i + 1)
        .some((n) => n.keyword === "friend" || n.keyword === "follow" || isPeriodWord(n))
    ) {
      end = i;
      break;
    }
  }
  return restFrom(message, tokens, next, end);
}

/* ---------------------------------------------------------------- periods */

const MONTH_NAMES = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const MONTH_SHORT = [
  "jan",
  "feb",
  "mar",
  "apr",
  "may",
  "jun",
  "jul",
  "aug",
  "sep",
  "oct",
  "nov",
  "dec",
];

/** The month (0–11) a word names, allowing a typo in the longer names ("febuary", "septmber"). */
export function monthOf(word: string): number | null {
  const full = MONTH_NAMES.indexOf(word);
  if (full >= 0) return full;
  const short = MONTH_SHORT.indexOf(word);
  if (short >= 0 && word !== "may" && word !== "mar") return short;
  if (word === "sept") return 8;
  if (word.length >= 6) {
    for (let m = 0; m < 12; m++) {
      const name = MONTH_NAMES[m] as string;
      if (name.length >= 6 && editDistance(word, name, 2) <= (name.length >= 8 ? 2 : 1)) return m;
    }
  }
  return null;
}

const SEASONS: Record<string, "spring" | "summer" | "autumn" | "winter"> = {
  spring: "spring",
  summer: "summer",
  sumer: "summer",
  summmer: "summer",
  autumn: "autumn",
  fall: "autumn",
  winter: "winter",
};
/** The first month (0-based) of each season (northern hemisphere, meteorological). */
const SEASON_START = { spring: 2, summer: 5, autumn: 8, winter: 11 } as const;

function isPeriodWord(t: Token): boolean {
  return (
    ["year", "month", "week", "day", "all", "lately"].includes(t.keyword ?? "") ||
    monthOf(t.folded) !== null ||
    Boolean(SEASONS[t.folded]) ||
    /^(19|20)\d\d$/.test(t.folded) ||
    ["today", "yesterday", "tonight"].includes(t.folded)
  );
}

const DAY_MS = 86_400_000;
function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
function utcDay(y: number, m: number, d: number): Date {
  return new Date(Date.UTC(y, m, d));
}
/** The last day of month `m` of year `y` (months past 11 roll over). */
function monthEnd(y: number, m: number): Date {
  return utcDay(y, m + 1, 0);
}
function monthName(m: number): string {
  const name = MONTH_NAMES[((m % 12) + 12) % 12] as string;
  return name.charAt(0).toUpperCase() + name.slice(1);
}
function range(from: Date, to: Date, name: string): PeriodSpec {
  return { kind: "range", from: isoDay(from), to: isoDay(to), name };
}
const rolling = (period: RollingPeriod): PeriodSpec => ({ kind: "rolling", period });

function seasonRange(
  season: keyof typeof SEASON_START,
  which: "this" | "last" | "latest" | number,
  now: Date,
): PeriodSpec {
  const startMonth = SEASON_START[season];
  const y = now.getUTCFullYear();
  // The season named by the year it starts in (winter 2025 is December 2025 to February 2026).
  const startOf = (year: number) => utcDay(year, startMonth, 1);
  const endOf = (year: number) => monthEnd(year, startMonth + 2);
  let year: number;
  if (typeof which === "number") year = which;
  else {
    // The latest season of that name that has started.
    year = startOf(y).getTime() <= now.getTime() ? y : y - 1;
    const current = now.getTime() <= endOf(year).getTime() + DAY_MS - 1;
    if (which === "last" && current) year -= 1;
  }
  const label =
    season === "winter" ? `winter ${year}–${String(year + 1).slice(2)}` : `${season} ${year}`;
  const name =
    typeof which === "number"
      ? `in ${label}`
      : `${which === "latest" ? "in" : which} ${season} (${label})`;
  return range(startOf(year), endOf(year), name);
}

/**
 * The period a message names, as the journey takes it; `fallback` when it names none. Rolling
 * words ("the last 30 days", "lately", "past year") are the journey's own windows; calendar
 * words ("this month", "in March", "last summer", "2024") are ranges of days.
 */
export function periodOf(tokens: Token[], now: Date, fallback: PeriodSpec): PeriodSpec {
  const folded = tokens.map((t) => t.folded);
  const today = utcDay(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth();
  const at = (i: number) => folded[i] ?? "";
  const yearAfter = (i: number) => {
    const next = at(i + 1);
    return /^(19|20)\d\d$/.test(next) ? Number(next) : null;
  };

  for (let i = 0; i < tokens.length; i++) {
    const word = at(i);
    const prev = at(i - 1);
    const t = tokens[i] as Token;
    // "last 30 days", "past 2 weeks", "the last 6 months"
    if (/^\d{1,4}$/.test(word) && ["last", "past", "previous"].includes(prev)) {
      const n = Number(word);
      const unit = tokens[i + 1]?.keyword;
      const days =
        unit === "day"
          ? n
          : unit === "week"
            ? n * 7
            : unit === "month"
              ? n % 12 === 0
                ? (n / 12) * 365
                : n * 30
              : unit === "year"
                ? n * 365
                : 0;
      if (days > 0) {
        if (days === 7) return rolling("week");
        if (days === 30) return rolling("month");
        if (days === 365) return rolling("year");
        const from = new Date(today.getTime() - (Math.min(days, 20_000) - 1) * DAY_MS);
        return range(from, today, `in the last ${n} ${tokens[i + 1]?.folded ?? "days"}`);
      }
    }
    if (word === "today" || word === "tonight") return range(today, today, "today");
    if (word === "yesterday") {
      const d = new Date(today.getTime() - DAY_MS);
      return range(d, d, "yesterday");
    }
    const season = SEASONS[word];
    if (season) {
      const year = yearAfter(i) ?? (/^(19|20)\d\d$/.test(prev) ? Number(prev) : null);
      if (year) return seasonRange(season, year, now);
      return seasonRange(
        season,
        prev === "last" || prev === "previous" ? "last" : prev === "this" ? "this" : "latest",
        now,
      );
    }
    const month = monthOf(word);
    // "may" and "march" are also verbs: a month only after "in", "of", "during", "since",
    // "for", "last", "this" or before a year.
    if (
      month !== null &&
      (!["may", "march"].includes(word) ||
        ["in", "of", "during", "since", "for", "last", "this", "through", "over"].includes(prev) ||
        yearAfter(i) !== null)
    ) {
      let year = yearAfter(i);
      if (year === null) year = month <= m ? y : y - 1;
      if (year === null) year = y;
      if (prev === "last" && month === m && yearAfter(i) === null) year = y - 1;
      const name = `in ${monthName(month)} ${year}`;
      return range(utcDay(year, month, 1), monthEnd(year, month), name);
    }
    if (t.keyword === "month" && !/^\d/.test(prev)) {
      if (prev === "this" || prev === "current") return range(utcDay(y, m, 1), today, "this month");
      if (prev === "last" || prev === "previous") {
        return range(
          utcDay(y, m - 1, 1),
          monthEnd(y, m - 1),
          `last month (${monthName(m - 1)} ${m === 0 ? y - 1 : y})`,
        );
      }
      if (prev === "past" || prev === "a") return rolling("month");
    }
    if (t.keyword === "year" && !/^\d/.test(prev)) {
      if (prev === "this" || prev === "current" || prev === "my")
        return range(utcDay(y, 0, 1), today, "this year");
      if (prev === "last" || prev === "previous")
        return range(utcDay(y - 1, 0, 1), utcDay(y - 1, 11, 31), `in ${y - 1}`);
      if (prev === "past") return rolling("year");
    }
    if (t.keyword === "week" && !/^\d/.test(prev)) return rolling("week");
    if (/^(19|20)\d\d$/.test(word) && !SEASONS[prev] && monthOf(prev) === null) {
      const year = Number(word);
      return range(utcDay(year, 0, 1), utcDay(year, 11, 31), `in ${year}`);
    }
    if (t.keyword === "all" || (word === "time" && prev === "all")) return rolling("all");
    if (t.keyword === "lately") return rolling("month");
  }
  // "my year", "the year", "of the month": the calendar one so far.
  if (tokens.some((t) => t.keyword === "year")) return range(utcDay(y, 0, 1), today, "this year");
  if (tokens.some((t) => t.keyword === "month")) return range(utcDay(y, m, 1), today, "this month");
  return fallback;
}

/* ---------------------------------------------------------------- people */

/** Words that are never (part of) a person's name in a question. */
const NOT_NAMES = new Set([
  "spend",
  "spent",
  "get",
  "got",
  "think",
  "say",
  "like",
  "want",
  "i",
  "let",
  "lets",
  "me",
  "my",
  "mine",
  "myself",
  "you",
  "your",
  "we",
  "us",
  "our",
  "they",
  "them",
  "their",
  "he",
  "she",
  "it",
  "his",
  "her",
  "people",
  "everyone",
  "everybody",
  "anyone",
  "anybody",
  "someone",
  "somebody",
  "nobody",
  "there",
  "this",
  "that",
  "the",
  "a",
  "an",
  "what",
  "which",
  "who",
  "how",
  "much",
  "many",
  "been",
  "be",
  "up",
  "in",
  "on",
  "of",
  "at",
  "to",
  "for",
  "with",
  "and",
  "or",
  "most",
  "music",
  "last",
  "past",
  "new",
  "any",
  "some",
  "all",
  "lately",
  "recently",
  "really",
  "usually",
  "mostly",
  "ever",
  "today",
  "here",
  "else",
  "also",
  "just",
  "still",
  "not",
  "am",
  "do",
  "does",
  "did",
  "is",
  "was",
  "has",
  "have",
  "had",
  "are",
  "were",
  "time",
  "hours",
  "year",
  "month",
  "week",
  "summer",
  "spring",
  "winter",
  "autumn",
  "fall",
]);

function canBeName(t: Token): boolean {
  if (t.raw.startsWith("#")) return false;
  if (t.raw.startsWith("@")) return true;
  if (NOT_NAMES.has(t.folded) || t.exactKeyword || isPeriodWord(t)) return false;
  // A word written with a capital may be a name even if it looks like a keyword's typo.
  return !t.keyword || /^\p{Lu}/u.test(t.raw);
}

/** Up to three name words from `from` on. */
function nameAt(tokens: Token[], from: number): string | null {
  const words: string[] = [];
  for (let i = from; i < tokens.length && words.length < 3; i++) {
    const t = tokens[i] as Token;
    if (!canBeName(t)) break;
    words.push(t.raw.replace(/^@/, "").replace(/['’]s$/u, ""));
    if (/['’]s$/u.test(t.raw)) break;
  }
  return words.length > 0 ? words.join(" ") : null;
}

/** The other person a message asks about ("what has Ben been posting", "Ben's top albums"). */
export function personOf(tokens: Token[]): string | null {
  const handle = tokens.find((t) => t.raw.startsWith("@") && t.raw.length > 1);
  if (handle) return handle.raw.slice(1);
  // "Ben Okafor's top albums", "ben's posts"
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (!/['’]s$/u.test(t.raw) || NOT_NAMES.has(t.folded.replace(/s$/, ""))) continue;
    const own = t.raw.replace(/['’]s$/u, "");
    if (isPeriodWord({ ...t, folded: foldWord(own), keyword: keywordOf(foldWord(own)) })) continue;
    if (EXACT.has(foldWord(own))) continue;
    const before = tokens[i - 1];
    if (before && canBeName(before) && /^\p{Lu}/u.test(before.raw) && /^\p{Lu}/u.test(own)) {
      return `${before.raw} ${own}`;
    }
    return own;
  }
  // "what has Ben been …", "what is Ben listening to", "how many hours did Ben listen"
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (!["has", "is", "was", "did", "does", "have"].includes(t.folded)) continue;
    const name = nameAt(tokens, i + 1);
    if (name) return name;
  }
  // "posts by Ben", "what Ben posted", "show me ben posts"
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (["by", "from"].includes(t.folded) && tokens[i - 1]?.keyword === "post") {
      const name = nameAt(tokens, i + 1);
      if (name) return name;
    }
  }
  return null;
}

/* ---------------------------------------------------------------- topics */

/** Words that carry no topic ("any jazz tips from people I follow?" → jazz). */
const FILLER = new Set([
  ...NOT_NAMES,
  "from",
  "by",
  "among",
  "amongst",
  "got",
  "get",
  "give",
  "gimme",
  "please",
  "pls",
  "tell",
  "know",
  "good",
  "great",
  "cool",
  "nice",
  "stuff",
  "things",
  "thing",
  "suggested",
  "said",
  "say",
  "saying",
  "talk",
  "talking",
  "talked",
  "mentioned",
  "ones",
  "one",
  "there",
  "theres",
  "where",
  "when",
  "why",
  "can",
  "could",
  "would",
  "should",
  "will",
  "lot",
  "lots",
  "out",
  "so",
  "far",
  "music",
  "songs",
  "something",
  "anything",
  "recommended",
  "lately",
  "latest",
]);

const LONG_FILLER = [...FILLER].filter((word) => word.length >= 4);

/** A word that carries no topic, or a typo of one ("waht", "somthing"). */
function isFiller(word: string): boolean {
  if (FILLER.has(word) || word.length < 2 || word === "ur") return true;
  if (word.length < 4) return false;
  return LONG_FILLER.some((f) => editDistance(word, f, 1) <= 1);
}

/** The topic words of a message about friends' posts, as written. */
function topicOf(message: string, tokens: Token[]): string {
  const hashtag = tokens.find((t) => t.raw.startsWith("#") && t.raw.length > 1);
  if (hashtag) return hashtag.raw;
  const about = argumentAfter(message, tokens, ["about"]);
  if (about) return about;
  const words = tokens.filter(
    (t) => !isFiller(t.folded) && !t.keyword && !isPeriodWord(t) && !/^\d+$/.test(t.folded),
  );
  return words.map((t) => t.raw).join(" ");
}

/* ---------------------------------------------------------------- intents */

/**
 * What a listening question wants: time ("how many hours", "how long", "hours listened"), an
 * album, a track or an artist ranking, a count ("how many plays/songs"), or an overview.
 */
function focusOf(has: (k: Keyword) => boolean, folded: string[]): Focus {
  const howMany = folded.includes("how") && (folded.includes("many") || folded.includes("much"));
  const asksTime = ["hours", "hour", "minutes", "long", "much"].some((w) => folded.includes(w));
  if (
    has("time") &&
    asksTime &&
    (folded.includes("how") || folded.includes("hours") || has("listening"))
  ) {
    return "time";
  }
  if (has("album")) return "albums";
  if (has("track") && !howMany) return "tracks";
  if (has("artist")) return "artists";
  if (howMany) return has("time") ? "time" : "plays";
  return "overview";
}

/** What a message asks for; `now` places the periods it names. */
export function recogniseIntent(message: string, now: Date = new Date()): Intent {
  const tokens = tokenize(message);
  const folded = tokens.map((t) => t.folded);
  const keywords = new Set(tokens.map((t) => t.keyword).filter(Boolean));
  const has = (k: Keyword) => keywords.has(k);
  const indexOf = (k: Keyword) => tokens.findIndex((t) => t.keyword === k);
  const month = rolling("month");

  if (tokens.length === 0) return { kind: "unknown" };

  if (has("draft") && (has("post") || has("about"))) {
    const from = indexOf("draft");
    const track =
      argumentAfter(message, tokens, ["about"], from) ||
      argumentAfter(message, tokens, ["post"], from);
    return { kind: "draft", track };
  }

  const hashtag = tokens.find((t) => t.raw.startsWith("#") && t.raw.length > 1);
  const mine = folded.includes("my") || folded.includes("i") || folded.includes("me");
  const aboutFriends =
    has("friend") ||
    (has("follow") && (folded.includes("i") || folded.includes("people"))) ||
    (folded.includes("people") && has("listening") && !mine) ||
    folded.includes("followees");

  // Posts about a topic from the people I follow: "any jazz tips from people I follow?"
  if (aboutFriends && !(has("who") && has("like"))) {
    const topic = topicOf(message, tokens);
    if (topic) return { kind: "friends_topic", topic };
  }

  if (has("find") || (has("post") && has("about") && !personOf(tokens))) {
    const from = Math.max(indexOf("find"), 0);
    const query =
      argumentAfter(message, tokens, ["about"], from) ||
      (hashtag?.raw ?? "") ||
      (personOf(tokens) ? "" : argumentAfter(message, tokens, ["post"], from));
    if (query) return { kind: "find", query };
  }

  if (has("who") && (has("like") || (has("listening") && !mine))) {
    const artist =
      argumentAfter(message, tokens, ["like"], indexOf("who")) ||
      argumentAfter(message, tokens, ["listening"], indexOf("who"));
    if (artist) return { kind: "who_likes", artist };
  }

  if (aboutFriends && !has("recommend")) return { kind: "friends" };

  const person = personOf(tokens);
  if (person) {
    const listening =
      has("listening") ||
      has("top") ||
      has("album") ||
      has("track") ||
      has("artist") ||
      has("time");
    if (has("post") && !has("listening")) return { kind: "posts_by", person };
    if (listening || has("summary")) {
      return {
        kind: "listening",
        person,
        focus: focusOf(has, folded),
        period: periodOf(tokens, now, month),
      };
    }
    // "what has Ben been up to", "what is Ben into": their listening (the journey) first.
    if (folded.includes("up") || has("like") || has("lately")) {
      return { kind: "listening", person, focus: "overview", period: periodOf(tokens, now, month) };
    }
  }

  if (has("summary")) {
    const thisYear = periodOf(tokens, now, {
      kind: "range",
      from: `${now.getUTCFullYear()}-01-01`,
      to: isoDay(now),
      name: "this year",
    });
    return { kind: "summary", period: thisYear };
  }

  if (
    has("recommend") ||
    (has("new") && (folded.includes("something") || folded.includes("music") || has("artist")))
  ) {
    return { kind: "recommend" };
  }
  if (
    (folded.includes("should") && (has("like") || has("listening"))) ||
    (has("new") && ["try", "should", "hear", "explore"].some((w) => folded.includes(w)))
  ) {
    return { kind: "recommend" };
  }

  const focus = focusOf(has, folded);
  if (
    focus !== "overview" ||
    has("top") ||
    (has("listening") && (mine || tokens.some(isPeriodWord))) ||
    has("lately") ||
    (folded.includes("been") && has("like"))
  ) {
    return { kind: "listening", person: null, focus, period: periodOf(tokens, now, month) };
  }
  if (mine && tokens.some(isPeriodWord)) {
    return {
      kind: "listening",
      person: null,
      focus: "overview",
      period: periodOf(tokens, now, month),
    };
  }

  if (hashtag) return { kind: "find", query: hashtag.raw };

  if (has("help") || (folded.includes("what") && folded.includes("do"))) return { kind: "help" };
  return { kind: "unknown" };
}
