import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { formatRelative, RelativeTime } from "./relative-time";

describe("relative time", () => {
  const now = Date.parse("2026-11-26T18:00:00Z");

  it("words the distance in the largest whole unit", () => {
    expect(formatRelative("2026-11-26T17:59:30Z", now)).toBe("just now");
    expect(formatRelative("2026-11-26T17:55:00Z", now)).toBe("5 minutes ago");
    expect(formatRelative("2026-11-26T15:00:00Z", now)).toBe("3 hours ago");
    expect(formatRelative("2026-11-25T18:00:00Z", now)).toBe("yesterday");
    expect(formatRelative("2026-11-12T18:00:00Z", now)).toBe("2 weeks ago");
    expect(formatRelative("2025-11-20T18:00:00Z", now)).toBe("last year");
    expect(formatRelative("2026-11-26T19:00:00Z", now)).toBe("in 1 hour");
  });

  it("gives the exact time in UTC on hover, and the machine-readable one", () => {
    const html = renderToStaticMarkup(<RelativeTime iso="2026-11-26T18:05:00.000Z" />);
    expect(html).toContain('dateTime="2026-11-26T18:05:00.000Z"');
    expect(html).toContain('title="Nov 26, 2026, 6:05 PM UTC"');
  });
});
