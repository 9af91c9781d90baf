import { loadSharp } from "~/lib/lazy-module.server";
import { coverSvg } from "./cover";

/** Pixels per side of a cover as PNG, for link previews elsewhere (og:image wants a raster). */
export const COVER_PNG_SIZE = 600;

/**
 * Pixels per side of the cover pages show (`/art/<seed>.webp`): over 5× a post card's 48 px
 * cover, 2× the landing page's 128 px wall.
 */
export const COVER_WEBP_SIZE = 256;

/** The generated cover as a PNG (Open Graph images: scrapers do not read SVG). */
export function coverPng(seed: string): Promise<Uint8Array> {
  return renderCover(seed, COVER_PNG_SIZE, (image) => image.png({ compressionLevel: 9 }));
}

type SharpImage = ReturnType<Awaited<ReturnType<typeof loadSharp>>>;

/** The cover's SVG rasterised by sharp at `size` pixels a side, then encoded by `encode`. */
async function renderCover(
  seed: string,
  size: number,
  encode: (image: SharpImage) => SharpImage,
): Promise<Uint8Array> {
  const svg = coverSvg(seed);
  const sharp = await loadSharp();
  // The SVG is 100 units a side; at 72 dpi a unit is a pixel.
  const image = sharp(Buffer.from(svg), { density: (72 * size) / 100 }).resize(size, size);
  const buffer = await encode(image).toBuffer();
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
  const rendering = renderCover(seed, COVER_WEBP_SIZE, (image) => image.webp({ quality: 80 }));
  webpCache.set(seed, rendering);
  rendering.catch(() => webpCache.delete(seed));
  if (webpCache.size > WEBP_CACHE_ENTRIES) {
    const oldest = webpCache.keys().next().value;
    if (oldest !== undefined) webpCache.delete(oldest);
  }
  return rendering;
}
