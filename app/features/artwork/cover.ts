import { artistKey, titleKey } from "~/core/music-keys";

/**
 * Generated artwork: a cover for music that has no picture of its own — the same one for the
 * same artist and title on every page and every server (never random between renders), built
 * from colours and shapes only, so it carries no text and needs no font. Pages refer to it by
 * a seed (`/art/<seed>.webp`, rendered from the SVG), so the names never travel in the URL.
 */

/** FNV-1a, 32 bits: small, stable and well spread for short strings. */
function fnv1a(text: string, basis = 0x811c9dc5): number {
  let hash = basis;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The seed of the cover for an artist and (optionally) a title: 16 hex digits. */
export function coverSeed(artist: string, title?: string | null): string {
  const key = `${artistKey(artist)}\u0000${title ? titleKey(title) : ""}`;
  const a = fnv1a(key).toString(16).padStart(8, "0");
  const b = fnv1a(key, 0x01000193 ^ 0x5bd1e995)
    .toString(16)
    .padStart(8, "0");
  return `${a}${b}`;
}

export function coverUrl(artist: string, title?: string | null): string {
  return `/art/${coverSeed(artist, title)}.webp`;
}

/**
 * Whose cover a post shows: an album's for its tracks, so one record looks the same everywhere;
 * the artist's for an artist post.
 */
export function postCoverOf(post: {
  kind: string;
  title: string;
  artist: string | null;
  album: string | null;
}): { artist: string; title: string | null } {
  const artist = post.artist || post.title;
  if (post.kind === "artist") return { artist: post.title, title: null };
  if (post.kind === "track") return { artist, title: post.album || post.title };
  return { artist, title: post.title };
}

/** A post's artwork: its link's (stored locally, `art`) when there is one, else its cover. */
export function postArtUrl(
  post: { kind: string; title: string; artist: string | null; album: string | null },
  art?: string | null,
): string {
  if (art) return art;
  const cover = postCoverOf(post);
  return coverUrl(cover.artist, cover.title);
}

/**
 * A post's artwork as an absolute URL for Open Graph previews: the link's (WebP), else the
 * generated cover as PNG (scrapers do not read SVG).
 */
export function postOpenGraphArtUrl(
  post: { kind: string; title: string; artist: string | null; album: string | null },
  art: string | null | undefined,
  baseUrl: string,
): string {
  const base = baseUrl.replace(/\/$/, "");
  if (art) return `${base}${art}`;
  const cover = postCoverOf(post);
  return `${base}/art/${coverSeed(cover.artist, cover.title)}.png`;
}

export const COVER_SEED_PATTERN = /^[0-9a-f]{16}$/;

/** A deterministic stream of numbers in [0, 1) from the seed. */
function numbers(seed: string): () => number {
  let state = Number.parseInt(seed.slice(0, 8), 16) ^ Number.parseInt(seed.slice(8), 16) || 1;
  return () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

const round = (n: number) => Math.round(n * 10) / 10;

/** The cover as an SVG document (100 × 100 units; it scales to any size). */
export function coverSvg(seed: string): string {
  if (!COVER_SEED_PATTERN.test(seed)) throw new Error("not a cover seed");
  const next = numbers(seed);
  const hue = Math.floor(next() * 360);
  const hue2 = (hue + 40 + Math.floor(next() * 120)) % 360;
  const sat = 55 + Math.floor(next() * 25);
  const light = 32 + Math.floor(next() * 18);
  const angle = Math.floor(next() * 4) * 45;
  const from = `hsl(${hue} ${sat}% ${light}%)`;
  const to = `hsl(${hue2} ${sat}% ${light + 14}%)`;
  const ink = next() < 0.5 ? "#fff" : "#000";
  const style = Math.floor(next() * 4);
  const shapes: string[] = [];
  if (style === 0) {
    // A record: grooves around a label.
    const cx = round(35 + next() * 30);
    const cy = round(35 + next() * 30);
    for (let r = 46; r > 8; r -= 6 + Math.floor(next() * 4)) {
      shapes.push(
        `<circle cx="${cx}" cy="${cy}" r="${r}" fill="none" stroke="${ink}" stroke-opacity="${round(0.08 + next() * 0.14)}" stroke-width="${round(1 + next() * 3)}"/>`,
      );
    }
    shapes.push(`<circle cx="${cx}" cy="${cy}" r="7" fill="${ink}" fill-opacity=".35"/>`);
  } else if (style === 1) {
    // Stripes across.
    const count = 4 + Math.floor(next() * 5);
    for (let i = 0; i < count; i++) {
      const y = round((100 / count) * i + next() * 4);
      const h = round(2 + next() * (60 / count));
      shapes.push(
        `<rect x="-10" y="${y}" width="120" height="${h}" fill="${ink}" fill-opacity="${round(0.06 + next() * 0.18)}" transform="rotate(${angle - 20} 50 50)"/>`,
      );
    }
  } else if (style === 2) {
    // Scattered discs.
    const count = 5 + Math.floor(next() * 6);
    for (let i = 0; i < count; i++) {
      shapes.push(
        `<circle cx="${round(next() * 100)}" cy="${round(next() * 100)}" r="${round(6 + next() * 24)}" fill="${ink}" fill-opacity="${round(0.06 + next() * 0.2)}"/>`,
      );
    }
  } else {
    // A sun over a horizon.
    const horizon = round(55 + next() * 25);
    shapes.push(
      `<circle cx="${round(25 + next() * 50)}" cy="${horizon}" r="${round(18 + next() * 14)}" fill="${ink}" fill-opacity=".3"/>`,
      `<rect x="0" y="${horizon}" width="100" height="${round(100 - horizon)}" fill="${ink}" fill-opacity=".22"/>`,
    );
    for (let y = horizon + 6; y < 100; y += 7) {
      shapes.push(
        `<rect x="0" y="${round(y)}" width="100" height="1.5" fill="${ink}" fill-opacity=".12"/>`,
      );
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><defs><linearGradient id="g" gradientTransform="rotate(${angle} .5 .5)"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs><rect width="100" height="100" fill="url(#g)"/>${shapes.join("")}</svg>`;
}
