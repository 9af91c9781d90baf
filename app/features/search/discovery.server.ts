import { sql } from "drizzle-orm";
import { getDb, rowsOf } from "~/db/client.server";
import { posts } from "~/db/schema";
import type { Suggestion } from "~/features/follows/index.server";
import { exploreSearch, type TrendingArtist } from "./search.server";

/**
 * What an empty page (a new account's feed, no follows, no notifications, no search results)
 * shows instead of nothing: who to follow and the artists this instance posts about. Only on a
 * truly empty instance — nobody but the viewer has posted anything — does it say it is new.
 */
export interface Discovery {
  suggestions: Suggestion[];
  trendingArtists: TrendingArtist[];
  isNewInstance: boolean;
}

/** Has anyone (other than `exceptUserId`) ever posted here? One statement. */
export async function hasAnyPosts(exceptUserId: string | null = null): Promise<boolean> {
  const others = exceptUserId ? sql`where ${posts.authorId} <> ${exceptUserId}` : sql``;
  const result = await getDb().execute(
    sql`select exists (select 1 from ${posts} ${others}) as "any"`,
  );
  return Boolean(rowsOf<{ any: boolean }>(result)[0]?.any);
}

/**
 * People to follow and trending artists for `viewerId`, reusing search's explore queries (the
 * suggestions of the people feature); one more statement only when nobody is suggested.
 */
export async function loadDiscovery(viewerId: string): Promise<Discovery> {
  const explore = await exploreSearch({ viewerId, withTags: false });
  const suggestions = explore.suggestions.slice(0, 5);
  // Anyone else to suggest means others post here; asked only when there is nobody.
  const isNewInstance = suggestions.length === 0 && !(await hasAnyPosts(viewerId));
  // On a new instance the only "trending" artists would be the viewer's own.
  const trendingArtists = isNewInstance ? [] : explore.trendingArtists;
  return { suggestions, trendingArtists, isNewInstance };
}
