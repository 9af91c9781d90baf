const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cross-site request forgery guard: a state-changing request must come from our own origin.
 * Returns a reason when the request must be refused.
 */
export function checkOrigin(request: Request, allowedOrigins: readonly string[]): string | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const origin = request.headers.get("Origin");
  if (origin) {
    const own = new URL(request.url).origin;
    return origin === own || allowedOrigins.includes(origin) ? null : "foreign origin";
  }
  // Browsers always send Origin on cross-site POSTs; without it trust Fetch Metadata if present.
  const site = request.headers.get("Sec-Fetch-Site");
  return site === "cross-site" ? "cross-site request" : null;
}
