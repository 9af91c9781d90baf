import { foldText } from "./query";

export interface HighlightSegment {
  text: string;
  isMatch: boolean;
}

/**
 * Splits `text` into plain and matching segments: a match is a word that starts with one of
 * `terms` (already folded), compared without case or accents ("bjork" marks "Björk").
 * The result is rendered as React text and <mark> elements, never as HTML.
 */
export function highlight(text: string, terms: readonly string[]): HighlightSegment[] {
  if (!text) return [];
  if (terms.length === 0) return [{ text, isMatch: false }];
  // Fold character by character so every folded position maps back to the original text.
  const chars = Array.from(text);
  let folded = "";
  const origin: number[] = [];
  const offsets: number[] = [];
  let offset = 0;
  chars.forEach((ch, i) => {
    const f = foldText(ch);
    for (let k = 0; k < f.length; k++) origin.push(i);
    folded += f;
    offsets.push(offset);
    offset += ch.length;
  });
  offsets.push(offset);
  const marked = new Array<boolean>(chars.length).fill(false);
  const sorted = [...terms].filter(Boolean).sort((a, b) => b.length - a.length);
  for (const term of sorted) {
    let from = 0;
    for (;;) {
      const at = folded.indexOf(term, from);
      if (at < 0) break;
      from = at + 1;
      const before = at > 0 ? folded[at - 1] : "";
      if (before && /[\p{L}\p{N}]/u.test(before)) continue;
      const start = origin[at] ?? 0;
      const end = origin[at + term.length - 1] ?? start;
      for (let i = start; i <= end; i++) marked[i] = true;
    }
  }
  const segments: HighlightSegment[] = [];
  let start = 0;
  for (let i = 1; i <= chars.length; i++) {
    if (i === chars.length || marked[i] !== marked[start]) {
      segments.push({
        text: text.slice(offsets[start], offsets[i]),
        isMatch: marked[start] ?? false,
      });
      start = i;
    }
  }
  return segments;
}

/**
 * A window of a long note around its first match (or its start), cut at word boundaries,
 * with an ellipsis where text was left out.
 */
export function excerpt(text: string, terms: readonly string[], max = 220): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const segments = highlight(text, terms);
  let firstMatch = 0;
  for (const segment of segments) {
    if (segment.isMatch) break;
    firstMatch += Array.from(segment.text).length;
  }
  if (firstMatch >= segments.reduce((n, s) => n + Array.from(s.text).length, 0)) firstMatch = 0;
  let start = Math.max(0, firstMatch - Math.floor(max / 3));
  let end = Math.min(chars.length, start + max);
  start = Math.max(0, end - max);
  while (start > 0 && start < firstMatch && !/\s/.test(chars[start - 1] ?? "")) start++;
  while (end < chars.length && end > start + max / 2 && !/\s/.test(chars[end] ?? "")) end--;
  return `${start > 0 ? "…" : ""}${chars.slice(start, end).join("").trim()}${end < chars.length ? "…" : ""}`;
}
