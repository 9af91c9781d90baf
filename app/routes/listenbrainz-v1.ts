import { handleListenBrainzApi } from "~/features/journey/listenbrainz/handler.server";
import type { Route } from "./+types/listenbrainz-v1";

/**
 * The ListenBrainz API under /1 (docs/api.md): players that can send listens to a custom
 * ListenBrainz server send them here with a token from Settings → Connected players. It reads
 * no cookie and sets none.
 */
export function loader({ request }: Route.LoaderArgs) {
  return handleListenBrainzApi(request);
}

export function action({ request }: Route.ActionArgs) {
  return handleListenBrainzApi(request);
}
