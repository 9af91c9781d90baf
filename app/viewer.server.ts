import type { MiddlewareFunction } from "react-router";
import { bearerRefusedResponse } from "~/features/auth/guards.server";
import { getViewerFromHeaders } from "~/features/auth/index.server";
import { getViewerFromBearer } from "~/features/auth-api/index.server";
import { hasBearer } from "~/lib/bearer";
import { sessionIdContext, viewerContext } from "~/lib/context.server";

// Here, above the features, because it joins two of them: the browser's session (auth) and an
// app's bearer token (auth-api, which itself builds on auth).

/** Root middleware: resolves who is asking (after app.server.ts's bootMiddleware). */
export const viewerMiddleware: MiddlewareFunction<Response> = async (
  { request, context },
  next,
) => {
  // The token API and the ListenBrainz API answer for themselves (never with a cookie's viewer).
  const { pathname } = new URL(request.url);
  if (pathname.startsWith("/auth/v1/") || pathname.startsWith("/1/")) return next();
  // An app's bearer token, or the browser's session cookie: never both.
  const bearer = hasBearer(request.headers);
  const { viewer, sessionId, setCookies } = bearer
    ? { ...(await getViewerFromBearer(request.headers)), setCookies: [] as string[] }
    : await getViewerFromHeaders(request.headers);
  // A token that does not verify, expired, ended, or an aal1 token of a two-step account: the
  // app gets a 401 it can act on (refresh, sign in again) on every route — never the signed-out
  // page or public feed, never HTML.
  if (bearer && !viewer) return bearerRefusedResponse();
  context.set(viewerContext, viewer);
  context.set(sessionIdContext, sessionId);
  const response = await next();
  // Sliding session renewal: pass on the refreshed cookie.
  for (const cookie of setCookies) response.headers.append("Set-Cookie", cookie);
  return response;
};
