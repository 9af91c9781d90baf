import { data } from "react-router";
import { NOTE_TEMPLATES, SEED_ARTISTS, SEED_PEOPLE, TAGS } from "~/db/seed-data";
import { getEnv } from "~/lib/env.server";
import { MOODS, type PostKind } from "./constants";
import type { PostCardData } from "./post-cards.server";

/**
 * The loader data of the bench's feed pages (`/bench/fixture`, `/bench/floor`): 20 made-up
 * posts shaped as the real feed's, without the database. Only when the server runs with
 * SOUNDTRAIL_BENCH=1; everywhere else the routes answer 404.
 */
export const BENCH_VIEWER_ID = "bench-viewer";
const PAGE_SIZE = 20;
const HOUR = 3_600_000;

export function fixturePosts(now: number): PostCardData[] {
  const kinds: PostKind[] = ["track", "album", "track", "artist", "track", "playlist"];
  return Array.from({ length: PAGE_SIZE }, (_, n) => {
    const person = SEED_PEOPLE[(n * 7) % SEED_PEOPLE.length] ?? SEED_PEOPLE[0];
    const artist = SEED_ARTISTS[(n * 5) % SEED_ARTISTS.length] ?? SEED_ARTISTS[0];
    if (!person || !artist) throw new Error("seed data is empty");
    const album = artist.albums[n % artist.albums.length] ?? artist.albums[0];
    const track = album?.tracks[n % album.tracks.length] ?? artist.name;
    const kind = kinds[n % kinds.length] ?? "track";
    const title =
      kind === "track"
        ? track
        : kind === "album"
          ? (album?.title ?? artist.name)
          : kind === "artist"
            ? artist.name
            : "Late night rotation";
    const note = (NOTE_TEMPLATES[n % NOTE_TEMPLATES.length] ?? "")
      .replace("{tag}", TAGS[n % TAGS.length] ?? "music")
      .replace("{friend}", "ana_rivera");
    const id = `00000000-0000-4000-8000-${String(n + 1).padStart(12, "0")}`;
    return {
      id,
      kind,
      title,
      artist: kind === "playlist" ? person.displayName : artist.name,
      album: kind === "track" || kind === "album" ? (album?.title ?? null) : null,
      linkUrl:
        n % 2 === 0
          ? (artist.bandcamp ??
            `https://open.spotify.com/search/${encodeURIComponent(`${artist.name} ${title}`)}`)
          : null,
      note,
      mood: n % 5 < 3 ? (MOODS[n % MOODS.length]?.key ?? null) : null,
      audience: n % 4 === 3 ? "followers" : "everyone",
      createdAt: new Date(now - (n + 1) * 5 * HOUR).toISOString(),
      editedAt: null,
      author: {
        id: n % 9 === 0 ? BENCH_VIEWER_ID : `bench-${person.username}`,
        username: person.username,
        displayName: person.displayName,
        avatarUrl: `/media/00000000-0000-4000-8000-${String(1000 + n).padStart(12, "0")}`,
      },
      image: null,
      preview: null,
      likeCount: (n * 3) % 11,
      commentCount: n % 4,
      viewerHasLiked: n % 3 === 0,
      viewerFollowsAuthor: true,
    };
  });
}

/** The feed page's loader data, or a 404 outside the bench. */
export function benchFeedData() {
  if (!getEnv().SOUNDTRAIL_BENCH) {
    throw data("Not Found", { status: 404 });
  }
  return {
    viewerId: BENCH_VIEWER_ID,
    page: {
      posts: fixturePosts(Date.now()),
      nextCursor: "MjAyNS0wMS0wMVQwMDowMDowMC4wMDBafGJlbmNo",
    },
  };
}
