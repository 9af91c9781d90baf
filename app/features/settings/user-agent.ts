/** Browsers in the order they must be tested (Edge and Opera also say "Chrome"). */
const BROWSERS: [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/OPR\/(\d+)/, "Opera"],
  [/SamsungBrowser\/(\d+)/, "Samsung Internet"],
  [/(?:Firefox|FxiOS)\/(\d+)/, "Firefox"],
  [/(?:Chrome|Chromium|CriOS)\/(\d+)/, "Chrome"],
  [/Version\/(\d+)[\d.]* .*Safari\//, "Safari"],
];

const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPod/, "iPhone"],
  [/iPad/, "iPad"],
  [/Android/, "Android"],
  [/Windows/, "Windows"],
  [/CrOS/, "ChromeOS"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/Linux/, "Linux"],
];

/**
 * A readable browser and system from a User-Agent string, for the sessions list. Deliberately
 * small: it only has to tell a person's own devices apart, not identify every client.
 */
export function describeUserAgent(ua: string | null | undefined): {
  browser: string;
  system: string;
} {
  let browser = "Unknown browser";
  let system = "unknown system";
  if (!ua) return { browser, system };
  for (const [pattern, name] of BROWSERS) {
    const match = ua.match(pattern);
    if (match) {
      browser = `${name} ${match[1] ?? ""}`.trim();
      break;
    }
  }
  for (const [pattern, name] of SYSTEMS) {
    if (pattern.test(ua)) {
      system = name;
      break;
    }
  }
  return { browser, system };
}
