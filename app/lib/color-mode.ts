export const COLOR_MODES = ["system", "light", "dark"] as const;
export type ColorMode = (typeof COLOR_MODES)[number];
export const COLOR_MODE_COOKIE = "st_theme";

export function isColorMode(value: unknown): value is ColorMode {
  return typeof value === "string" && (COLOR_MODES as readonly string[]).includes(value);
}

/** A route forces a mode through `handle.colorMode`; the deepest route that sets one wins. */
export function resolveColorMode(
  preference: string | undefined,
  matches: ReadonlyArray<{ handle?: unknown } | undefined>,
): ColorMode {
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle as { colorMode?: unknown } | undefined;
    if (isColorMode(handle?.colorMode)) return handle.colorMode;
  }
  return isColorMode(preference) ? preference : "system";
}
