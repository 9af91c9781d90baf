import { sql } from "drizzle-orm";
import { shownName } from "~/core/person";
import { canSeePost } from "~/core/visibility.server";
import { getDb, rowsOf } from "~/db/client.server";
import { follows, journeySettings, listens, posts, profiles } from "~/db/schema";
import { canSeeJourney } from "~/features/journey/index.server";
import type { PostKind } from "~/features/posts";
import { normalizeQuery, tagOfQuery } from "~/features/search";
import { listTagPosts, type PostResult, searchPosts } from "~/features/search/index.server";
import type { PostDraft } from "./constants";

/*
 * The assistant's data tools (issue 14). Both engines answer only from these, and every query
 * here reads posts through THE visibility rule (canSeePost, or the search service that applies
 * it), so a post the person may not see never reaches an answer, whichever engine asks.
 * Each function returns plain JSON-ready data: the built-in engine turns it into sentences, a
 * language model gets it as a tool result.
 */

export type Period = "week" | "month" | "year" | "all";

export interface PostRef {
  id: string;
  kind: PostKind;
  title: string;
  artist: string | null;
  createdAt: string;
  author: { username: string; displayName: string };
}

export interface ArtistCount {
  artist: string;
  postCount: number;
}

interface PostRow {
  id: string;
  kind: PostKind;
  title: string;
  artist: string | null;
  created_at: string | Date;
  username: string;
  display_name: string | null;
}

const artistKey = sql.raw(`"posts"."artist_key"`);
const titleKey = sql.raw(`"posts"."title_key"`);

function toPostRef(row: PostRow): PostRef {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    artist: row.artist,
    createdAt: new Date(row.created_at).toISOString(),
    author: { username: row.username, displayName: row.display_name || row.username },
  };
}

function fromSearch(post: PostResult): PostRef {
  return {
    id: post.id,
    kind: post.kind,
    title: post.title,
    artist: post.artist,
    createdAt: post.createdAt,
    author: {
      username: post.author.username,
      displayName: shownName(post.author),
    },
  };
}

/** Where a period starts (calendar week, month and year, in UTC); null for all time. */
export function periodStart(period: Period, now: Date): Date | null {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  if (period === "year") return new Date(Date.UTC(y, 0, 1));
  if (period === "month") return new Date(Date.UTC(y, m, 1));
  if (period === "week") return new Date(now.getTime() - 7 * 24 * 3600 * 1000);
  return null;
}

const postColumns = sql`${posts.id} as id, ${posts.kind} as kind, ${posts.title} as title,
  ${posts.artist} as artist, ${posts.createdAt} as created_at,
  ${profiles.username} as username, ${profiles.displayName} as display_name`;

async function artistCounts(options: {
  viewerId: string;
  since: Date | null;
  until?: Date | null;
  limit: number;
}): Promise<ArtistCount[]> {
  const { viewerId, since, until, limit } = options;
  const rows = rowsOf<{ artist: string; n: number }>(
    await getDb().execute(sql`
      select min(${posts.artist}) as artist, count(*)::int as n
      from ${posts}
      where ${posts.authorId} = ${viewerId} and ${posts.artist} is not null
        and ${canSeePost(viewerId)}
        ${since ? sql`and ${posts.createdAt} >= ${since.toISOString()}::timestamptz` : sql``}
        ${until ? sql`and ${posts.createdAt} < ${until.toISOString()}::timestamptz` : sql``}
      group by ${artistKey}
      order by n desc, max(${posts.createdAt}) desc
      limit ${limit}`),
  );
  return rows.map((r) => ({ artist: r.artist, postCount: Number(r.n) }));
}

/** The person's most posted artists in a period. */
export async function getTopArtists(options: {
  viewerId: string;
  period: Period;
  now?: Date;
  limit?: number;
}): Promise<{ period: Period; artists: ArtistCount[] }> {
  const since = periodStart(options.period, options.now ?? new Date());
  const artists = await artistCounts({
    viewerId: options.viewerId,
    since,
    limit: options.limit ?? 5,
  });
  return { period: options.period, artists };
}

/** What the person posted in the last 30 days: the newest posts and the artists behind them. */
export async function getRecentActivity(options: {
  viewerId: string;
  now?: Date;
  days?: number;
}): Promise<{ days: number; postCount: number; posts: PostRef[]; artists: ArtistCount[] }> {
  const { viewerId } = options;
  const days = options.days ?? 30;
  const since = new Date((options.now ?? new Date()).getTime() - days * 24 * 3600 * 1000);
  const db = getDb();
  const [rows, counted, artists] = await Promise.all([
    db.execute(sql`
      select ${postColumns}
      from ${posts} inner join ${profiles} on ${profiles.userId} = ${posts.authorId}
      where ${posts.authorId} = ${viewerId} and ${canSeePost(viewerId)}
        and ${posts.createdAt} >= ${since.toISOString()}::timestamptz
      order by ${posts.createdAt} desc, ${posts.id} desc
      limit 5`),
    db.execute(sql`
      select count(*)::int as n from ${posts}
      where ${posts.authorId} = ${viewerId} and ${canSeePost(viewerId)}
        and ${posts.createdAt} >= ${since.toISOString()}::timestamptz`),
    artistCounts({ viewerId, since, limit: 3 }),
  ]);
  return {
    days,
    postCount: Number(rowsOf<{ n: number }>(counted)[0]?.n ?? 0),
    posts: rowsOf<PostRow>(rows).map(toPostRef),
    artists,
  };
}

/** The newest posts of the people the person follows that the person may see. */
export async function getFriendsListening(options: {
  viewerId: string;
  limit?: number;
}): Promise<{ posts: PostRef[] }> {
  const { viewerId } = options;
  const rows = rowsOf<PostRow>(
    await getDb().execute(sql`
      select ${postColumns}
      from ${posts} inner join ${profiles} on ${profiles.userId} = ${posts.authorId}
      where exists (select 1 from ${follows}
          where ${follows.followerId} = ${viewerId} and ${follows.followeeId} = ${posts.authorId})
        and ${canSeePost(viewerId)}
      order by ${posts.createdAt} desc, ${posts.id} desc
      limit ${options.limit ?? 8}`),
  );
  return { posts: rows.map(toPostRef) };
}

export interface ArtistFan {
  username: string;
  displayName: string;
  postCount: number;
  /** Their newest post about the artist that the person may see. */
  postId: string;
}

/**
 * Other people who posted about an artist (the spelling may be a little off), from posts the
 * person may see; the most devoted first.
 */
export async function findArtistFans(options: {
  viewerId: string;
  artist: string;
  limit?: number;
}): Promise<{ artist: string; people: ArtistFan[] }> {
  const { viewerId } = options;
  const query = normalizeQuery(options.artist, 200);
  if (!query) return { artist: options.artist, people: [] };
  const rows = rowsOf<{
    username: string;
    display_name: string | null;
    n: number;
    post_id: string;
    artist: string;
  }>(
    await getDb().execute(sql`
      select ${profiles.username} as username, ${profiles.displayName} as display_name,
        count(*)::int as n,
        (array_agg(${posts.id} order by ${posts.createdAt} desc))[1] as post_id,
        min(${posts.artist}) as artist
      from ${posts} inner join ${profiles} on ${profiles.userId} = ${posts.authorId}
      where ${posts.authorId} <> ${viewerId}
        and (${artistKey} = soundtrail_fold(${query})
          or similarity(${artistKey}, soundtrail_fold(${query})) >= 0.5)
        and ${canSeePost(viewerId)}
      group by ${profiles.username}, ${profiles.displayName}
      order by n desc, max(${posts.createdAt}) desc
      limit ${options.limit ?? 8}`),
  );
  return {
    artist: rows[0]?.artist ?? query,
    people: rows.map((r) => ({
      username: r.username,
      displayName: r.display_name || r.username,
      postCount: Number(r.n),
      postId: r.post_id,
    })),
  };
}

export interface Recommendation {
  artist: string;
  /** The newest post about it the person may see, to listen from. */
  post: PostRef;
  /** Who shared it (up to three names), and whether any of them is followed. */
  sharedBy: string[];
  isFromFriend: boolean;
}

/**
 * Artists the person has never posted about, shared by the people they follow and by people
 * with a similar taste (who posted about an artist the person also posted about); the more
 * people shared it, the higher. Only posts the person may see.
 */
export async function recommendMusic(options: {
  viewerId: string;
  limit?: number;
}): Promise<{ recommendations: Recommendation[] }> {
  const { viewerId } = options;
  const rows = rowsOf<
    PostRow & { rec_artist: string; score: number; shared_by: string[]; from_friend: boolean }
  >(
    await getDb().execute(sql`
      with mine as (
        select distinct ${artistKey} as k from ${posts}
        where ${posts.authorId} = ${viewerId} and ${artistKey} is not null
      ), my_titles as (
        select distinct ${titleKey} as k from ${posts} where ${posts.authorId} = ${viewerId}
      ), friends as (
        select ${follows.followeeId} as id from ${follows} where ${follows.followerId} = ${viewerId}
      ), alike as (
        select distinct ${posts.authorId} as id from ${posts}
        where ${posts.authorId} <> ${viewerId} and ${artistKey} in (select k from mine)
          and ${canSeePost(viewerId)}
      ), candidates as (
        select ${posts.id} as id, ${posts.kind} as kind, ${posts.title} as title,
          ${posts.artist} as artist, ${posts.createdAt} as created_at, ${artistKey} as k,
          ${profiles.username} as username, ${profiles.displayName} as display_name,
          ${posts.authorId} in (select id from friends) as from_friend
        from ${posts} inner join ${profiles} on ${profiles.userId} = ${posts.authorId}
        where ${posts.authorId} <> ${viewerId}
          and (${posts.authorId} in (select id from friends) or ${posts.authorId} in (select id from alike))
          and ${artistKey} is not null
          and ${artistKey} not in (select k from mine)
          and ${titleKey} not in (select k from my_titles)
          and ${canSeePost(viewerId)}
      ), grouped as (
        select k, count(distinct username)::int as score, bool_or(from_friend) as any_friend,
          array_agg(distinct username) as shared_by
        from candidates group by k
      ), latest as (
        select distinct on (k) * from candidates order by k, created_at desc, id desc
      )
      select l.id, l.kind, l.title, l.artist, l.created_at, l.username, l.display_name,
        l.artist as rec_artist, g.score, g.any_friend as from_friend, g.shared_by
      from latest l inner join grouped g on g.k = l.k
      order by g.score desc, l.created_at desc, l.id desc
      limit ${options.limit ?? 5}`),
  );
  return {
    recommendations: rows.map((r) => ({
      artist: r.rec_artist,
      post: toPostRef(r),
      sharedBy: (r.shared_by ?? []).slice(0, 3),
      isFromFriend: Boolean(r.from_friend),
    })),
  };
}

export interface YearSummary {
  year: number;
  postCount: number;
  artists: ArtistCount[];
  topMood: string | null;
  busiestMonth: { month: number; postCount: number } | null;
  firstPost: PostRef | null;
}

/** The person's year in posts: how many, top artists, favourite mood, busiest month, the first. */
export async function summariseYear(options: {
  viewerId: string;
  year?: number;
  now?: Date;
}): Promise<YearSummary> {
  const { viewerId } = options;
  const year = options.year ?? (options.now ?? new Date()).getUTCFullYear();
  const since = new Date(Date.UTC(year, 0, 1));
  const until = new Date(Date.UTC(year + 1, 0, 1));
  const inYear = sql`${posts.authorId} = ${viewerId} and ${canSeePost(viewerId)}
    and ${posts.createdAt} >= ${since.toISOString()}::timestamptz
    and ${posts.createdAt} < ${until.toISOString()}::timestamptz`;
  const db = getDb();
  const [stats, months, first, artists] = await Promise.all([
    db.execute(sql`
      select count(*)::int as n, mode() within group (order by ${posts.mood}) as mood
      from ${posts} where ${inYear}`),
    db.execute(sql`
      select extract(month from ${posts.createdAt} at time zone 'UTC')::int as month, count(*)::int as n
      from ${posts} where ${inYear}
      group by 1 order by n desc, month asc limit 1`),
    db.execute(sql`
      select ${postColumns}
      from ${posts} inner join ${profiles} on ${profiles.userId} = ${posts.authorId}
      where ${inYear}
      order by ${posts.createdAt} asc, ${posts.id} asc limit 1`),
    artistCounts({ viewerId, since, until, limit: 5 }),
  ]);
  const stat = rowsOf<{ n: number; mood: string | null }>(stats)[0];
  const month = rowsOf<{ month: number; n: number }>(months)[0];
  const firstRow = rowsOf<PostRow>(first)[0];
  return {
    year,
    postCount: Number(stat?.n ?? 0),
    artists,
    topMood: stat?.mood ?? null,
    busiestMonth: month ? { month: Number(month.month), postCount: Number(month.n) } : null,
    firstPost: firstRow ? toPostRef(firstRow) : null,
  };
}

/**
 * Posts about a tag or words, through the search service (which applies the visibility rule):
 * `#tag` or a single word that is a tag with posts lists the tag; otherwise full-text search.
 */
export async function findPosts(options: {
  viewerId: string;
  query: string;
  limit?: number;
}): Promise<{ query: string; tag: string | null; posts: PostRef[] }> {
  const { viewerId } = options;
  const query = normalizeQuery(options.query);
  const limit = options.limit ?? 5;
  if (!query) return { query, tag: null, posts: [] };
  const tag = tagOfQuery(query.startsWith("#") ? query : `#${query}`);
  if (tag) {
    const tagged = await listTagPosts({ viewerId, tag, limit });
    if (tagged.page.items.length > 0 || query.startsWith("#")) {
      return { query, tag, posts: tagged.page.items.map(fromSearch) };
    }
  }
  const found = await searchPosts({ viewerId, query, limit });
  return { query, tag: null, posts: found.items.map(fromSearch) };
}

/**
 * A draft post about a track: "Title by Artist" names both; otherwise the artist comes from
 * the newest post with that title the person may see (their own first). Nothing is stored.
 */
export async function draftPost(options: {
  viewerId: string;
  track: string;
}): Promise<{ draft: PostDraft | null; source: PostRef | null }> {
  const { viewerId } = options;
  const text = normalizeQuery(options.track, 200).replace(/^["“'‘]+|["”'’]+$/g, "");
  if (!text) return { draft: null, source: null };
  const by = /^(.+?)\s+by\s+(.+)$/i.exec(text);
  const title = (by?.[1] ?? text).trim();
  let artist = by?.[2]?.trim() ?? "";
  let source: PostRef | null = null;
  const rows = rowsOf<PostRow>(
    await getDb().execute(sql`
      select ${postColumns}
      from ${posts} inner join ${profiles} on ${profiles.userId} = ${posts.authorId}
      where ${titleKey} = soundtrail_fold(${title}) and ${posts.artist} is not null
        ${artist ? sql`and ${artistKey} = soundtrail_fold(${artist})` : sql``}
        and ${canSeePost(viewerId)}
      order by (${posts.authorId} = ${viewerId}) desc, ${posts.createdAt} desc
      limit 1`),
  );
  if (rows[0]) {
    source = toPostRef(rows[0]);
    artist ||= source.artist ?? "";
  }
  const name = source?.title ?? title;
  return {
    draft: {
      kind: "track",
      title: name.slice(0, 200),
      artist: artist.slice(0, 200),
      note: artist
        ? `Can't stop playing “${name}” by ${artist} right now.`
        : `Can't stop playing “${name}” right now.`,
    },
    source,
  };
}

export interface PlayedArtist {
  artist: string;
  plays: number;
}

/**
 * The person's own listening history in a period (plays, not posts): how many plays and the
 * most played artists. Only ever the person's own plays, hidden artists included (they hid
 * them from others, not from themselves).
 */
export async function getListeningHistory(options: {
  viewerId: string;
  /** A calendar period as for posts, or the 30 days before `now`. */
  period: Period | "30days";
  now?: Date;
  limit?: number;
}): Promise<{ period: Period | "30days"; plays: number; artists: PlayedArtist[] }> {
  const now = options.now ?? new Date();
  const since =
    options.period === "30days"
      ? new Date(now.getTime() - 30 * 86_400_000)
      : periodStart(options.period, now);
  const rows = rowsOf<{ artist: string; plays: number; total: number }>(
    await getDb().execute(sql`
      select mode() within group (order by ${listens.artistName}) as artist, count(*)::int as plays,
        sum(count(*)) over ()::int as total
      from ${listens}
      where ${listens.userId} = ${options.viewerId}
        ${since ? sql`and ${listens.listenedAt} >= ${since.toISOString()}::timestamptz` : sql``}
      group by ${listens.artistKey}
      order by plays desc, ${listens.artistKey}
      limit ${Math.min(options.limit ?? 5, 20)}`),
  );
  return {
    period: options.period,
    plays: Number(rows[0]?.total ?? 0),
    artists: rows.map((r) => ({ artist: r.artist, plays: Number(r.plays) })),
  };
}

export interface FriendListening {
  username: string;
  displayName: string;
  artist: string;
  plays: number;
}

/**
 * What the people the person follows played most in the last 30 days, from their journeys, only
 * for journeys the person may see (the journey audience rule) and without their hidden artists.
 */
export async function getFriendsPlays(options: {
  viewerId: string;
  now?: Date;
}): Promise<{ friends: FriendListening[] }> {
  const since = new Date((options.now ?? new Date()).getTime() - 30 * 86_400_000);
  const rows = rowsOf<{
    username: string;
    display_name: string | null;
    artist: string;
    plays: number;
  }>(
    await getDb().execute(sql`
      select ${profiles.username} as username, ${profiles.displayName} as display_name,
        t.artist, t.plays
      from ${follows}
      join ${profiles} on ${profiles.userId} = ${follows.followeeId}
      cross join lateral (
        select mode() within group (order by l.artist_name) as artist, count(*)::int as plays
        from ${listens} l
        where l.user_id = ${follows.followeeId} and l.listened_at >= ${since.toISOString()}::timestamptz
          and not (l.artist_key = any(coalesce((select ${journeySettings.hiddenArtists} from ${journeySettings}
            where ${journeySettings.userId} = ${follows.followeeId}), '{}'::text[])))
        group by l.artist_key order by plays desc, l.artist_key limit 1
      ) t
      where ${follows.followerId} = ${options.viewerId}
        and ${canSeeJourney(options.viewerId, follows.followeeId)}
      order by t.plays desc, ${profiles.username}
      limit 10`),
  );
  return {
    friends: rows.map((r) => ({
      username: r.username,
      displayName: r.display_name || r.username,
      artist: r.artist,
      plays: Number(r.plays),
    })),
  };
}
