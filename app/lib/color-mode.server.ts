import { createCookie } from "react-router";
import { COLOR_MODE_COOKIE, type ColorMode, isColorMode } from "./color-mode";
import { parseCookies } from "./cookies.server";

const ONE_YEAR = 365 * 24 * 60 * 60;

/** The colour mode chosen in this browser (not signed: any value that is not a mode is ignored). */
const colorModeCookie = createCookie(COLOR_MODE_COOKIE, {
  maxAge: ONE_YEAR,
  path: "/",
  sameSite: "lax",
});

/** The Set-Cookie header that remembers `mode` in this browser for a year. */
export function colorModeSetCookie(mode: ColorMode): Promise<string> {
  return colorModeCookie.serialize(mode);
}

/**
 * The colour mode this browser chose; "system" when none (or something else) is stored. A
 * cookie written before it was React Router's (the bare word, `st_theme=dark`) still counts.
 */
export async function colorModeOf(request: Request): Promise<ColorMode> {
  const header = request.headers.get("Cookie");
  try {
    const value = await colorModeCookie.parse(header);
    if (isColorMode(value)) return value;
  } catch {
    // A malformed header: fall through.
  }
  const legacy = parseCookies(header).get(COLOR_MODE_COOKIE);
  return isColorMode(legacy) ? legacy : "system";
}
