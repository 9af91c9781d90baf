import type { IncomingHttpHeaders } from "node:http";
import { MAX_BATCH_REQUEST_BYTES } from "~/features/admin/limits";
import { IMPORT_MAX_BYTES } from "~/features/journey/import-constants";
import {
  MAX_LISTEN_PAYLOAD_SIZE,
  PAYLOAD_TOO_LARGE,
} from "~/features/journey/listenbrainz/validate";
import { UPLOAD_BODY_MAX_BYTES } from "~/features/posts/constants";

/**
 * What a request may carry as its body, decided from the method and the path alone, before
 * anything reads the body or asks who is signing in:
 * - `none`: GET, HEAD and OPTIONS carry no body at all;
 * - `form`: every other route takes a small url-encoded or multipart form;
 * - `upload`: the post composer's and the avatar's routes take a multipart form with one image;
 * - `history`: the listening-history import takes a multipart form of large history files,
 *   which its action streams to disk (never read whole here or there);
 * - `json`: the routes that take JSON;
 * - `api`: the token API (`/auth/v1/…`): small JSON bodies, or none;
 * - `activitypub`: ActivityPub inbox deliveries (`/inbox`, `/u/{name}/inbox`): one activity as
 *   JSON (`application/activity+json` or `application/ld+json`), 256 KB at most;
 * - `listenbrainz`: the ListenBrainz API (`/1/…`): up to 1000 listens of JSON, whatever the
 *   Content-Type says (players send none, or text/plain), and on any method (Navidrome's
 *   validate-token is a GET with `{}` as its body).
 */
export type BodyClass =
  | "none"
  | "form"
  | "upload"
  | "history"
  | "json"
  | "api"
  | "activitypub"
  | "listenbrainz";

/** Largest body of each class, in bytes. */
export const BODY_LIMITS: Record<BodyClass, number> = {
  none: 0,
  form: 64 * 1024,
  upload: UPLOAD_BODY_MAX_BYTES,
  // The files plus the multipart framing and the form's few small fields.
  history: IMPORT_MAX_BYTES + 1024 * 1024,
  json: MAX_BATCH_REQUEST_BYTES,
  api: 64 * 1024,
  activitypub: 256 * 1024,
  listenbrainz: MAX_LISTEN_PAYLOAD_SIZE,
};

const BODYLESS_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Paths (lower case, without `.data` and trailing slashes) that take an image upload. */
const UPLOAD_PATHS = [/^\/feed$/, /^\/post\/[^/]+\/edit$/, /^\/settings\/profile$/];
/** Paths that take listening-history files. */
const HISTORY_PATHS = [/^\/settings\/listening$/];
/** Paths that take JSON. */
const JSON_PATHS = [/^\/api\/send-email-batch$/, /^\/admin\/email$/];

/**
 * The path as React Router matches it: percent-decoded, case-insensitive, without the `.data`
 * suffix of its data requests and without trailing slashes.
 */
function routePath(pathname: string): string {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: classify the raw path (React Router will not match it either).
  }
  path = path.toLowerCase();
  if (path === "/_root.data") return "/";
  if (path.endsWith(".data")) path = path.slice(0, -".data".length);
  return path.replace(/\/+$/, "") || "/";
}

export function bodyClassFor(method: string, pathname: string): BodyClass {
  const path = routePath(pathname);
  if (path === "/1" || path.startsWith("/1/")) return "listenbrainz";
  if (BODYLESS_METHODS.has(method.toUpperCase())) return "none";
  if (path.startsWith("/auth/v1/")) return "api";
  if (path === "/inbox" || /^\/u\/[^/]+\/inbox$/.test(path)) return "activitypub";
  if (UPLOAD_PATHS.some((re) => re.test(path))) return "upload";
  if (HISTORY_PATHS.some((re) => re.test(path))) return "history";
  if (JSON_PATHS.some((re) => re.test(path))) return "json";
  return "form";
}

/** A request refused before its body is read: the status and a sentence saying why. */
export interface BodyRefusal {
  status: 400 | 413 | 415;
  message: string;
}

function megabytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/** The answer for a body over the class's limit: ListenBrainz's own 400 under /1/. */
export function tooLargeFor(bodyClass: BodyClass): BodyRefusal {
  if (bodyClass === "listenbrainz") return { status: 400, message: PAYLOAD_TOO_LARGE };
  return tooLarge(BODY_LIMITS[bodyClass]);
}

/** The 413 answer for a body over `limit` bytes. */
export function tooLarge(limit: number): BodyRefusal {
  return {
    status: 413,
    message:
      limit === 0
        ? "This request must not have a body."
        : `The request body is too large: at most ${megabytes(limit)} is accepted here.`,
  };
}

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function hasBoundary(contentType: string): boolean {
  return /;\s*boundary=("[^"]+"|[^\s;]+)/i.test(contentType);
}

/**
 * Refuses what the headers alone give away: a declared length over the class's limit (or any
 * body where none belongs), a malformed Content-Length, and a media type the route cannot read.
 * Returns null when the request may go on; the streamed byte count is checked as it arrives.
 */
export function checkDeclaredBody(
  bodyClass: BodyClass,
  headers: IncomingHttpHeaders,
): BodyRefusal | null {
  const limit = BODY_LIMITS[bodyClass];
  const declared = headers["content-length"];
  const isChunked = headers["transfer-encoding"] !== undefined;
  if (declared !== undefined) {
    if (!/^\d+$/.test(declared)) return { status: 400, message: "Malformed Content-Length." };
    if (Number(declared) > limit) return tooLargeFor(bodyClass);
  }
  if (bodyClass === "none") return isChunked ? tooLarge(0) : null;
  if (bodyClass === "listenbrainz") return null;

  const contentType = headers["content-type"];
  const type = mediaTypeOf(contentType);
  if (bodyClass === "activitypub") {
    return type === "application/json" || type.endsWith("+json")
      ? null
      : {
          status: 415,
          message: "Send the activity as JSON (Content-Type: application/activity+json).",
        };
  }
  if (bodyClass === "api") {
    // Clients send bodiless POSTs (logout) with or without a JSON type: both are fine.
    const isEmpty = declared === "0" || (declared === undefined && !isChunked);
    return isEmpty || type === "application/json" || type.endsWith("+json")
      ? null
      : { status: 415, message: "Send this request as JSON (Content-Type: application/json)." };
  }
  if (bodyClass === "json") {
    return type === "application/json" || type.endsWith("+json")
      ? null
      : { status: 415, message: "Send this request as JSON (Content-Type: application/json)." };
  }
  if (type === "application/x-www-form-urlencoded") return null;
  if (type === "multipart/form-data") {
    return hasBoundary(contentType ?? "")
      ? null
      : { status: 400, message: "The multipart form has no boundary." };
  }
  return {
    status: 415,
    message:
      "Send this form as application/x-www-form-urlencoded or multipart/form-data" +
      (type ? `, not ${type}.` : "; the request had no Content-Type."),
  };
}
