import { getEnv } from "~/lib/env.server";
import { getFederation } from "./federation.server";

const AP_TYPES = /application\/(activity\+json|ld\+json)/i;

/** Does this request ask for ActivityPub JSON (a server, not a browser)? */
function wantsActivityJson(request: Request): boolean {
  return AP_TYPES.test(request.headers.get("accept") ?? "");
}

/**
 * Requests federation answers: WebFinger and NodeInfo, inbox deliveries, and requests for
 * ActivityPub JSON (actors, collections, notes). A browser's page view never reaches Fedify,
 * so `/u/{username}` and `/post/{id}` stay the app's HTML pages.
 */
export function isFederationRequest(request: Request): boolean {
  if (!getEnv().FEDERATION) return false;
  const { pathname } = new URL(request.url);
  if (pathname === "/.well-known/webfinger" || pathname === "/.well-known/nodeinfo") return true;
  if (pathname === "/nodeinfo/2.1") return true;
  if (request.method === "POST")
    return pathname === "/inbox" || /^\/u\/[^/]+\/inbox$/.test(pathname);
  return (request.method === "GET" || request.method === "HEAD") && wantsActivityJson(request);
}

function notFound(): Response {
  return new Response(JSON.stringify({ error: "Not found" }), {
    status: 404,
    headers: { "Content-Type": "application/json; charset=utf-8", Vary: "Accept" },
  });
}

/**
 * Answers a federation request with Fedify; what Fedify does not answer goes to `fallback`
 * (the app), except a request for ActivityPub JSON, which gets a plain 404 — a followers-only
 * or only-me post, an unknown person, answer the same.
 */
export async function handleFederationRequest(
  request: Request,
  fallback: (request: Request) => Promise<Response>,
): Promise<Response> {
  const apJson = wantsActivityJson(request);
  return getFederation().fetch(request, {
    contextData: undefined,
    onNotFound: (req) => (apJson ? notFound() : fallback(req)),
    onNotAcceptable: (req) => fallback(req),
  });
}
