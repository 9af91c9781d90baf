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
export function formatDay(day: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  }).format(new Date(`${day}T00:00:00Z`));
}

export const formatCount = (n: number) => new Intl.NumberFormat("en-GB").format(n);
