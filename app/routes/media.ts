import { getViewer } from "~/features/auth/guards.server";
import { getMediaForViewer } from "~/features/media/media.server";
import type { Route } from "./+types/media";

/**
 * `/media/:id`: uploaded images, re-encoded on upload. Their bytes never change under an id,
 * so they are cached for a year; images of non-public posts only in the viewer's own cache.
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const served = await getMediaForViewer({ viewerId: viewer?.id ?? null, mediaId: params.id });
  if (!served) {
    return new Response("Image not found", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  const headers = new Headers({
    "Content-Type": served.contentType,
    "Cache-Control": `${served.isPublic ? "public" : "private"}, max-age=31536000, immutable`,
    ETag: served.etag,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
  });
  if (!served.isPublic) headers.set("Vary", "Cookie");
  const ifNoneMatch = request.headers.get("If-None-Match");
  if (ifNoneMatch?.split(",").some((tag) => tag.trim() === served.etag)) {
    return new Response(null, { status: 304, headers });
  }
  headers.set("Content-Length", String(served.bytes.byteLength));
  return new Response(served.bytes as Uint8Array<ArrayBuffer>, { headers });
}
