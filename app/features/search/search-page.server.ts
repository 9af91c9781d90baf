import {
  highlightTerms,
  type MusicSection,
  normalizeQuery,
  parseMusicSection,
  parseSearchType,
  type SearchType,
  tagOfQuery,
} from "./query";
import {
  type ExploreResults,
  exploreSearch,
  listMusicPosts,
  listTagPosts,
  type MusicItem,
  type MusicResults,
  type PersonResult,
  type PostResult,
  type SearchPage,
  searchMusic,
  searchPeople,
  searchPosts,
  searchTags,
  searchTop,
  type TagResult,
  type TopResults,
} from "./search.server";

export type SearchView =
  | { view: "explore"; explore: ExploreResults }
  | { view: "top"; top: TopResults }
  | { view: "people"; page: SearchPage<PersonResult> }
  | { view: "posts"; page: SearchPage<PostResult> }
  | { view: "music"; sections: MusicResults["sections"] }
  | { view: "musicSection"; section: MusicSection; page: SearchPage<MusicResultItem> }
  | { view: "musicPosts"; item: MusicItem; page: SearchPage<PostResult> }
  | { view: "tags"; page: SearchPage<TagResult> }
  | { view: "tagPosts"; tag: string; postCount: number | null; page: SearchPage<PostResult> };

type MusicResultItem = MusicResults["sections"][number]["page"]["items"][number];

export type SearchPageData = SearchView & {
  q: string;
  type: SearchType;
  /** Folded query words to mark in the results. */
  terms: string[];
  isFirstPage: boolean;
  /** Nothing matched on the first page. */
  isEmpty: boolean;
  /** When nothing matched: trending tags to try instead. */
  fallback: ExploreResults["trendingTags"];
  /** When nothing matched: the artists people posted about this week. */
  fallbackArtists: ExploreResults["trendingArtists"];
  /** When nothing matched: people to follow. */
  fallbackPeople: ExploreResults["suggestions"];
};

/** What the search page's URL asks for (`?q=&type=&cursor=&section=&artist=&album=&track=`). */
export interface SearchPageOptions {
  viewerId: string;
  params: URLSearchParams;
}

function musicItemOf(params: URLSearchParams): MusicItem | null {
  const artist = normalizeQuery(params.get("artist"));
  const album = normalizeQuery(params.get("album"));
  const track = normalizeQuery(params.get("track"));
  if (track) return { section: "tracks", name: track, artist: artist || null };
  if (album) return { section: "albums", name: album, artist: artist || null };
  if (artist) return { section: "artists", name: artist };
  return null;
}

async function viewFor(
  viewerId: string,
  q: string,
  type: SearchType,
  params: URLSearchParams,
): Promise<SearchView> {
  const cursor = params.get("cursor");
  const item = type === "music" ? musicItemOf(params) : null;
  if (item) {
    return { view: "musicPosts", item, page: await listMusicPosts({ viewerId, item, cursor }) };
  }
  if (!q) return { view: "explore", explore: await exploreSearch({ viewerId }) };
  switch (type) {
    case "top":
      return { view: "top", top: await searchTop({ viewerId, query: q }) };
    case "people":
      return { view: "people", page: await searchPeople({ viewerId, query: q, cursor }) };
    case "posts":
      return { view: "posts", page: await searchPosts({ viewerId, query: q, cursor }) };
    case "music": {
      const section = parseMusicSection(params.get("section"));
      const result = await searchMusic({ viewerId, query: q, section, cursor });
      const only = result.sections[0];
      if (section && only) return { view: "musicSection", section, page: only.page };
      return { view: "music", sections: result.sections };
    }
    case "tags": {
      const tag = tagOfQuery(q);
      if (tag) return { view: "tagPosts", ...(await listTagPosts({ viewerId, tag, cursor })) };
      return { view: "tags", page: await searchTags({ viewerId, query: q, cursor }) };
    }
  }
}

function isEmptyView(view: SearchView): boolean {
  switch (view.view) {
    case "explore":
      return false;
    case "top":
      return (
        view.top.people.length +
          view.top.posts.length +
          view.top.music.length +
          view.top.tags.length ===
        0
      );
    case "music":
      return view.sections.every((s) => s.page.items.length === 0);
    default:
      return view.page.items.length === 0;
  }
}

/**
 * Everything the search page shows for one URL. A page costs a small constant number of
 * statements: one per list (four for Top, two for a tag's posts, three for the empty query),
 * plus, when nothing matched, the explore statements (trending tags and artists, people to follow).
 */
export async function loadSearchPage(options: SearchPageOptions): Promise<SearchPageData> {
  const { viewerId, params } = options;
  const q = normalizeQuery(params.get("q"));
  const type = parseSearchType(params.get("type"));
  const view = await viewFor(viewerId, q, type, params);
  const isFirstPage = !params.get("cursor");
  const isEmpty = isFirstPage && isEmptyView(view);
  const explore = isEmpty ? await exploreSearch({ viewerId }) : null;
  return {
    ...view,
    q,
    type,
    terms: highlightTerms(q),
    isFirstPage,
    isEmpty,
    fallback: explore?.trendingTags ?? [],
    fallbackArtists: explore?.trendingArtists ?? [],
    fallbackPeople: explore?.suggestions ?? [],
  };
}
