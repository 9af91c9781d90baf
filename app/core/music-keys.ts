/**
 * Names as services write them differ for the same music: "Song - Remastered 2011",
 * "Song (2011 Remaster)", "SONG", "Sóng". The key is what plays are matched and grouped by;
 * the original text is kept for display. Conservative on purpose: only version suffixes that
 * describe a re-issue of the same recording are removed (remaster, mono/stereo, single/radio
 * edit, deluxe/expanded edition), never "live", "acoustic" or "remix", which are other music.
 */
const VERSION_WORDS =
  /\b(?:\d{4}\s+)?(?:digital(?:ly)?\s+)?remaster(?:ed)?(?:\s+(?:version|edition))?(?:\s+\d{4})?\b|\b(?:mono|stereo)(?:\s+(?:version|mix))?\b|\b(?:single|radio)\s+(?:edit|version)\b|\b(?:deluxe|expanded|anniversary|special)(?:\s+\w+)?\s+edition\b|\bdeluxe\b/i;

/** A bracketed part "(…)" / "[…]" that only describes a re-issue. */
const BRACKETED = /\s*[([]([^)\]]*)[)\]]/g;
/** A dash part " - …" / " – …" / " — …" that only describes a re-issue. */
const DASHED = /\s+[-–—]\s+(.*)$/;

function stripVersion(name: string): string {
  let result = name.replace(BRACKETED, (whole, inner: string) =>
    VERSION_WORDS.test(inner) ? "" : whole,
  );
  const dash = DASHED.exec(result);
  if (dash?.[1] && VERSION_WORDS.test(dash[1])) result = result.slice(0, dash.index);
  return result;
}

/** Lowercase, accents and punctuation removed, spaces collapsed; "&" and "and" are one. */
function fold(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .replace(/\s+/g, " ");
}

/** The matching key of a track or album title. Never empty for a non-blank name. */
export function titleKey(name: string): string {
  const key = fold(stripVersion(name));
  return key || fold(name) || name.trim().toLowerCase();
}

/** The matching key of an artist name: "The Beatles" and "Beatles, The" are one. */
export function artistKey(name: string): string {
  const folded = fold(name);
  const key = folded.replace(/^(.*) the$/, "the $1");
  return key || name.trim().toLowerCase();
}
