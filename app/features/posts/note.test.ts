import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mentionedUsernames, type NoteSegment, tagHref, tokenizeNote } from "./note";

const t = (text: string): NoteSegment => ({ type: "text", text });
const u = (href: string): NoteSegment => ({ type: "url", text: href, href });
const m = (username: string): NoteSegment => ({ type: "mention", text: `@${username}`, username });
const h = (tag: string): NoteSegment => ({ type: "tag", text: `#${tag}`, tag });

describe("tokenizeNote", () => {
  it.each<[string, NoteSegment[]]>([
    ["", []],
    ["just text", [t("just text")]],
    ["listen https://example.com/a?b=1", [t("listen "), u("https://example.com/a?b=1")]],
    ["see https://example.com.", [t("see "), u("https://example.com"), t(".")]],
    ["(https://example.com/x)", [t("("), u("https://example.com/x"), t(")")]],
    [
      "https://en.wikipedia.org/wiki/Blue_(song) rocks",
      [u("https://en.wikipedia.org/wiki/Blue_(song)"), t(" rocks")],
    ],
    ["https://", [t("https://")]],
    ["javascript:alert(1)", [t("javascript:alert(1)")]],
    ["thanks @ana.", [t("thanks "), m("ana"), t(".")]],
    ["@dj_shadow and @a.b.c", [m("dj_shadow"), t(" and "), m("a.b.c")]],
    ["@ab is too short", [t("@ab is too short")]],
    ["mail me at me@example.org", [t("mail me at me@example.org")]],
    ["#shoegaze #90s #1", [h("shoegaze"), t(" "), h("90s"), t(" #1")]],
    ["#Ñandú and #日本", [h("Ñandú"), t(" and "), h("日本")]],
    ["in C#7 tuning", [t("in C#7 tuning")]],
    ["a&#39;b", [t("a&#39;b")]],
    ["<img src=x onerror=alert(1)>", [t("<img src=x onerror=alert(1)>")]],
    [
      "new @radiohead track #nowplaying https://open.spotify.com/track/abc!",
      [
        t("new "),
        m("radiohead"),
        t(" track "),
        h("nowplaying"),
        t(" "),
        u("https://open.spotify.com/track/abc"),
        t("!"),
      ],
    ],
  ])("%j", (input, expected) => {
    expect(tokenizeNote(input)).toEqual(expected);
  });

  it("loses and adds no characters, whatever the input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (input) => {
        const segments = tokenizeNote(input);
        expect(segments.map((s) => s.text).join("")).toBe(input);
        for (const s of segments) {
          if (s.type === "url") expect(s.href).toMatch(/^https?:\/\//);
        }
      }),
    );
  });

  it("lists mentioned usernames once each", () => {
    expect(mentionedUsernames("@Ana and @ana and @bob_")).toEqual(["ana", "bob_"]);
  });

  it("links tags to the search page", () => {
    expect(tagHref("shoegaze")).toBe("/search?q=%23shoegaze&type=tags");
  });
});
