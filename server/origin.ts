import type { IncomingHttpHeaders } from "node:http";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cross-site request forgery guard: a state-changing request must come from one of our own
 * origins — those of `BASE_URL`, never one derived from the request's Host header, which the
 * client chooses (a DNS-rebinding page on another name would pass a Host comparison).
 * Reads headers only, so it runs before any of the body is read. Returns a reason to refuse.
 */
export function checkOrigin(
  method: string,
  headers: IncomingHttpHeaders,
  allowedOrigins: readonly string[],
): string | null {
  if (SAFE_METHODS.has(method.toUpperCase())) return null;
  const origin = headers.origin;
  if (origin !== undefined) return allowedOrigins.includes(origin) ? null : "foreign origin";
  // Browsers always send Origin on cross-site POSTs; without it trust Fetch Metadata if present.
  return headers["sec-fetch-site"] === "cross-site" ? "cross-site request" : null;
}

/**
 * The origins forms may come from: BASE_URL's, plus its loopback aliases when BASE_URL is on
 * this machine (http://localhost:3000 is also opened as http://127.0.0.1:3000). A page of
 * another name never matches, whatever address that name resolves to.
 */
export function allowedOrigins(baseUrl: string): string[] {
  const base = new URL(baseUrl);
  const loopback = ["localhost", "127.0.0.1", "[::1]"];
  if (!loopback.includes(base.hostname)) return [base.origin];
  return loopback.map((host) => `${base.protocol}//${host}${base.port ? `:${base.port}` : ""}`);
}
