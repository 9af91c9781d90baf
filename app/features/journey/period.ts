import { z } from "zod";
import {
  JOURNEY_PERIODS,
  type JourneyPeriod,
  PERIOD_LABELS,
  type ResolvedPeriod,
} from "./period-labels";

export {
  JOURNEY_PERIODS,
  type JourneyPeriod,
  PERIOD_LABELS,
  periodSearch,
  type ResolvedPeriod,
} from "./period-labels";

const DAY_MS = 86_400_000;
/** The earliest day a custom range may start (no service kept history before this). */
const EARLIEST_DAY = "1990-01-01";

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date like 2025-01-31.")
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, "That date does not exist.");

export const periodQuerySchema = z.object({
  period: z.enum(JOURNEY_PERIODS, { error: "Choose a period." }).default("month"),
  from: z.union([z.literal(""), isoDay]).optional(),
  to: z.union([z.literal(""), isoDay]).optional(),
});

export function dayString(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function startOfDay(date: Date): Date {
  return new Date(Math.floor(date.getTime() / DAY_MS) * DAY_MS);
}

/**
 * Reads ?period=…&from=…&to=… (anything a client sends; never throws). Rolling windows end with
 * today (UTC, included): week = 7 days, month = 30 days, year = 365 days.
 */
export function resolvePeriod(params: URLSearchParams, now: Date = new Date()): ResolvedPeriod {
  const raw = {
    period: params.get("period") ?? undefined,
    from: params.get("from") ?? undefined,
    to: params.get("to") ?? undefined,
  };
  const parsed = periodQuerySchema.safeParse(raw);
  const end = new Date(startOfDay(now).getTime() + DAY_MS);
  const rolling = (period: JourneyPeriod, days: number, error: string | null = null) => ({
    period,
    start: new Date(end.getTime() - days * DAY_MS),
    end,
    from: raw.from?.slice(0, 10) ?? "",
    to: raw.to?.slice(0, 10) ?? "",
    label: PERIOD_LABELS[period],
    error,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path[0];
    const message =
      field === "from"
        ? `Start date: ${issue?.message}`
        : field === "to"
          ? `End date: ${issue?.message}`
          : (issue?.message ?? "Choose a period.");
    return rolling("month", 30, message);
  }
  const { period, from = "", to = "" } = parsed.data;
  if (period === "week") return rolling("week", 7);
  if (period === "month") return rolling("month", 30);
  if (period === "year") return rolling("year", 365);
  if (period === "all") {
    return { period, start: null, end, from, to, label: PERIOD_LABELS.all, error: null };
  }
  if (!from || !to) {
    return rolling("month", 30, "Choose both a start and an end date for a custom range.");
  }
  if (from > to) return rolling("month", 30, "The start date must be on or before the end date.");
  if (from < EARLIEST_DAY)
    return rolling("month", 30, `Choose a start date after ${EARLIEST_DAY}.`);
  const start = new Date(`${from}T00:00:00Z`);
  const customEnd = new Date(new Date(`${to}T00:00:00Z`).getTime() + DAY_MS);
  if (start.getTime() >= end.getTime()) {
    return rolling("month", 30, "The start date is in the future.");
  }
  return {
    period,
    start,
    end: customEnd.getTime() > end.getTime() ? end : customEnd,
    from,
    to,
    label: `${from} to ${to}`,
    error: null,
  };
}
