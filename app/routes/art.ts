import { COVER_SEED_PATTERN, coverSvg } from "~/features/artwork/cover";
import { coverPng, coverWebp } from "~/features/artwork/cover.server";
import { ARTWORK_FILE, getArtwork } from "~/features/unfurl/unfurl.server";
import type { Route } from "./+types/art";

const notFound = () =>
  new Response("Not found", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });

/**
 * `/art/<seed>.webp`: generated artwork (app/features/artwork/cover.ts) as pages show it; the
 * picture follows from the seed alone (`.svg` for any size, `.png` for Open Graph images).
 * `/art/<sha256>.webp`: a link's artwork, stored re-encoded when the link was unfurled
 * (features/unfurl). Both are named by their content, so cached for a year by
 * anyone; neither needs a session.
 */
export async function loader({ params }: Route.LoaderArgs) {
  const immutable = {
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
  };
  const webpResponse = (bytes: Uint8Array) =>
    new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: {
        ...immutable,
        "Content-Type": "image/webp",
        "Content-Length": String(bytes.byteLength),
      },
    });
  if (ARTWORK_FILE.test(params.file)) {
    const bytes = await getArtwork(params.file);
    return bytes ? webpResponse(bytes) : notFound();
  }
  const webp = /^([0-9a-f]{16})\.webp$/.exec(params.file)?.[1];
  if (webp) return webpResponse(await coverWebp(webp));
  const png = /^([0-9a-f]{16})\.png$/.exec(params.file)?.[1];
  if (png) {
    const bytes = await coverPng(png);
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { ...immutable, "Content-Type": "image/png" },
    });
  }
  const seed = params.file.replace(/\.svg$/, "");
  if (!params.file.endsWith(".svg") || !COVER_SEED_PATTERN.test(seed)) return notFound();
  return new Response(coverSvg(seed), {
    headers: {
      ...immutable,
      "Content-Type": "image/svg+xml; charset=utf-8",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    },
  });
}
