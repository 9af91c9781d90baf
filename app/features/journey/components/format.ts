const dayFormat = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  timeZone: "UTC",
});
const monthFormat = new Intl.DateTimeFormat("en-GB", {
  month: "short",
  year: "numeric",
  timeZone: "UTC",
});

const countFormat = new Intl.NumberFormat("en-GB");
export const formatCount = (n: number) => countFormat.format(n);

/** `2025-06-01` → `1 Jun 2025` (UTC on server and browser alike, so hydration agrees). */
export function formatDay(day: string): string {
  return dayFormat.format(new Date(`${day}T00:00:00Z`));
}

/** A bucket's label: the day, "week of" the Monday, or the month. */
export function formatBucket(start: string, bucket: "day" | "week" | "month"): string {
  if (bucket === "month") return monthFormat.format(new Date(`${start}T00:00:00Z`));
  if (bucket === "week") return `Week of ${formatDay(start)}`;
  return formatDay(start);
}

/** Milliseconds as "3 days 4 h", "12 h 5 min" or "25 min". */
export function formatListening(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  if (days >= 2) return `${formatCount(days)} days ${hours % 24} h`;
  if (hours >= 1) return `${hours} h ${minutes % 60} min`;
  return `${minutes} min`;
}

export const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
export const WEEKDAY_NAMES = [
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "Saturday",
  "Sunday",
] as const;

export function formatHour(hour: number): string {
  return `${String(hour).padStart(2, "0")}:00`;
}
