import { describe, expect, it } from "vitest";
import { EMBED_ORIGINS, recognizeLink } from "./streaming-links";

describe("recognizeLink", () => {
  it.each([
    // Spotify
    [
      "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC?si=abc",
      "spotify",
      "https://open.spotify.com/embed/track/4uLU6hMCjMI75M1A2tKUQC",
    ],
    [
      "https://open.spotify.com/intl-de/album/1DFixLWuPkv3KT3TnV35m3",
      "spotify",
      "https://open.spotify.com/embed/album/1DFixLWuPkv3KT3TnV35m3",
    ],
    [
      "https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M",
      "spotify",
      "https://open.spotify.com/embed/playlist/37i9dQZF1DXcBWIGoYBM5M",
    ],
    [
      "https://open.spotify.com/artist/0k17h0D3J5VfsdmQ1iZtE9",
      "spotify",
      "https://open.spotify.com/embed/artist/0k17h0D3J5VfsdmQ1iZtE9",
    ],
    ["https://open.spotify.com/user/someone", "spotify", null],
    // Apple Music
    [
      "https://music.apple.com/us/album/in-rainbows/1109714933?i=1109715066",
      "apple_music",
      "https://embed.music.apple.com/us/album/in-rainbows/1109714933?i=1109715066",
    ],
    [
      "https://music.apple.com/gb/playlist/chill/pl.u-abc123",
      "apple_music",
      "https://embed.music.apple.com/gb/playlist/chill/pl.u-abc123",
    ],
    ["https://music.apple.com/us/browse", "apple_music", null],
    // YouTube and YouTube Music
    [
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10",
      "youtube",
      "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
    ],
    [
      "https://youtu.be/dQw4w9WgXcQ",
      "youtube",
      "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
    ],
    [
      "https://m.youtube.com/shorts/dQw4w9WgXcQ",
      "youtube",
      "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
    ],
    [
      "https://music.youtube.com/watch?v=dQw4w9WgXcQ",
      "youtube_music",
      "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
    ],
    [
      "https://www.youtube.com/playlist?list=PL1234abcd",
      "youtube",
      "https://www.youtube-nocookie.com/embed/videoseries?list=PL1234abcd",
    ],
    ["https://www.youtube.com/watch?v=short", "youtube", null],
    ["https://www.youtube.com/@channel", "youtube", null],
    // SoundCloud
    [
      "https://soundcloud.com/four-tet/baby",
      "soundcloud",
      "https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Ffour-tet%2Fbaby&color=%2315803d&auto_play=false&show_comments=false&visual=false",
    ],
    ["https://on.soundcloud.com/AbCdE", "soundcloud", null],
    ["https://soundcloud.com/four-tet", "soundcloud", null],
    // Bandcamp: no URL-only player
    ["https://khruangbin.bandcamp.com/album/mordechai", "bandcamp", null],
    // Deezer
    [
      "https://www.deezer.com/en/track/3135556",
      "deezer",
      "https://widget.deezer.com/widget/auto/track/3135556",
    ],
    [
      "https://www.deezer.com/album/302127",
      "deezer",
      "https://widget.deezer.com/widget/auto/album/302127",
    ],
    ["https://link.deezer.com/s/30abc", "deezer", null],
    // Tidal
    ["https://tidal.com/browse/track/77646169", "tidal", "https://embed.tidal.com/tracks/77646169"],
    ["https://listen.tidal.com/album/77646168", "tidal", "https://embed.tidal.com/albums/77646168"],
    ["https://tidal.com/browse/artist/3346", "tidal", null],
  ] as const)("%s → %s %s", (input, service, embedUrl) => {
    const found = recognizeLink(input);
    expect(found?.service).toBe(service);
    expect(found?.embedUrl).toBe(embedUrl);
    if (found?.embedUrl) {
      expect(EMBED_ORIGINS).toContain(new URL(found.embedUrl).origin);
      if (found.service !== "youtube" && found.service !== "youtube_music") {
        expect(found.embedHeight).toBeGreaterThan(0);
      }
    }
  });

  it.each([
    "https://example.com/song",
    "https://open.spotify.com.evil.example/track/abc",
    "https://evilspotify.com/track/abc",
    "javascript:alert(1)",
    "ftp://open.spotify.com/track/abc",
    "https://user:pass@open.spotify.com/track/abc",
    "not a url",
    "",
    null,
  ])("does not recognise %s", (input) => {
    expect(recognizeLink(input)).toBeNull();
  });
});
