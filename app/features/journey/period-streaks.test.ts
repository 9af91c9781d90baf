import { describe, expect, it } from "vitest";
import { currentStreak, longestStreak, periodLongestStreak } from "./stats.server";

describe("a period's longest streak beside the current one", () => {
  // 22 days of plays up to today; "Last 7 days" sees only the last 7 of them.
  const today = "2025-06-22";
  const allDays = Array.from({ length: 22 }, (_, i) => `2025-06-${String(i + 1).padStart(2, "0")}`);
  const current = currentStreak([...allDays].reverse(), today);

  it("is never shorter than a current streak that reaches into the period", () => {
    const week = allDays.filter((d) => d >= "2025-06-16");
    const inPeriod = longestStreak(week);
    expect(inPeriod?.days).toBe(7);
    expect(current?.days).toBe(22);
    const longest = periodLongestStreak(inPeriod, current, "2025-06-16", "2025-06-23");
    expect(longest).toEqual(current);
    expect(longest?.days).toBeGreaterThanOrEqual(current?.days ?? 0);
  });

  it("keeps the period's own longest run when it is longer, or when the current one is elsewhere", () => {
    const past = { from: "2025-01-01", to: "2025-01-30", days: 30 };
    expect(periodLongestStreak(past, current, "2025-01-01", "2025-07-01")).toEqual(past);
    // A period in the past: today's streak is not in it.
    const short = { from: "2024-03-01", to: "2024-03-02", days: 2 };
    expect(periodLongestStreak(short, current, "2024-01-01", "2025-01-01")).toEqual(short);
    expect(periodLongestStreak(null, null, "2024-01-01", "2025-01-01")).toBeNull();
    expect(periodLongestStreak(null, current, "2025-06-16", "2025-06-23")).toEqual(current);
  });
});
