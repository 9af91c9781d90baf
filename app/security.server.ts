import { EMBED_ORIGINS } from "~/core/streaming-links";
import { getEnv } from "~/lib/env.server";

const isDev = process.env.NODE_ENV === "development";

/**
 * The page's Content-Security-Policy. Scripts must come from us or carry this response's
 * nonce; nothing may frame us. Inline style attributes (React `style`) need 'unsafe-inline'.
 */
export function contentSecurityPolicy(nonce: string): string {
  const directives: Record<string, string> = {
    "default-src": "'self'",
    "script-src": `'self' 'nonce-${nonce}'${isDev ? " 'unsafe-inline'" : ""}`,
    "style-src": "'self' 'unsafe-inline'",
    "img-src": "'self' data: blob:",
    "font-src": "'self'",
    // The players' origins too: pressing Play first asks the player's host whether it answers
    // at all (an opaque no-cors request, no credentials), since a frame that failed to load
    // fires `load` like one that did (music-link.tsx).
    "connect-src": [
      "'self'",
      ...(isDev ? ["ws:", "wss:"] : []),
      ...EMBED_ORIGINS,
      ...getEnv().PLAYER_FRAME_ORIGINS,
    ].join(" "),
    "media-src": "'self'",
    // Streaming players shown in posts (plus the operator's PLAYER_FRAME_ORIGINS), nothing else.
    "frame-src": [...EMBED_ORIGINS, ...getEnv().PLAYER_FRAME_ORIGINS].join(" "),
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
    "manifest-src": "'self'",
  };
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v}`)
    .join("; ");
}

/** Headers every response carries, HTML or not. */
export const baseSecurityHeaders: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
};
