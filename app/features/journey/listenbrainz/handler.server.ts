import { logger } from "~/core/logger.server";
import { hitRateLimit, type RateLimitRule } from "~/core/rate-limit/rate-limit.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { clearPlayingNowFor, recordListens, recordPlayingNow } from "./listens.server";
import { findListenTokenOwner, type ListenTokenOwner } from "./tokens.server";
import { MAX_LISTEN_PAYLOAD_SIZE, PAYLOAD_TOO_LARGE, validateSubmission } from "./validate";

/** The path prefix of the ListenBrainz API: players are told the server is BASE_URL. */
export const LISTENBRAINZ_API_PREFIX = "/1";

/**
 * brainzutils' rate limits as ListenBrainz runs them: a fixed window of 10 seconds, 30 requests
 * per client address, and a budget of its own for a token that ListenBrainz knows (here: every
 * working token, so several players behind one address do not starve each other).
 */
export const LISTENBRAINZ_LIMITS = {
  perToken: { limit: 50, windowSeconds: 10 },
  perAddress: { limit: 30, windowSeconds: 10 },
} satisfies Record<string, RateLimitRule>;

const RATE_LIMIT_MESSAGE =
  "You have exceeded your rate limit. See the X-RateLimit-* response headers for more information on your current rate limit.";
const NOT_FOUND_MESSAGE =
  "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.";
const METHOD_NOT_ALLOWED_MESSAGE = "The method is not allowed for the requested URL.";
const UNAVAILABLE_MESSAGE = "Cannot submit listens right now, please try again later.";

/** The endpoints and the methods each answers (OPTIONS is the CORS preflight). */
const ENDPOINTS: Record<string, string[]> = {
  "submit-listens": ["POST", "OPTIONS"],
  "validate-token": ["GET", "HEAD", "OPTIONS"],
};

/** ListenBrainz's `@crossdomain` headers: any origin, its methods, the two headers it reads. */
function corsHeaders(methods: string[]): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": methods.join(", "),
    "Access-Control-Max-Age": "21600",
    "Access-Control-Allow-Headers": "Authorization, Content-Type",
  };
}

interface RateLimitState {
  limit: number;
  remaining: number;
  resetIn: number;
}

/** brainzutils' `inject_x_rate_headers`. */
function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    "Access-Control-Expose-Headers":
      "X-RateLimit-Remaining,X-RateLimit-Limit,X-RateLimit-Reset,X-RateLimit-Reset-In",
    "X-RateLimit-Remaining": String(state.remaining),
    "X-RateLimit-Limit": String(state.limit),
    "X-RateLimit-Reset": String(Math.floor(Date.now() / 1000) + state.resetIn),
    "X-RateLimit-Reset-In": String(state.resetIn),
  };
}

function json(
  body: Record<string, unknown>,
  status: number,
  headers: Record<string, string>,
  isHead = false,
): Response {
  return new Response(isHead ? null : JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      ...headers,
    },
  });
}

/** An error as ListenBrainz's `APIError.to_dict()`: the offending listen's keys, code, error. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly payload?: Record<string, unknown>,
  ) {
    super(message);
  }
  body(): Record<string, unknown> {
    return { ...this.payload, code: this.status, error: this.message };
  }
}

/** The token of `Authorization: Token <t>` (any scheme: ListenBrainz takes the second word). */
function authorizationToken(request: Request): { present: boolean; token: string | null } {
  const header = request.headers.get("Authorization");
  if (!header) return { present: false, token: null };
  const token = header.split(" ")[1];
  return { present: true, token: token === undefined ? null : token.trim() };
}

/** Looks a token up once per request (the rate limit and the endpoint both need its owner). */
function ownerLookup() {
  const cache = new Map<string, Promise<ListenTokenOwner | null>>();
  return (token: string | null): Promise<ListenTokenOwner | null> => {
    if (!token) return Promise.resolve(null);
    let found = cache.get(token);
    if (!found) {
      found = findListenTokenOwner(token);
      cache.set(token, found);
    }
    return found;
  };
}

async function readRawBody(request: Request): Promise<Uint8Array> {
  return new Uint8Array(await request.arrayBuffer());
}

async function submitListens(
  request: Request,
  lookup: ReturnType<typeof ownerLookup>,
): Promise<Record<string, unknown>> {
  const auth = authorizationToken(request);
  if (!auth.present) throw new ApiError(401, "You need to provide an Authorization header.");
  if (auth.token === null) throw new ApiError(401, "Provided Authorization header is invalid.");
  const owner = await lookup(auth.token);
  if (!owner) throw new ApiError(401, "Invalid authorization token.");

  const raw = await readRawBody(request);
  if (raw.byteLength > MAX_LISTEN_PAYLOAD_SIZE) throw new ApiError(400, PAYLOAD_TOO_LARGE);
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch (error) {
    const reason = error instanceof Error ? error.message : "not JSON";
    throw new ApiError(400, `Cannot parse JSON document: ${reason}`);
  }
  const submission = validateSubmission(raw.byteLength, document);
  if (!submission.ok) throw new ApiError(400, submission.message, submission.payload);

  const [first] = submission.listens;
  if (submission.listenType === "playing_now") {
    if (first) await recordPlayingNow({ userId: owner.userId, listen: first });
  } else {
    await recordListens({ userId: owner.userId, listens: submission.listens });
    if (submission.listenType === "single" && first) {
      await clearPlayingNowFor({ userId: owner.userId, listen: first });
    }
  }
  return { status: "ok" };
}

async function validateToken(
  request: Request,
  lookup: ReturnType<typeof ownerLookup>,
): Promise<Record<string, unknown>> {
  const header = request.headers.get("Authorization");
  const token = header?.toLowerCase().startsWith("token ")
    ? (header.split(" ")[1] ?? "")
    : (new URL(request.url).searchParams.get("token") ?? "");
  if (!token) throw new ApiError(400, "You need to provide an Authorization token.");
  const owner = await lookup(token.trim());
  if (!owner) return { code: 200, message: "Token invalid.", valid: false };
  return { code: 200, message: "Token valid.", valid: true, user_name: owner.username };
}

/** The token a request is rate limited by: validate-token's query parameter counts too. */
function rateLimitToken(request: Request, endpoint: string): string | null {
  const fromHeader = authorizationToken(request).token;
  if (fromHeader) return fromHeader;
  if (endpoint === "validate-token") return new URL(request.url).searchParams.get("token");
  return null;
}

/**
 * Answers a request under /1/: ListenBrainz's `submit-listens` and `validate-token`, with its
 * CORS headers, rate-limit headers and `{ code, error }` errors. Never reads a cookie.
 */
export async function handleListenBrainzApi(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const isHead = method === "HEAD";
  // Players join the base they are given and the endpoint in different ways: "/1/x", "/1//x"
  // and "/1/x/" are all the same endpoint.
  const endpoint = url.pathname
    .slice(LISTENBRAINZ_API_PREFIX.length)
    .replace(/\/{2,}/g, "/")
    .replace(/^\/|\/$/g, "");
  const methods = ENDPOINTS[endpoint];
  if (!methods) {
    return json(
      { code: 404, error: NOT_FOUND_MESSAGE },
      404,
      { "Access-Control-Allow-Origin": "*" },
      isHead,
    );
  }
  const cors = corsHeaders(methods);
  if (!methods.includes(method)) {
    return json(
      { code: 405, error: METHOD_NOT_ALLOWED_MESSAGE },
      405,
      { ...cors, Allow: methods.join(", ") },
      isHead,
    );
  }
  if (method === "OPTIONS") {
    return new Response(null, { status: 200, headers: { ...cors, Allow: methods.join(", ") } });
  }

  const lookup = ownerLookup();
  let limits: RateLimitState | null = null;
  try {
    const owner = await lookup(rateLimitToken(request, endpoint));
    const rule = owner ? LISTENBRAINZ_LIMITS.perToken : LISTENBRAINZ_LIMITS.perAddress;
    const key = owner
      ? `listenbrainz:token:${owner.tokenId}`
      : `listenbrainz:ip:${request.headers.get(CLIENT_IP_HEADER) ?? "unknown"}`;
    const outcome = await hitRateLimit(key, rule);
    limits = {
      limit: rule.limit,
      remaining: outcome.remaining,
      resetIn: outcome.retryAfterSeconds,
    };
    if (!outcome.isAllowed) throw new ApiError(429, RATE_LIMIT_MESSAGE);
    const body =
      endpoint === "submit-listens"
        ? await submitListens(request, lookup)
        : await validateToken(request, lookup);
    return json(body, 200, { ...cors, ...rateLimitHeaders(limits) }, isHead);
  } catch (error) {
    const headers = { ...cors, ...(limits ? rateLimitHeaders(limits) : {}) };
    if (error instanceof ApiError) return json(error.body(), error.status, headers, isHead);
    // The database is down or a write failed: a ListenBrainz-shaped 503 that players retry.
    logger.error({ err: error, endpoint }, "ListenBrainz API request failed");
    return json({ code: 503, error: UNAVAILABLE_MESSAGE }, 503, headers, isHead);
  }
}
