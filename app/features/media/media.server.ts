import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { isUuid } from "~/core/ids";
import { canSeePost } from "~/core/visibility.server";
import { type DbOrTx, getDb } from "~/db/client.server";
import { media, posts } from "~/db/schema";
import { loadSharp } from "~/lib/lazy-module.server";
import { IMAGE_MAX_BYTES } from "./constants";

/** Longest side of a stored image, in pixels. */
export const IMAGE_MAX_SIDE = 1600;

export const NOT_AN_IMAGE =
  "That file is not an image we can read. Choose a JPEG, PNG, WebP, GIF, AVIF or HEIC picture.";
export const IMAGE_TOO_LARGE = "Images can be at most 10 MB. Choose a smaller one.";

const ACCEPTED_FORMATS = new Set(["jpeg", "png", "webp", "gif", "avif", "heif", "tiff"]);

export interface ProcessedImage {
  bytes: Uint8Array;
  width: number;
  height: number;
  contentType: "image/webp";
  sha256: string;
}

/**
 * Decodes `input` with sharp (the file's bytes decide, never its name or claimed type), turns it
 * upright, shrinks it to at most 1600 px (or `maxSide`) and re-encodes it as WebP. sharp writes no metadata
 * (EXIF, GPS, ICC …) unless asked, so none survives.
 */
export async function processImage(
  input: Uint8Array,
  options: { maxSide?: number } = {},
): Promise<ProcessedImage> {
  const maxSide = options.maxSide ?? IMAGE_MAX_SIDE;
  if (input.byteLength > IMAGE_MAX_BYTES) throw new AppError("too_large", IMAGE_TOO_LARGE);
  if (input.byteLength === 0) throw new AppError("unsupported_media", NOT_AN_IMAGE);
  const sharp = await loadSharp();
  let format: string | undefined;
  try {
    const meta = await sharp(input, { limitInputPixels: 100_000_000 }).metadata();
    format = meta.format;
  } catch {
    throw new AppError("unsupported_media", NOT_AN_IMAGE);
  }
  if (!format || !ACCEPTED_FORMATS.has(format)) {
    throw new AppError("unsupported_media", NOT_AN_IMAGE);
  }
  try {
    const { data, info } = await sharp(input, { limitInputPixels: 100_000_000 })
      .rotate()
      .resize({
        width: maxSide,
        height: maxSide,
        fit: "inside",
        withoutEnlargement: true,
      })
      .webp({ quality: 82 })
      .toBuffer({ resolveWithObject: true });
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return {
      bytes,
      width: info.width,
      height: info.height,
      contentType: "image/webp",
      sha256: createHash("sha256").update(bytes).digest("hex"),
    };
  } catch {
    throw new AppError("unsupported_media", NOT_AN_IMAGE);
  }
}

/** Stores a processed image; returns its id. */
export async function storeImage(
  tx: DbOrTx,
  options: { ownerId: string; image: ProcessedImage },
): Promise<string> {
  const [row] = await tx
    .insert(media)
    .values({
      ownerId: options.ownerId,
      contentType: options.image.contentType,
      bytes: options.image.bytes,
      byteSize: options.image.bytes.byteLength,
      width: options.image.width,
      height: options.image.height,
      sha256: options.image.sha256,
    })
    .returning({ id: media.id });
  if (!row) throw new Error("media insert returned nothing");
  return row.id;
}

export interface ServedMedia {
  bytes: Uint8Array;
  contentType: string;
  etag: string;
  /** True when anybody may see it (shared caches may keep it). */
  isPublic: boolean;
}

/**
 * An image as the viewer may fetch it: images of posts follow the post's visibility (the
 * image of a followers-only post is not public); images not attached to any post (avatars)
 * are public to whoever knows the id. Unknown, malformed or hidden ids give null.
 */
export async function getMediaForViewer(options: {
  viewerId: string | null;
  mediaId: string;
}): Promise<ServedMedia | null> {
  if (!isUuid(options.mediaId)) return null;
  const attached = sql`exists (select 1 from ${posts} where ${posts.mediaId} = ${media.id})`;
  const visibleThroughPost = sql`exists (select 1 from ${posts} where ${posts.mediaId} = ${media.id} and ${canSeePost(options.viewerId)})`;
  const publicThroughPost = sql`exists (select 1 from ${posts} where ${posts.mediaId} = ${media.id} and ${posts.audience} = 'everyone')`;
  const [row] = await getDb()
    .select({
      bytes: media.bytes,
      contentType: media.contentType,
      sha256: media.sha256,
      ownerId: media.ownerId,
      isAttached: sql<boolean>`${attached}`,
      isPublicPost: sql<boolean>`${publicThroughPost}`,
    })
    .from(media)
    .where(
      and(
        eq(media.id, options.mediaId),
        options.viewerId
          ? sql`(not ${attached} or ${media.ownerId} = ${options.viewerId} or ${visibleThroughPost})`
          : sql`(not ${attached} or ${visibleThroughPost})`,
      ),
    )
    .limit(1);
  if (!row) return null;
  return {
    bytes: row.bytes,
    contentType: row.contentType,
    etag: `"${row.sha256}"`,
    isPublic: !row.isAttached || Boolean(row.isPublicPost),
  };
}
