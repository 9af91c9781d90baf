import { logger } from "~/core/logger.server";
import { hitRateLimit, type RateLimitRule } from "~/core/rate-limit/rate-limit.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import {
  ApiError,
  BAD_AUTH_HEADER,
  BAD_TOKEN,
  badRequest,
  booleanArg,
  intArg,
  NO_AUTH_HEADER,
  NOT_FOUND_MESSAGE,
  NoContent,
  nonNegativeArg,
  pythonInt,
} from "./api-error";
import {
  getLatestImport,
  IMPORT_SERVICES,
  listRecordingFeedback,
  raiseLatestImport,
  setRecordingFeedback,
} from "./feedback.server";
import {
  clearPlayingNow,
  clearPlayingNowFor,
  recordListens,
  recordPlayingNow,
} from "./listens.server";
import { canonicalUuid, isValidUuid, recordingMsid } from "./msid.server";
import { followNames, searchUserNames } from "./people-api.server";
import { type ApiUser, findApiUser, readAccess, readerOf, userNotFound } from "./reader.server";
import {
  countUserListens,
  DEFAULT_ITEMS_PER_GET,
  deleteUserListen,
  listUserListens,
  MAX_ITEMS_PER_GET,
  playingNowOf,
} from "./reads.server";
import {
  dailyActivity,
  entityStats,
  isStatsRange,
  listeningActivity,
  type StatsRange,
} from "./stats-api.server";
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
const METHOD_NOT_ALLOWED_MESSAGE = "The method is not allowed for the requested URL.";
const UNAVAILABLE_MESSAGE = "Cannot submit listens right now, please try again later.";
const READ_UNAVAILABLE_MESSAGE =
  "The listen database is momentarily offline. Please wait a few minutes and try again.";

type TokenLookup = (token: string | null) => Promise<ListenTokenOwner | null>;

interface Call {
  request: Request;
  query: URLSearchParams;
  /** The path's captured parts (a username, a stats entity). */
  parts: string[];
  lookup: TokenLookup;
}

type Handler = (call: Call) => Promise<Record<string, unknown>>;

const READ = ["GET", "HEAD", "OPTIONS"];
const WRITE = ["POST", "OPTIONS"];

/** The endpoints, as ListenBrainz routes them (OPTIONS is the CORS preflight, HEAD a GET). */
const ENDPOINTS: { path: RegExp; methods: string[]; handle: Handler }[] = [
  { path: /^submit-listens$/, methods: WRITE, handle: submitListens },
  { path: /^validate-token$/, methods: READ, handle: validateToken },
  { path: /^user\/([^/]+)\/listens$/, methods: READ, handle: getListens },
  { path: /^user\/([^/]+)\/listen-count$/, methods: READ, handle: getListenCount },
  { path: /^user\/([^/]+)\/playing-now$/, methods: READ, handle: getPlayingNow },
  { path: /^playing-now\/delete$/, methods: WRITE, handle: deletePlayingNow },
  { path: /^latest-import$/, methods: ["GET", "HEAD", "POST", "OPTIONS"], handle: latestImport },
  { path: /^delete-listen$/, methods: WRITE, handle: deleteListen },
  { path: /^feedback\/recording-feedback$/, methods: WRITE, handle: recordingFeedback },
  { path: /^feedback\/user\/([^/]+)\/get-feedback$/, methods: READ, handle: getFeedback },
  {
    path: /^stats\/user\/([^/]+)\/(artists|releases|recordings)$/,
    methods: READ,
    handle: getEntityStats,
  },
  {
    path: /^stats\/user\/([^/]+)\/(listening-activity|daily-activity)$/,
    methods: READ,
    handle: getActivityStats,
  },
  { path: /^search\/users$/, methods: READ, handle: searchUsers },
  { path: /^user\/([^/]+)\/(followers|following)$/, methods: READ, handle: getFollows },
  // What Soundtrail keeps no data for: ListenBrainz's answer when it has none.
  { path: /^user\/([^/]+)\/similar-users$/, methods: READ, handle: similarUsers },
  {
    path: /^user\/([^/]+)\/playlists(?:\/(createdfor|collaborator))?$/,
    methods: READ,
    handle: playlists,
  },
  {
    path: /^cf\/recommendation\/user\/([^/]+)\/recording$/,
    methods: READ,
    handle: recommendations,
  },
  { path: /^metadata\/lookup$/, methods: READ, handle: metadataLookup },
];

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
  body: Record<string, unknown> | null,
  status: number,
  headers: Record<string, string>,
  isHead = false,
): Response {
  return new Response(isHead || body === null ? null : JSON.stringify(body), {
    status,
    headers: {
      ...(body === null ? {} : { "Content-Type": "application/json" }),
      "Cache-Control": "no-store",
      ...headers,
    },
  });
}

/** The token of `Authorization: Token <t>` (any scheme: ListenBrainz takes the second word). */
function authorizationToken(request: Request): { present: boolean; token: string | null } {
  const header = request.headers.get("Authorization");
  if (!header) return { present: false, token: null };
  const token = header.split(" ")[1];
  return { present: true, token: token === undefined ? null : token.trim() };
}

/** Looks a token up once per request (the rate limit and the endpoint both need its owner). */
function ownerLookup(): TokenLookup {
  const cache = new Map<string, Promise<ListenTokenOwner | null>>();
  return (token) => {
    if (!token) return Promise.resolve(null);
    let found = cache.get(token);
    if (!found) {
      found = findListenTokenOwner(token);
      cache.set(token, found);
    }
    return found;
  };
}

/** ListenBrainz's `validate_auth_header()`: the token's owner, or its 401. */
async function requireOwner(call: Call): Promise<ListenTokenOwner> {
  const auth = authorizationToken(call.request);
  if (!auth.present) throw new ApiError(401, NO_AUTH_HEADER);
  if (auth.token === null) throw new ApiError(401, BAD_AUTH_HEADER);
  const owner = await call.lookup(auth.token);
  if (!owner) throw new ApiError(401, BAD_TOKEN);
  return owner;
}

/** A JSON body (ListenBrainz's `request.json` / `orjson.loads`); `fallback` when it is empty. */
async function readJson(request: Request): Promise<unknown> {
  const raw = new Uint8Array(await request.arrayBuffer());
  if (raw.byteLength > MAX_LISTEN_PAYLOAD_SIZE) throw badRequest(PAYLOAD_TOO_LARGE);
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch (error) {
    const reason = error instanceof Error ? error.message : "not JSON";
    throw badRequest(`Cannot parse JSON document: ${reason}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The person a path names (404 as ListenBrainz words it when there is none). */
async function pathUser(call: Call): Promise<{ user: ApiUser; asked: string }> {
  let asked = call.parts[0] ?? "";
  try {
    asked = decodeURIComponent(asked);
  } catch {
    // A malformed escape names nobody.
  }
  const user = await findApiUser(asked);
  if (!user) throw userNotFound(asked);
  return { user, asked };
}

/** The person a path names and what the request's reader may see of them. */
async function readable(call: Call) {
  const reader = await readerOf(call.request, call.lookup);
  const { user, asked } = await pathUser(call);
  const access = await readAccess({ reader, owner: user, asked });
  return { reader, user, asked, access };
}

async function submitListens(call: Call): Promise<Record<string, unknown>> {
  const owner = await requireOwner(call);
  const raw = new Uint8Array(await call.request.arrayBuffer());
  if (raw.byteLength > MAX_LISTEN_PAYLOAD_SIZE) throw badRequest(PAYLOAD_TOO_LARGE);
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch (error) {
    const reason = error instanceof Error ? error.message : "not JSON";
    throw badRequest(`Cannot parse JSON document: ${reason}`);
  }
  const submission = validateSubmission(raw.byteLength, document);
  if (!submission.ok) throw badRequest(submission.message, submission.payload);

  const [first] = submission.listens;
  if (submission.listenType === "playing_now") {
    if (!first) return { status: "ok" };
    const stored = await recordPlayingNow({ userId: owner.userId, listen: first });
    // ListenBrainz answers `?return_msid=…` (any non-empty value) on a playing-now submit only.
    if (call.query.get("return_msid")) {
      return { status: "ok", recording_msid: recordingMsid(stored) };
    }
    return { status: "ok" };
  }
  await recordListens({ userId: owner.userId, listens: submission.listens });
  if (submission.listenType === "single" && first) {
    await clearPlayingNowFor({ userId: owner.userId, listen: first });
  }
  return { status: "ok" };
}

async function validateToken(call: Call): Promise<Record<string, unknown>> {
  const header = call.request.headers.get("Authorization");
  const token = header?.toLowerCase().startsWith("token ")
    ? (header.split(" ")[1] ?? "")
    : (call.query.get("token") ?? "");
  if (!token) throw badRequest("You need to provide an Authorization token.");
  const owner = await call.lookup(token.trim());
  if (!owner) return { code: 200, message: "Token invalid.", valid: false };
  return { code: 200, message: "Token valid.", valid: true, user_name: owner.username };
}

/** ListenBrainz's `_parse_datetime_arg` for min_ts and max_ts. */
function timestampArg(query: URLSearchParams, name: string): number | null {
  const value = query.get(name);
  if (value === null) return null;
  const parsed = pythonInt(value);
  if (parsed === null) throw badRequest(`Incorrect ${name} timestamp argument: ${value}`);
  return parsed;
}

async function getListens(call: Call): Promise<Record<string, unknown>> {
  const { user, access } = await readable(call);
  const maxTs = timestampArg(call.query, "max_ts");
  const minTs = timestampArg(call.query, "min_ts");
  if (maxTs && minTs && maxTs <= minTs) throw badRequest("max_ts should be greater than min_ts");
  const count = Math.min(
    intArg(call.query, "count", DEFAULT_ITEMS_PER_GET) ?? 0,
    MAX_ITEMS_PER_GET,
  );
  if (count < 0) throw badRequest("Number of items requested should be positive");
  const data = await listUserListens({
    userId: user.id,
    username: user.username,
    hidden: access.hidden,
    count,
    minTs,
    maxTs,
  });
  return { payload: { ...data, user_id: user.username } };
}

async function getListenCount(call: Call): Promise<Record<string, unknown>> {
  const { user, access } = await readable(call);
  return { payload: { count: await countUserListens({ userId: user.id, hidden: access.hidden }) } };
}

async function getPlayingNow(call: Call): Promise<Record<string, unknown>> {
  const { user, access } = await readable(call);
  const listens = await playingNowOf({
    userId: user.id,
    username: user.username,
    hidden: access.hidden,
    isOwner: access.isOwner,
  });
  return {
    payload: { count: listens.length, user_id: user.username, playing_now: true, listens },
  };
}

async function deletePlayingNow(call: Call): Promise<Record<string, unknown>> {
  const owner = await requireOwner(call);
  const cleared = await clearPlayingNow({ userId: owner.userId });
  if (!cleared) return { status: "ok", message: "Playing now was already cleared" };
  return { status: "ok", message: "Playing now cleared successfully" };
}

function importService(name: string): string {
  const service = name.toLowerCase();
  if (!(IMPORT_SERVICES as readonly string[]).includes(service)) {
    throw new ApiError(404, `Service does not exist: ${name}`);
  }
  return service;
}

async function latestImport(call: Call): Promise<Record<string, unknown>> {
  if (call.request.method === "POST") {
    const owner = await requireOwner(call);
    let ts: number;
    let service: string;
    try {
      const data = await readJson(call.request);
      if (!isObject(data)) throw new Error("not an object");
      const rawTs = data.ts ?? 0;
      const parsed =
        typeof rawTs === "number"
          ? Math.trunc(rawTs)
          : typeof rawTs === "string"
            ? pythonInt(rawTs)
            : null;
      if (parsed === null || !Number.isFinite(parsed)) throw new Error("bad ts");
      ts = parsed;
      service = importService(typeof data.service === "string" ? data.service : "lastfm");
    } catch {
      throw badRequest("Invalid data sent");
    }
    await raiseLatestImport({ userId: owner.userId, service, ts });
    return { status: "ok" };
  }
  const service = importService(call.query.get("service") ?? "lastfm");
  const name = call.query.get("user_name") ?? "";
  const reader = await readerOf(call.request, call.lookup);
  const user = await findApiUser(name);
  if (!user) throw userNotFound(name);
  await readAccess({ reader, owner: user, asked: name });
  return {
    musicbrainz_id: user.username,
    latest_import: await getLatestImport({ userId: user.id, service }),
    status: null,
    error: null,
  };
}

async function deleteListen(call: Call): Promise<Record<string, unknown>> {
  const owner = await requireOwner(call);
  const data = await readJson(call.request);
  if (!isObject(data) || !("listened_at" in data)) throw badRequest("Listen timestamp missing.");
  const rawAt = data.listened_at;
  const listenedAt =
    typeof rawAt === "number" && Number.isFinite(rawAt)
      ? Math.trunc(rawAt)
      : typeof rawAt === "string"
        ? pythonInt(rawAt)
        : null;
  if (listenedAt === null) throw badRequest(`${String(rawAt)}: Listen timestamp invalid.`);
  if (!("recording_msid" in data)) throw badRequest("Recording MSID missing.");
  const msid = data.recording_msid;
  if (!isValidUuid(msid)) throw badRequest(`${String(msid)}: Recording MSID format invalid.`);
  await deleteUserListen({ userId: owner.userId, listenedAt, msid: canonicalUuid(msid) });
  return { status: "ok" };
}

async function recordingFeedback(call: Call): Promise<Record<string, unknown>> {
  const owner = await requireOwner(call);
  const data = await readJson(call.request);
  if (!isObject(data)) {
    throw badRequest(
      "JSON document must contain either recording_msid or recording_mbid, and score top level keys",
    );
  }
  if ((!("recording_msid" in data) && !("recording_mbid" in data)) || !("score" in data)) {
    throw badRequest(
      "JSON document must contain either recording_msid or recording_mbid, and score top level keys",
      data,
    );
  }
  if (Object.keys(data).some((k) => !["recording_msid", "recording_mbid", "score"].includes(k))) {
    throw badRequest(
      "JSON document may only contain recording_msid, recording_mbid and score top level keys",
      data,
    );
  }
  const invalid = (reason: string) =>
    badRequest(`Invalid JSON document submitted: ${reason}`, data);
  const msid = data.recording_msid ?? null;
  const mbid = data.recording_mbid ?? null;
  if (mbid !== null && !isValidUuid(mbid)) throw invalid("recording_mbid: must be a valid UUID");
  if (msid !== null && !isValidUuid(msid)) throw invalid("recording_msid: must be a valid UUID");
  if (msid === null && mbid === null) {
    throw invalid("at least one of recording_msid or recording_mbid should be specified");
  }
  const score = data.score;
  if (score !== -1 && score !== 0 && score !== 1) {
    throw invalid("score: Score can have a value of 1, 0 or -1.");
  }
  await setRecordingFeedback({
    userId: owner.userId,
    msid: msid === null ? null : canonicalUuid(msid as string),
    mbid: mbid === null ? null : canonicalUuid(mbid as string),
    score,
  });
  return { status: "ok" };
}

async function getFeedback(call: Call): Promise<Record<string, unknown>> {
  const score = intArg(call.query, "score", null);
  const metadata = booleanArg(call.query, "metadata", false);
  const offset = nonNegativeArg(call.query, "offset", 0);
  const count = Math.min(
    nonNegativeArg(call.query, "count", DEFAULT_ITEMS_PER_GET),
    MAX_ITEMS_PER_GET,
  );
  const { user, access } = await readable(call);
  if (score && score !== 1 && score !== -1) throw badRequest("Score can have a value of 1 or -1.");
  const { feedback, total } = await listRecordingFeedback({
    userId: user.id,
    username: user.username,
    score: score || null,
    count,
    offset,
    metadata,
    hidden: access.hidden,
  });
  return { feedback, count: feedback.length, total_count: total, offset };
}

function statsRange(call: Call): StatsRange {
  const range = call.query.get("range") ?? "all_time";
  if (!isStatsRange(range)) throw badRequest(`Invalid range: ${range}`);
  return range;
}

async function getEntityStats(call: Call): Promise<Record<string, unknown>> {
  const { user, access } = await readable(call);
  const range = statsRange(call);
  const offset = nonNegativeArg(call.query, "offset", 0);
  const count = nonNegativeArg(call.query, "count", DEFAULT_ITEMS_PER_GET);
  const entity = call.parts[1] as "artists" | "releases" | "recordings";
  const stats = await entityStats({
    owner: { userId: user.id, username: user.username, hidden: access.hidden },
    entity,
    range,
    offset,
    count,
  });
  if (!stats) throw new NoContent();
  return { payload: stats };
}

async function getActivityStats(call: Call): Promise<Record<string, unknown>> {
  const { user, access } = await readable(call);
  const range = statsRange(call);
  const owner = { userId: user.id, username: user.username, hidden: access.hidden };
  const stats =
    call.parts[1] === "daily-activity"
      ? await dailyActivity({ owner, range })
      : await listeningActivity({ owner, range });
  if (!stats) throw new NoContent();
  return { payload: stats };
}

async function searchUsers(call: Call): Promise<Record<string, unknown>> {
  const reader = await readerOf(call.request, call.lookup);
  const term = call.query.get("search_term") ?? "";
  return { users: await searchUserNames({ readerId: reader?.userId ?? null, term }) };
}

/**
 * The person a path names for a read that is not their journey's (follows, what Soundtrail keeps
 * no data for): anybody may ask, but across a block the person is not found, as their profile
 * is not.
 */
async function visiblePerson(call: Call) {
  const reader = await readerOf(call.request, call.lookup);
  const { user, asked } = await pathUser(call);
  if (reader && reader.userId !== user.id) {
    await readAccess({ reader, owner: user, asked }).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) throw error;
    });
  }
  return { reader, user };
}

async function getFollows(call: Call): Promise<Record<string, unknown>> {
  const { reader, user } = await visiblePerson(call);
  const list = call.parts[1] === "followers" ? "followers" : "following";
  const names = await followNames({ readerId: reader?.userId ?? null, userId: user.id, list });
  return { [list]: names, user: user.username };
}

async function similarUsers(call: Call): Promise<Record<string, unknown>> {
  await visiblePerson(call);
  return { payload: [] };
}

async function playlists(call: Call): Promise<Record<string, unknown>> {
  await readerOf(call.request, call.lookup);
  const count = nonNegativeArg(call.query, "count", 25);
  const offset = nonNegativeArg(call.query, "offset", 0);
  await visiblePerson(call);
  return { playlists: [], playlist_count: 0, offset, count };
}

async function recommendations(call: Call): Promise<Record<string, unknown>> {
  await visiblePerson(call);
  throw new NoContent();
}

async function metadataLookup(call: Call): Promise<Record<string, unknown>> {
  await requireOwner(call);
  if (!call.query.get("artist_name")) {
    throw badRequest("artist_name is invalid or not present in arguments");
  }
  if (!call.query.get("recording_name")) {
    throw badRequest("recording_name is invalid or not present in arguments");
  }
  booleanArg(call.query, "metadata", false);
  return {};
}

/**
 * Answers a request under /1/: ListenBrainz's API as its server answers (docs/api.md), with
 * its CORS headers, rate-limit headers and `{ code, error }` errors. Never reads a cookie.
 */
export async function handleListenBrainzApi(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const isHead = method === "HEAD";
  // Players join the base they are given and the endpoint in different ways: "/1/x", "/1//x"
  // and "/1/x/" are all the same endpoint.
  const path = url.pathname
    .replace(/^\/+/, "/")
    .slice(LISTENBRAINZ_API_PREFIX.length)
    .replace(/\/{2,}/g, "/")
    .replace(/^\/|\/$/g, "");
  let parts: string[] = [];
  const endpoint = ENDPOINTS.find((candidate) => {
    const match = candidate.path.exec(path);
    if (match) parts = match.slice(1).filter((part): part is string => part !== undefined);
    return match !== null;
  });
  if (!endpoint) {
    return json(
      { code: 404, error: NOT_FOUND_MESSAGE },
      404,
      { "Access-Control-Allow-Origin": "*" },
      isHead,
    );
  }
  const { methods } = endpoint;
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
    const token =
      authorizationToken(request).token ??
      (endpoint.handle === validateToken ? url.searchParams.get("token") : null);
    const owner = await lookup(token);
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
    const body = await endpoint.handle({ request, query: url.searchParams, parts, lookup });
    return json(body, 200, { ...cors, ...rateLimitHeaders(limits) }, isHead);
  } catch (error) {
    const headers = { ...cors, ...(limits ? rateLimitHeaders(limits) : {}) };
    if (error instanceof NoContent) return json(null, 204, headers);
    if (error instanceof ApiError) return json(error.body(), error.status, headers, isHead);
    // The database is down or a write failed: a ListenBrainz-shaped 503 that players retry.
    logger.error({ err: error, endpoint: path }, "ListenBrainz API request failed");
    const message =
      endpoint.handle === submitListens ? UNAVAILABLE_MESSAGE : READ_UNAVAILABLE_MESSAGE;
    return json({ code: 503, error: message }, 503, headers, isHead);
  }
}
