import { describe, expect, it } from "vitest";
import { editDistance, monthOf, recogniseIntent } from "./intents";

/** Sunday 29 November 2026, where the periods below are placed. */
const NOW = new Date("2026-11-29T11:00:00Z");
const LATELY = { kind: "rolling", period: "month" } as const;
const range = (from: string, to: string, name: string) => ({ kind: "range", from, to, name });
const THIS_MONTH = range("2026-11-01", "2026-11-29", "this month");
const THIS_YEAR = range("2026-01-01", "2026-11-29", "this year");
const mine = (focus: string, period: object) => ({
  kind: "listening",
  person: null,
  focus,
  period,
});

describe("the built-in engine's intent recogniser", () => {
  it.each([
    ["what have I been into lately?", mine("overview", LATELY)],
    ["What've I been listening to recently", mine("overview", LATELY)],
    ["my top artists this month", mine("artists", THIS_MONTH)],
    ["My top artists this year", mine("artists", THIS_YEAR)],
    [
      "who are my favourite artists of all time",
      mine("artists", { kind: "rolling", period: "all" }),
    ],
    ["which album did I play most?", mine("albums", LATELY)],
    ["how many hours did I listen this month?", mine("time", THIS_MONTH)],
    ["top tracks in March", mine("tracks", range("2026-03-01", "2026-03-31", "in March 2026"))],
    [
      "what did I play last summer",
      mine("overview", range("2026-06-01", "2026-08-31", "last summer (summer 2026)")),
    ],
    [
      "what was I into last winter",
      mine("overview", range("2025-12-01", "2026-02-28", "last winter (winter 2025–26)")),
    ],
    [
      "my top artist in December",
      mine("artists", range("2025-12-01", "2025-12-31", "in December 2025")),
    ],
    ["What has Ben Okafor been posting recently?", { kind: "posts_by", person: "Ben Okafor" }],
    [
      "what has Ben been listening to",
      { kind: "listening", person: "Ben", focus: "overview", period: LATELY },
    ],
    [
      "Ben's top albums this year",
      { kind: "listening", person: "Ben", focus: "albums", period: THIS_YEAR },
    ],
    ["any jazz tips from people I follow?", { kind: "friends_topic", topic: "jazz" }],
    ["what are my friends listening to?", { kind: "friends" }],
    ["what are the people I follow playing", { kind: "friends" }],
    ["who else here likes Radiohead?", { kind: "who_likes", artist: "Radiohead" }],
    ["Anyone into Sigur Rós?", { kind: "who_likes", artist: "Sigur Rós" }],
    ["recommend me something new", { kind: "recommend" }],
    ["what should I listen to next?", { kind: "recommend" }],
    ["summarise my year", { kind: "summary", period: THIS_YEAR }],
    [
      "Summarize 2024 for me",
      { kind: "summary", period: range("2024-01-01", "2024-12-31", "in 2024") },
    ],
    ["find posts about #jazz", { kind: "find", query: "#jazz" }],
    ["search posts about late night drives", { kind: "find", query: "late night drives" }],
    ["#shoegaze", { kind: "find", query: "#shoegaze" }],
    ["draft a post about Heroes by David Bowie", { kind: "draft", track: "Heroes by David Bowie" }],
    ["Write a post about “Teardrop”", { kind: "draft", track: "Teardrop" }],
    ["what can you do?", { kind: "help" }],
    ["the weather in Paris", { kind: "unknown" }],
  ])("understands “%s”", (message, intent) => {
    expect(recogniseIntent(message, NOW)).toEqual(intent);
  });

  it.each([
    ["my top artsts this moth", mine("artists", THIS_MONTH)],
    ["waht are my frends listning to", { kind: "friends" }],
    ["reccomend me somthing new", { kind: "recommend" }],
    ["sumarise my yeer", { kind: "summary", period: THIS_YEAR }],
    ["what have I been into latley", mine("overview", LATELY)],
    ["who else here lieks Portishead", { kind: "who_likes", artist: "Portishead" }],
    ["drfat a post about Heroes", { kind: "draft", track: "Heroes" }],
  ])("tolerates typos: “%s”", (message, intent) => {
    expect(recogniseIntent(message, NOW)).toEqual(intent);
  });

  it("counts a swap of neighbouring letters as one edit", () => {
    expect(editDistance("latley", "lately")).toBe(1);
    expect(editDistance("artsts", "artists")).toBe(1);
    expect(editDistance("reccomend", "recommend")).toBe(2);
    expect(editDistance("music", "musicians", 2)).toBeGreaterThan(2);
  });

  it("reads month names, misspelt long ones too, and not common words", () => {
    expect(monthOf("febuary")).toBe(1);
    expect(monthOf("septmber")).toBe(8);
    expect(monthOf("match")).toBeNull();
    expect(recogniseIntent("may I see my top artists", NOW)).toEqual(mine("artists", LATELY));
  });
});
