import { data } from "react-router";
import { getViewer } from "~/features/auth/guards.server";
import { listFeed, parseFeedTab } from "~/features/posts/feed.server";
import type { Route } from "./+types/feed";

/**
 * The feed as JSON, for apps (`Authorization: Bearer <access token>` from /auth/v1): the same
 * listing as /feed — "following" for a signed-in person by default, "everyone" otherwise —
 * with the same visibility rule, paged by `cursor`.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const url = new URL(request.url);
  const tab = parseFeedTab(url.searchParams.get("tab"), viewer !== null);
  const cursor = url.searchParams.get("cursor");
  const page = await listFeed({ viewerId: viewer?.id ?? null, tab, cursor });
  return data({ tab, ...page }, { headers: { "Cache-Control": "private, no-store" } });
}
