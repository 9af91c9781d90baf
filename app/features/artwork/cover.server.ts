import { loadSharp } from "~/lib/lazy-module.server";
import { coverSvg } from "./cover";

/** Pixels per side of a cover as PNG, for link previews elsewhere (og:image wants a raster). */
export const COVER_PNG_SIZE = 600;

/** The generated cover as a PNG (Open Graph images: scrapers do not read SVG). */
export async function coverPng(seed: string): Promise<Uint8Array> {
  const sharp = await loadSharp();
  const buffer = await sharp(Buffer.from(coverSvg(seed)), { density: 432 })
    .resize(COVER_PNG_SIZE, COVER_PNG_SIZE)
    .png({ compressionLevel: 9 })
    .toBuffer();
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
