/**
 * The journey's periods as pages show them: names, labels, links. No validation library here
 * (`period.ts` parses a request's period with zod on the server), so the journey page does not
 * load one in the browser.
 */

/** The periods the journey offers; `custom` takes `from` and `to` (days, UTC, both included). */
export const JOURNEY_PERIODS = ["week", "month", "year", "all", "custom"] as const;
export type JourneyPeriod = (typeof JOURNEY_PERIODS)[number];

export const PERIOD_LABELS: Record<JourneyPeriod, string> = {
  week: "Last 7 days",
  month: "Last 30 days",
  year: "Last 12 months",
  all: "All time",
  custom: "Custom range",
};

/**
 * A resolved period: `start` (included) to `end` (excluded), both at 00:00 UTC; `start` null for
 * all time. `days` is its length in days (for all time: from the first play, set by the caller).
 */
export interface ResolvedPeriod {
  period: JourneyPeriod;
  start: Date | null;
  end: Date;
  /** The custom range as typed, echoed back to the form. */
  from: string;
  to: string;
  label: string;
  /** Why a custom range was not used (then the period falls back to the last 30 days). */
  error: string | null;
}

/** The query string of a period, for links (`?period=…` plus the range when custom). */
export function periodSearch(period: Pick<ResolvedPeriod, "period" | "from" | "to">): string {
  const params = new URLSearchParams({ period: period.period });
  if (period.period === "custom") {
    params.set("from", period.from);
    params.set("to", period.to);
  }
  return `?${params.toString()}`;
}
