import { describe, expect, it } from "vitest";
import { artistKey, titleKey } from "./music-keys";

describe("name keys", () => {
  it("drops re-issue suffixes and keeps other versions apart", () => {
    expect(titleKey("Song – Remastered 2011")).toBe("song");
    expect(titleKey("Song - 2011 Remaster")).toBe("song");
    expect(titleKey("Song (Remastered)")).toBe("song");
    expect(titleKey("Song [Mono Version]")).toBe("song");
    expect(titleKey("Song - Radio Edit")).toBe("song");
    expect(titleKey("Album (Deluxe Edition)")).toBe("album");
    expect(titleKey("Song - Live")).toBe("song live");
    expect(titleKey("Song (Acoustic)")).toBe("song acoustic");
    expect(titleKey("Song - Remix")).toBe("song remix");
  });

  it("is blind to case, accents and punctuation", () => {
    expect(titleKey("JÓGA")).toBe(titleKey("Joga"));
    expect(artistKey("Björk")).toBe("bjork");
    expect(artistKey("Simon & Garfunkel")).toBe(artistKey("Simon and Garfunkel"));
    expect(artistKey("Beatles, The")).toBe(artistKey("The Beatles"));
  });

  it("never gives an empty key for a name of symbols", () => {
    expect(titleKey("(Remastered)")).not.toBe("");
    expect(artistKey("!!!")).toBe("!!!");
  });
});
