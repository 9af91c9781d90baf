import { UAParser } from "ua-parser-js";

/** How a phone or tablet is named when its model says more than its system ("iPhone"). */
const NAMED_DEVICES = new Set(["iPhone", "iPad", "iPod"]);

/**
 * A readable browser and system from a User-Agent string, for the sessions list ("Firefox 128"
 * on "Linux"), parsed by ua-parser-js (1.x, MIT; the 2.x line is AGPL).
 */
export function describeUserAgent(ua: string | null | undefined): {
  browser: string;
  system: string;
} {
  if (!ua) return { browser: "Unknown browser", system: "unknown system" };
  const parsed = new UAParser(ua).getResult();
  const major = parsed.browser.major ?? parsed.browser.version?.split(".")[0] ?? "";
  const name = parsed.browser.name?.replace(/^Mobile /, "");
  const browser = name ? `${name} ${major}`.trim() : "Unknown browser";
  const model = parsed.device.model;
  const os = parsed.os.name;
  const system =
    model && NAMED_DEVICES.has(model)
      ? model
      : os === "Mac OS"
        ? "macOS"
        : os === "Chromium OS"
          ? "ChromeOS"
          : (os ?? "unknown system");
  return { browser, system };
}
