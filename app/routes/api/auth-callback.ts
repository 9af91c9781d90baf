import { getAuth } from "~/features/auth/better-auth.server";
import type { Route } from "./+types/auth-callback";

/**
 * OAuth providers send people back here. Only the callback is exposed from better-auth's
 * HTTP handler: every other auth action goes through our server functions and their limits.
 */
export function loader({ request }: Route.LoaderArgs) {
  return getAuth().handler(request);
}

export function action({ request }: Route.ActionArgs) {
  return getAuth().handler(request);
}
