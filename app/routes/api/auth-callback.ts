import { redirect } from "react-router";
import { AUTH_LIMITS, checkRateLimits } from "~/core/rate-limit/rate-limit.server";
import { clientOf } from "~/features/auth/accounts.server";
import { getAuth } from "~/features/auth/better-auth.server";
import type { Route } from "./+types/auth-callback";

/**
 * OAuth providers send people back here. Only the callback is exposed from better-auth's
 * HTTP handler: every other auth action goes through our server functions and their limits.
 * The callback counts in the same limiter (better-auth's own is off): past the limit the
 * person lands on the sign-in page, which says to wait.
 */
async function callback(request: Request): Promise<Response> {
  const limited = await checkRateLimits([
    [`oauth-callback:address:${clientOf(request.headers)}`, AUTH_LIMITS.oauthCallbackPerAddress],
  ]);
  if (limited) {
    return redirect("/auth/login?error=rate_limited", {
      headers: { "Retry-After": String(limited.retryAfterSeconds) },
    });
  }
  return getAuth().handler(request);
}

export function loader({ request }: Route.LoaderArgs) {
  return callback(request);
}

export function action({ request }: Route.ActionArgs) {
  return callback(request);
}
