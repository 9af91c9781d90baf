import { COVER_SEED_PATTERN, coverSvg } from "~/features/artwork/cover";
import type { Route } from "./+types/art";

/**
 * `/art/<seed>.svg`: generated artwork (app/features/artwork/cover.ts). The picture follows from
 * the seed alone, so it is cached for a year by anyone; it reads nothing and needs no session.
 */
export function loader({ params }: Route.LoaderArgs) {
  const seed = params.file.replace(/\.svg$/, "");
  if (!params.file.endsWith(".svg") || !COVER_SEED_PATTERN.test(seed)) {
    return new Response("Not found", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  return new Response(coverSvg(seed), {
    headers: {
      "Content-Type": "image/svg+xml; charset=utf-8",
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    },
  });
}
