/** Who is asking, as far as the redirect rules care. */
export interface RedirectViewer {
  isAdmin: boolean;
}

export interface RedirectInput {
  /** The URL path (no query), e.g. `/admin`. */
  pathname: string;
  /** The query string including `?`, or empty. */
  search?: string;
  /** `null` when signed out. */
  viewer: RedirectViewer | null;
}

const AUTH_ENTRY_PAGES = new Set(["/", "/auth/login", "/auth/signup", "/auth/confirm"]);

function isAuthPath(pathname: string): boolean {
  return pathname === "/auth" || pathname.startsWith("/auth/");
}

function isAdminPath(pathname: string): boolean {
  return pathname === "/admin" || pathname.startsWith("/admin/");
}

/**
 * Spec §2/§6: signed-out visitors see `/`, `/feed` and the auth pages, nothing else. A shared
 * link to a public post or profile lands on sign-in, which previews it (see share-preview).
 */
function isPublicPath(pathname: string): boolean {
  return pathname === "/" || pathname === "/feed" || isAuthPath(pathname);
}

const SAFE_BASE = "http://soundtrail.invalid";

/**
 * True when `path` is a path on this site, as a browser would read it as a Location or link:
 * one leading `/` (not `//`, not `/\`, which browsers read as `//`), no control characters or
 * whitespace (which browsers strip or normalise), and resolving to this origin.
 */
function isSameSitePath(path: string): boolean {
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return false;
  for (const ch of path) {
    const code = ch.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f) return false;
  }
  try {
    return new URL(path, SAFE_BASE).origin === SAFE_BASE;
  } catch {
    return false;
  }
}

/**
 * Returns `redirectTo` normalised (`/a/../admin` → `/admin`) when it is a same-site relative
 * path (`/feed?x=1`), else `null`. Absolute URLs, protocol-relative `//host` and backslash
 * tricks are refused — checked on the input and again on what is returned, since normalising
 * can turn a harmless path into a dangerous one (`/.//evil.example` → `//evil.example`).
 */
export function safeRedirectPath(redirectTo: string | null | undefined): string | null {
  if (!redirectTo || typeof redirectTo !== "string" || !isSameSitePath(redirectTo)) return null;
  const url = new URL(redirectTo, SAFE_BASE);
  const normalised = `${url.pathname}${url.search}${url.hash}`;
  return isSameSitePath(normalised) ? normalised : null;
}

/** The login URL that brings the visitor back to `path` after signing in. */
export function loginUrlFor(path: string): string {
  const safe = safeRedirectPath(path);
  if (!safe || safe === "/" || safe === "/feed") return "/auth/login";
  return `/auth/login?${new URLSearchParams({ redirectTo: safe })}`;
}

/**
 * The redirect rules of spec §2, as one pure function.
 * Returns the path to redirect to, or `null` to let the request through.
 */
export function decideRedirect({ pathname, search = "", viewer }: RedirectInput): string | null {
  if (viewer) {
    if (AUTH_ENTRY_PAGES.has(pathname)) {
      const wanted = safeRedirectPath(new URLSearchParams(search).get("redirectTo"));
      return wanted && !AUTH_ENTRY_PAGES.has(wanted.split(/[?#]/)[0] ?? "") ? wanted : "/feed";
    }
    if (isAdminPath(pathname) && !viewer.isAdmin) return "/feed";
    return null;
  }
  if (isPublicPath(pathname)) return null;
  return loginUrlFor(`${pathname}${search}`);
}
