import { handleAuthApi } from "~/features/auth-api/handler.server";
import type { Route } from "./+types/auth-v1";

/**
 * The token API: the Supabase Auth protocol under /auth/v1, for apps, scripts and the official
 * client (docs/api.md, ADR 016). It reads no cookie (the OAuth callback aside) and sets none.
 */
export function loader({ request }: Route.LoaderArgs) {
  return handleAuthApi(request);
}

export function action({ request }: Route.ActionArgs) {
  return handleAuthApi(request);
}
