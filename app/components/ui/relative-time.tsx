const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

// Made once: building an Intl formatter costs far more than formatting with it (a `/feed`
// render formats 40-odd times; per call, the two took 7 % of the server's CPU under load).
const RELATIVE = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const EXACT = new Intl.DateTimeFormat("en", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
});

/** "3 hours ago", "just now" … relative to `now`. */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const format = RELATIVE;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return "just now";
}

/** A `<time>` showing a relative time, with the exact date on hover and for assistive technology. */
export function RelativeTime({ iso, className }: { iso: string; className?: string }) {
  const exact = EXACT.format(new Date(iso));
  return (
    // Server and browser compute "ago" at different moments; the browser's wins.
    <time dateTime={iso} title={`${exact} UTC`} className={className} suppressHydrationWarning>
      {formatRelative(iso)}
    </time>
  );
}
