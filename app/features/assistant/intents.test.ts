import { describe, expect, it } from "vitest";
import { editDistance, recogniseIntent } from "./intents";

describe("the built-in engine's intent recogniser", () => {
  it.each([
    ["what have I been into lately?", { kind: "recent" }],
    ["What've I been listening to recently", { kind: "recent" }],
    ["my top artists this month", { kind: "top_artists", period: "month" }],
    ["My top artists this year", { kind: "top_artists", period: "year" }],
    ["who are my favourite artists of all time", { kind: "top_artists", period: "all" }],
    ["what are my friends listening to?", { kind: "friends" }],
    ["what are the people I follow playing", { kind: "friends" }],
    ["who else here likes Radiohead?", { kind: "who_likes", artist: "Radiohead" }],
    ["Anyone into Sigur Rós?", { kind: "who_likes", artist: "Sigur Rós" }],
    ["recommend me something new", { kind: "recommend" }],
    ["what should I listen to next?", { kind: "recommend" }],
    ["summarise my year", { kind: "summary", year: null }],
    ["Summarize 2024 for me", { kind: "summary", year: 2024 }],
    ["find posts about #jazz", { kind: "find", query: "#jazz" }],
    ["search posts about late night drives", { kind: "find", query: "late night drives" }],
    ["#shoegaze", { kind: "find", query: "#shoegaze" }],
    ["draft a post about Heroes by David Bowie", { kind: "draft", track: "Heroes by David Bowie" }],
    ["Write a post about “Teardrop”", { kind: "draft", track: "Teardrop" }],
    ["what can you do?", { kind: "help" }],
    ["the weather in Paris", { kind: "unknown" }],
  ])("understands “%s”", (message, intent) => {
    expect(recogniseIntent(message)).toEqual(intent);
  });

  it.each([
    ["my top artsts this moth", { kind: "top_artists", period: "month" }],
    ["waht are my frends listning to", { kind: "friends" }],
    ["reccomend me somthing new", { kind: "recommend" }],
    ["sumarise my yeer", { kind: "summary", year: null }],
    ["what have I been into latley", { kind: "recent" }],
    ["who else here lieks Portishead", { kind: "who_likes", artist: "Portishead" }],
    ["drfat a post about Heroes", { kind: "draft", track: "Heroes" }],
  ])("tolerates typos: “%s”", (message, intent) => {
    expect(recogniseIntent(message)).toEqual(intent);
  });

  it("counts a swap of neighbouring letters as one edit", () => {
    expect(editDistance("latley", "lately")).toBe(1);
    expect(editDistance("artsts", "artists")).toBe(1);
    expect(editDistance("reccomend", "recommend")).toBe(2);
    expect(editDistance("music", "musicians", 2)).toBeGreaterThan(2);
  });
});
