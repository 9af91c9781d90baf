import { data, Link } from "react-router";
import { AppHeader } from "~/components/layout/app-header";
import { SiteFooter } from "~/components/layout/site-footer";
import { PageHeader } from "~/components/ui/page-header";
import { NOTE_TEMPLATES, SEED_ARTISTS, SEED_PEOPLE, TAGS } from "~/db/seed-data";
import { FeedList } from "~/features/feed/components/feed-list";
import { Composer } from "~/features/posts/components/composer";
import type { PostCardData } from "~/features/posts/components/post-card";
import { MOODS, type PostKind } from "~/features/posts/constants";
import { getEnv } from "~/lib/env.server";
import type { Route } from "./+types/bench-fixture";

/**
 * `/bench/fixture`: the signed-in "Following" feed page with 20 made-up posts and no database
 * access, for `npm run bench` (bench/feed-ssr.ts) to compare against the real `/feed`. It
 * renders the same components and serialises the same amount of loader data, so the difference
 * between the two is what the database costs. It exists only when the server runs with
 * SOUNDTRAIL_BENCH=1; everywhere else it answers 404.
 */

export const meta: Route.MetaFunction = () => [
  { title: "Feed · Soundtrail" },
  { name: "robots", content: "noindex" },
];

const VIEWER_ID = "bench-viewer";
const PAGE_SIZE = 20;
const HOUR = 3_600_000;

function fixturePosts(now: number): PostCardData[] {
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
        id: n % 9 === 0 ? VIEWER_ID : `bench-${person.username}`,
        username: person.username,
        displayName: person.displayName,
        avatarUrl: `/media/00000000-0000-4000-8000-${String(1000 + n).padStart(12, "0")}`,
      },
      image: null,
      likeCount: (n * 3) % 11,
      commentCount: n % 4,
      viewerHasLiked: n % 3 === 0,
      viewerFollowsAuthor: true,
    };
  });
}

export function loader() {
  if (!getEnv().SOUNDTRAIL_BENCH) {
    throw data("Not Found", { status: 404 });
  }
  return {
    viewerId: VIEWER_ID,
    page: {
      posts: fixturePosts(Date.now()),
      nextCursor: "MjAyNS0wMS0wMVQwMDowMDowMC4wMDBafGJlbmNo",
    },
  };
}

function tabUrl(tab: "following" | "everyone", cursor?: string) {
  const params = new URLSearchParams({ tab });
  if (cursor) params.set("cursor", cursor);
  return `/feed?${params}`;
}

export default function BenchFixture({ loaderData }: Route.ComponentProps) {
  const { viewerId, page } = loaderData;
  return (
    <div className="flex min-h-dvh flex-col">
      <AppHeader
        viewer={{ displayName: "Ana Rivera", username: "ana_rivera", isAdmin: false }}
        colorMode="system"
      />
      <main id="main" className="mx-auto w-full max-w-3xl flex-1 px-4 py-8">
        <PageHeader title="Your feed">
          What people on this Soundtrail are listening to, newest first.
        </PageHeader>
        <div className="mb-6">
          <Composer action="/feed" expandHref="/feed?compose=1#composer" />
        </div>
        <nav aria-label="Feed" className="mb-4 flex gap-1 rounded-lg border border-border p-1">
          <Link
            to={tabUrl("following")}
            aria-current="page"
            className="flex-1 rounded-md bg-accent px-3 py-2 text-center text-sm font-medium text-accent-foreground"
          >
            Following
          </Link>
          <Link
            to={tabUrl("everyone")}
            className="flex-1 rounded-md px-3 py-2 text-center text-sm font-medium text-muted-foreground"
          >
            Everyone
          </Link>
        </nav>
        <div className="scroll-mt-20" />
        <FeedList
          posts={page.posts}
          nextCursor={page.nextCursor}
          viewerId={viewerId}
          pageUrl={(cursor) => tabUrl("following", cursor)}
          empty={null}
          label="Posts from you and people you follow"
        />
      </main>
      <SiteFooter isSignedIn />
    </div>
  );
}
