import { describe, expect, it } from "vitest";
import { excerpt, highlight } from "./highlight";
import { highlightTerms, normalizeQuery, parseSearchType, searchHref, tagOfQuery } from "./query";

const marked = (text: string, terms: string[]) =>
  highlight(text, terms)
    .filter((s) => s.isMatch)
    .map((s) => s.text);

describe("highlighting", () => {
  it("marks words that start with a term, ignoring case and accents", () => {
    expect(marked("Björk Fan loves BJORK and unbjork", ["bjork"])).toEqual(["Björk", "BJORK"]);
    expect(marked("Running up that hill", ["run", "hill"])).toEqual(["Run", "hill"]);
  });

  it("keeps every character of the text, markup included, as text", () => {
    const text = "<b>café</b> 🎸 crème";
    const segments = highlight(text, ["cafe", "creme"]);
    expect(segments.map((s) => s.text).join("")).toBe(text);
    expect(segments.filter((s) => s.isMatch).map((s) => s.text)).toEqual(["café", "crème"]);
  });

  it("cuts a long note around its first match", () => {
    const note = `${"intro ".repeat(80)}the needle ${"outro ".repeat(80)}`;
    const cut = excerpt(note, ["needle"], 100);
    expect(cut).toContain("needle");
    expect(cut.startsWith("…")).toBe(true);
    expect(cut.endsWith("…")).toBe(true);
    expect(Array.from(cut).length).toBeLessThanOrEqual(102);
  });
});

describe("search parameters", () => {
  it("normalises hostile input: control characters, lone surrogates, length", () => {
    expect(normalizeQuery("  a\u0000b\n\tc  ")).toBe("a b c");
    expect(normalizeQuery("x\ud800y")).toBe("x\ufffdy");
    expect(Array.from(normalizeQuery("🎸".repeat(500)))).toHaveLength(200);
    expect(normalizeQuery(null)).toBe("");
  });

  it("reads tabs, tags and highlight terms", () => {
    expect(parseSearchType("music")).toBe("music");
    expect(parseSearchType("../etc")).toBe("top");
    expect(tagOfQuery("#Shoegaze")).toBe("shoegaze");
    expect(tagOfQuery("#123")).toBeNull();
    expect(tagOfQuery("shoegaze")).toBeNull();
    expect(highlightTerms('"Björk" OR -radiohead sigur-rós')).toEqual(["bjork", "sigur", "ros"]);
  });

  it("builds URLs that leave defaults out", () => {
    expect(searchHref({})).toBe("/search");
    expect(searchHref({ q: "#jazz", type: "tags" })).toBe("/search?q=%23jazz&type=tags");
    expect(searchHref({ q: "a", type: "top", cursor: "c" })).toBe("/search?q=a&cursor=c");
  });
});
