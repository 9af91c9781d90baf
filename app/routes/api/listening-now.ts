import { data } from "react-router";
import { getViewer } from "~/features/auth/guards.server";
import { listListeningNow } from "~/features/journey/listening-now.server";
import type { Route } from "./+types/listening-now";

/**
 * The feed's "listening now" strip as JSON: friends whose "now playing" the signed-in reader
 * may see (the journey rule). Signed out, nobody.
 */
export async function loader({ context }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const people = viewer ? await listListeningNow({ viewerId: viewer.id }) : [];
  return data({ people }, { headers: { "Cache-Control": "private, no-store" } });
}
