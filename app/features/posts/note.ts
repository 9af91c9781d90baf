/**
 * Turns the plain text of a note or comment into segments the UI renders as React elements
 * (text, links, @mentions, #tags). Nothing here produces HTML, so user text can never become markup.
 */

export type NoteSegment =
  | { type: "text"; text: string }
  | { type: "url"; text: string; href: string }
  | { type: "mention"; text: string; username: string }
  | { type: "tag"; text: string; tag: string };

// A URL runs to the next whitespace; @mentions and #tags must not follow a word character
// (so e-mail addresses and "C#7" stay text).
const TOKEN =
  /(https?:\/\/[^\s<>"]+)|(?<![\p{L}\p{N}_@./])@([A-Za-z0-9_.]{3,30})|(?<![\p{L}\p{N}_&#/])#([\p{L}\p{N}_]{1,50})/gu;

const TRAILING_PUNCTUATION = /[.,!?;:'"\u2019\u201d*]+$/;

/** Drops sentence punctuation after a URL, and a closing bracket that has no opening one. */
function trimUrl(raw: string): string {
  let url = raw;
  for (;;) {
    const before = url;
    url = url.replace(TRAILING_PUNCTUATION, "");
    for (const [open, close] of [
      ["(", ")"],
      ["[", "]"],
    ] as const) {
      if (url.endsWith(close)) {
        const opens = url.split(open).length - 1;
        const closes = url.split(close).length - 1;
        if (closes > opens) url = url.slice(0, -1);
      }
    }
    if (url === before) return url;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}

export function tokenizeNote(input: string): NoteSegment[] {
  const segments: NoteSegment[] = [];
  const pushText = (text: string) => {
    if (!text) return;
    const last = segments[segments.length - 1];
    if (last?.type === "text") last.text += text;
    else segments.push({ type: "text", text });
  };
  let position = 0;
  for (const match of input.matchAll(TOKEN)) {
    const start = match.index;
    pushText(input.slice(position, start));
    const [whole, url, mention, tag] = match;
    let consumed = whole;
    if (url !== undefined) {
      const trimmed = trimUrl(url);
      if (trimmed.length > "https://".length && isHttpUrl(trimmed)) {
        segments.push({ type: "url", text: trimmed, href: trimmed });
        consumed = trimmed;
      } else {
        pushText(whole);
      }
    } else if (mention !== undefined) {
      // "thanks @ana." — the sentence's full stop is not part of the name.
      const username = mention.replace(/\.+$/, "");
      if (username.length >= 3) {
        segments.push({ type: "mention", text: `@${username}`, username });
        consumed = `@${username}`;
      } else {
        pushText(whole);
      }
    } else if (tag !== undefined) {
      if (/\p{L}/u.test(tag)) segments.push({ type: "tag", text: `#${tag}`, tag });
      else pushText(whole);
    }
    position = start + consumed.length;
  }
  pushText(input.slice(position));
  return segments;
}

/** Usernames mentioned in `input`, lower-cased and de-duplicated (for notifications later). */
export function mentionedUsernames(input: string): string[] {
  const names = new Set<string>();
  for (const segment of tokenizeNote(input)) {
    if (segment.type === "mention") names.add(segment.username.toLowerCase());
  }
  return [...names];
}

/** Where a tag links to: the search page's Tags tab, listing the tag's posts. */
export function tagHref(tag: string): string {
  return `/search?q=${encodeURIComponent(`#${tag}`)}&type=tags`;
}
