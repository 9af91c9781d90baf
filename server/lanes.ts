import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Lane } from "./admission";

/**
 * Requests whose work grows with a person's history rather than with a page: a journey (its
 * stats for any period), its recap image, a data export download, a search, the ListenBrainz
 * statistics. They take turns in their own lane (server/admission.ts), so they never hold the
 * turns page views need.
 */
const HEAVY_PATHS = [
  /^\/u\/[^/]+\/journey(?:\.data)?$/,
  /^\/u\/[^/]+\/journey\/recap\.png$/,
  /^\/settings\/data\/export(?:\/[^/]+)?$/,
  /^\/search(?:\.data)?$/,
  /^\/1\/stats\//,
];

/**
 * Requests that hash a password (or check a one-time code): signing in, up, in again with a
 * second step, a new password, a guest's upgrade, the auth API and its token endpoints. POSTs
 * only: the pages themselves are page views.
 */
const AUTH_PATHS = [
  /^\/auth\/(?:login|signup|two-factor|reset-password|upgrade)(?:\.data)?$/,
  /^\/api\/auth\//,
  /^\/auth\/v1\//,
];

export function laneFor(method: string, pathname: string): Lane {
  if (method === "POST" && AUTH_PATHS.some((re) => re.test(pathname))) return "auth";
  if (method !== "GET" && method !== "HEAD") return "light";
  return HEAVY_PATHS.some((re) => re.test(pathname)) ? "heavy" : "light";
}

/** The session cookie's name ends so, whatever its prefix (`__Secure-` behind HTTPS). */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?soundtrail\.session_token=([^;]+)/;

/**
 * Who a request is from, for fairness between clients: its session (a signed-in person's tabs
 * are one client), else its bearer token, else its address. Hashed: the queue never holds a
 * credential.
 */
export function clientKeyFor(headers: IncomingHttpHeaders, address: string): string {
  const session = SESSION_COOKIE.exec(String(headers.cookie ?? ""))?.[1];
  const bearer = /^bearer\s+(\S+)/i.exec(String(headers.authorization ?? ""))?.[1];
  const credential = session ?? bearer;
  if (!credential) return `a:${address}`;
  return `c:${createHash("sha256").update(credential).digest("base64url").slice(0, 22)}`;
}
