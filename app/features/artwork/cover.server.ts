import { loadSharp } from "~/lib/lazy-module.server";
import { coverSvg } from "./cover";

/** Pixels per side of a cover as PNG, for link previews elsewhere (og:image wants a raster). */
export const COVER_PNG_SIZE = 600;

/**
 * Pixels per side of the cover pages show (`/art/<seed>.webp`): 4× the 64 px of a post card's
 * or a list's cover, 2× the landing page's 128 px wall.
 */
export const COVER_WEBP_SIZE = 256;

/** The generated cover as a PNG (Open Graph images: scrapers do not read SVG). */
export async function coverPng(seed: string): Promise<Uint8Array> {
  const sharp = await loadSharp();
  const buffer = await sharp(Buffer.from(coverSvg(seed)), { density: 432 })
    .resize(COVER_PNG_SIZE, COVER_PNG_SIZE)
    .png({ compressionLevel: 9 })
    .toBuffer();
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Recently served covers (~1.5 KB each): the same records show on many people's pages. */
const webpCache = new Map<string, Promise<Uint8Array>>();
const WEBP_CACHE_ENTRIES = 1000;

/**
 * The generated cover as the WebP pages show (~1.5 KB). A browser draws a raster image from
 * its decoded pixels, off the main thread; an SVG image costs it a whole SVG document of its
 * own, ~4–5 ms of a phone's main thread per distinct cover (issue 17, Lighthouse on `/feed`).
 * Rendered by libvips in its own threads, then kept in a small in-memory cache.
 */
export function coverWebp(seed: string): Promise<Uint8Array> {
  const cached = webpCache.get(seed);
  if (cached) {
    webpCache.delete(seed);
    webpCache.set(seed, cached);
    return cached;
  }
  const svg = coverSvg(seed);
  const rendering = loadSharp()
    .then((sharp) =>
      sharp(Buffer.from(svg), { density: (72 * COVER_WEBP_SIZE) / 100 })
        .resize(COVER_WEBP_SIZE, COVER_WEBP_SIZE)
        .webp({ quality: 80 })
        .toBuffer(),
    )
    .then((buffer) => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
  webpCache.set(seed, rendering);
  rendering.catch(() => webpCache.delete(seed));
  if (webpCache.size > WEBP_CACHE_ENTRIES) {
    const oldest = webpCache.keys().next().value;
    if (oldest !== undefined) webpCache.delete(oldest);
  }
  return rendering;
}
