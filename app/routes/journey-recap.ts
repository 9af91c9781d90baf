import { getViewer } from "~/features/auth/guards.server";
import { loadRecap, renderRecapPng } from "~/features/journey/recap.server";
import { getProfile } from "~/features/people/people.server";
import type { Route } from "./+types/journey-recap";

function refuse(status: number, message: string) {
  return new Response(message, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/**
 * `/u/:username/journey/recap.png?period=…&from=…&to=…` or `?chapter=<id>`: someone's recap card
 * as a PNG, for whoever may see their journey while recaps are on (else 404). It depends on the
 * viewer and on new plays, so only the viewer's own cache keeps it, briefly; its ETag is the
 * card's data, so an unchanged card is a 304 without drawing. `?download=1` saves it as a file.
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const viewerId = viewer?.id ?? null;
  const profile = await getProfile({ viewerId, username: params.username });
  if (!profile) return refuse(404, "There is no recap card here, or you cannot see it.");
  const url = new URL(request.url);
  const recap = await loadRecap({
    viewerId,
    owner: { id: profile.id, username: profile.username, displayName: profile.displayName },
    params: url.searchParams,
  });
  if (!recap.ok) return refuse(recap.status, recap.message);
  const headers = new Headers({
    "Content-Type": "image/png",
    "Cache-Control": "private, max-age=300",
    Vary: "Cookie",
    ETag: recap.etag,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
  });
  if (url.searchParams.get("download") === "1") {
    headers.set("Content-Disposition", `attachment; filename="${recap.fileName}"`);
  }
  const ifNoneMatch = request.headers.get("If-None-Match");
  if (ifNoneMatch?.split(",").some((tag) => tag.trim() === recap.etag)) {
    return new Response(null, { status: 304, headers });
  }
  const png = await renderRecapPng(recap.card);
  headers.set("Content-Length", String(png.byteLength));
  return new Response(png as Uint8Array<ArrayBuffer>, { headers });
}
