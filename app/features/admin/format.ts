const dateTime = new Intl.DateTimeFormat("en-GB", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
});
const dateOnly = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" });

/** Server and browser render the same text (UTC), so hydration never disagrees. */
export function formatDateTime(value: Date | string): string {
  return `${dateTime.format(new Date(value))} UTC`;
}

export function formatDate(value: Date | string): string {
  return dateOnly.format(new Date(value));
}

/** `2024-05-01` → `1 May`. */
const dayMonth = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  timeZone: "UTC",
});

export function formatDay(day: string): string {
  return dayMonth.format(new Date(`${day}T00:00:00Z`));
}

const countFormat = new Intl.NumberFormat("en-GB");
export const formatCount = (n: number) => countFormat.format(n);
