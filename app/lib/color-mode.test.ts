import { describe, expect, it } from "vitest";
import { resolveColorMode } from "./color-mode";

describe("colour mode", () => {
  it("follows the stored preference", () => {
    expect(resolveColorMode("dark", [{}, {}])).toBe("dark");
    expect(resolveColorMode("light", [])).toBe("light");
  });
  it("falls back to system for a missing or unknown preference", () => {
    expect(resolveColorMode(undefined, [])).toBe("system");
    expect(resolveColorMode("purple", [])).toBe("system");
  });
  it("lets the deepest route that forces a mode win", () => {
    expect(
      resolveColorMode("light", [
        { handle: { colorMode: "dark" } },
        { handle: { colorMode: "light" } },
      ]),
    ).toBe("light");
    expect(resolveColorMode("light", [{ handle: { colorMode: "dark" } }, { handle: {} }])).toBe(
      "dark",
    );
  });
});
