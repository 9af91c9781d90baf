import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { blockedBetween, canSeePost } from "~/core/visibility.server";
import { getDb, rowsOf } from "~/db/client.server";
import { followRequests, follows, posts, profiles } from "~/db/schema";
import { type Suggestion, suggestPeople } from "~/features/follows/index.server";
import type { Audience, PostKind } from "~/features/posts";
import {
  decodeCountCursor,
  decodePostCursor,
  decodeScoreCursor,
  encodeSearchCursor,
} from "./cursor.server";
import { MUSIC_SECTIONS, type MusicSection, normalizeQuery, tagOfQuery } from "./query";

/** Rows per "Load more" page of one result list. */
export const SEARCH_PAGE_SIZE = 20;
/** Rows of each kind on the Top tab, and of each music section before "More". */
export const TOP_SECTION_SIZE = 4;
/** How far back "trending" looks. */
export const TRENDING_DAYS = 7;

export interface SearchPage<T> {
  items: T[];
  /** Pass back for the next page; null on the last one. */
  nextCursor: string | null;
}

export interface PersonResult {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  bio: string;
  followerCount: number;
  isFollowed: boolean;
  followsViewer: boolean;
  isRequested: boolean;
  requiresApproval: boolean;
}

export interface PostResult {
  id: string;
  kind: PostKind;
  title: string;
  artist: string | null;
  album: string | null;
  note: string;
  audience: Audience;
  tags: string[];
  createdAt: string;
  author: { id: string; username: string; displayName: string; avatarUrl: string | null };
}

export interface MusicResult {
  /** Unique within its section: the folded names. */
  id: string;
  section: MusicSection;
  /** The artist, album or track name, as most posts spell it. */
  name: string;
  /** For albums and tracks: whose. */
  artist: string | null;
  postCount: number;
  /** Up to three people the viewer follows who posted about it, and how many there are. */
  friends: string[];
  friendCount: number;
}

export interface TagResult {
  id: string;
  tag: string;
  postCount: number;
}

interface SearchOptions {
  viewerId: string;
  query: string;
  cursor?: string | null;
  limit?: number;
  /** Only posts of the people this person follows (the assistant's "from people I follow"). */
  followedBy?: string;
}

/** The posts of the people `followerId` follows (true without one). */
function byFollowed(followerId: string | undefined): SQL {
  if (!followerId) return sql`true`;
  return sql`exists (select 1 from ${follows} where ${follows.followerId} = ${followerId}
    and ${follows.followeeId} = ${posts.authorId})`;
}

function pageSize(limit: number | undefined): number {
  return Math.min(Math.max(Math.floor(limit ?? SEARCH_PAGE_SIZE), 1), 50);
}

function pageOf<R, T>(rows: R[], limit: number, map: (r: R) => T, cursorOf: (r: R) => string) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(map),
    nextCursor: rows.length > limit && last ? cursorOf(last) : null,
  };
}

const fold = (value: SQLWrapper | string) => sql`soundtrail_fold(${value})`;

/**
 * The query as a tsquery (quotes, `or`, `-word`): stemmed ("english"), or the words as written
 * ("simple", matching the names' D weight) when English drops them all as stop words ("The The").
 * One configuration at a time, so "-word" excludes in every form (drizzle/0010).
 */
const textQuery = (query: string) =>
  sql`(case when numnode(websearch_to_tsquery('english', soundtrail_fold(${query}))) > 0
    then websearch_to_tsquery('english', soundtrail_fold(${query}))
    else websearch_to_tsquery('simple', soundtrail_fold(${query})) end)`;

const likeAnywhere = (query: string) =>
  sql`('%' || replace(soundtrail_fold(${query}), '%', '\\%') || '%')`;

// Generated columns of drizzle/0008_search.sql and 0009_search-keys.sql (not in the Drizzle
// schema): the full-text vector, the note's tags, and names folded by soundtrail_fold.
const searchVector = sql.raw(`"posts"."search_vector"`);
const postTags = sql.raw(`"posts"."tags"`);
const artistKey = sql.raw(`"posts"."artist_key"`);
const albumKey = sql.raw(`"posts"."album_key"`);
const titleKey = sql.raw(`"posts"."title_key"`);
const usernameKey = sql.raw(`"profiles"."username_key"`);
const displayNameKey = sql.raw(`"profiles"."display_name_key"`);
const nameKey = sql.raw(`"profiles"."name_key"`);

// ---------------------------------------------------------------------------------------------
// People

interface PersonRow {
  id: string;
  username: string;
  display_name: string | null;
  avatar_url: string | null;
  bio: string;
  follower_count: number;
  is_followed: boolean;
  follows_viewer: boolean;
  is_requested: boolean;
  requires_approval: boolean;
  score: number;
}

/**
 * People by username and display name, typo-tolerant (trigram word similarity) and
 * accent-blind; the closest first. Nobody in a block with the viewer, and nobody who chose not
 * to appear in search (except the viewer themself). One statement.
 */
export async function searchPeople(options: SearchOptions): Promise<SearchPage<PersonResult>> {
  const { viewerId } = options;
  const query = normalizeQuery(options.query).replace(/^@/, "");
  const limit = pageSize(options.limit);
  if (!query) return { items: [], nextCursor: null };
  const q = fold(query);
  // One word_similarity per candidate on top of the index's recheck (it costs ~10 µs on PGlite,
  // and a common surname brings hundreds of candidates): on the name key, which holds both names
  // (trigrams are per word, so it scores at least as high as the better of the two).
  const score = sql`(word_similarity(${q}, ${nameKey})
    + case when ${usernameKey} = ${q} or ${displayNameKey} = ${q} then 1
           when ${nameKey} like ${likeAnywhere(query)} then 0.5 else 0 end)::float8`;
  const cursor = decodeScoreCursor(options.cursor);
  const after = cursor
    ? sql`where m.score < ${cursor.score}::float8 or (m.score = ${cursor.score}::float8 and m.id > ${cursor.id})`
    : sql``;
  const candidate = (match: SQL) => sql`
    select ${profiles.userId} as id, ${profiles.username} as username,
      ${profiles.displayName} as display_name, ${profiles.avatarUrl} as avatar_url,
      ${profiles.bio} as bio, ${profiles.requiresFollowApproval} as requires_approval,
      ${score} as score
    from ${profiles}
    where ${match}
      and (${profiles.isDiscoverable} or ${profiles.userId} = ${viewerId})
      and not ${blockedBetween(profiles.userId, viewerId)}`;
  // Similar names, then the names that only contain the query (a short piece of a word): two
  // disjoint branches rather than one OR, which PostgreSQL re-checks in full on every candidate
  // after the index's own recheck (one more word_similarity each). The score once per candidate
  // ("offset 0" keeps the planner from copying it into the cursor condition); counts and follow
  // states for the page only.
  const rows = rowsOf<PersonRow>(
    await getDb().execute(sql`
      select page.*,
        (select count(*)::int from ${follows} where ${follows.followeeId} = page.id) as follower_count,
        exists (select 1 from ${follows} where ${follows.followerId} = ${viewerId} and ${follows.followeeId} = page.id) as is_followed,
        exists (select 1 from ${follows} where ${follows.followerId} = page.id and ${follows.followeeId} = ${viewerId}) as follows_viewer,
        exists (select 1 from ${followRequests} where ${followRequests.requesterId} = ${viewerId} and ${followRequests.targetId} = page.id) as is_requested
      from (
        select * from (
          ${candidate(sql`${q} <% ${nameKey}`)}
          union all
          ${candidate(sql`${nameKey} like ${likeAnywhere(query)} and not (${q} <% ${nameKey})`)}
          offset 0
        ) m
        ${after}
        order by m.score desc, m.id asc
        limit ${limit + 1}
      ) page
      order by page.score desc, page.id asc`),
  );
  return pageOf(
    rows,
    limit,
    (r) => ({
      id: r.id,
      username: r.username,
      displayName: r.display_name || r.username,
      avatarUrl: r.avatar_url,
      bio: r.bio,
      followerCount: Number(r.follower_count),
      isFollowed: Boolean(r.is_followed),
      followsViewer: Boolean(r.follows_viewer),
      isRequested: Boolean(r.is_requested),
      requiresApproval: Boolean(r.requires_approval),
    }),
    (r) => encodeSearchCursor([Number(r.score), r.id]),
  );
}

// ---------------------------------------------------------------------------------------------
// Posts

interface PostRow {
  id: string;
  kind: PostKind;
  title: string;
  artist: string | null;
  album: string | null;
  note: string;
  audience: Audience;
  tags: string[] | null;
  created_at: Date | string;
  author_id: string;
  username: string;
  display_name: string | null;
  avatar_url: string | null;
  rank: number;
}

function toPostResult(r: PostRow): PostResult {
  return {
    id: r.id,
    kind: r.kind,
    title: r.title,
    artist: r.artist,
    album: r.album,
    note: r.note,
    audience: r.audience,
    tags: r.tags ?? [],
    createdAt: new Date(r.created_at).toISOString(),
    author: {
      id: r.author_id,
      username: r.username,
      displayName: r.display_name || r.username,
      avatarUrl: r.avatar_url,
    },
  };
}

/**
 * How many matches a text search ranks at most: the newest this many posts the viewer may see
 * that match, found by walking the posts newest first (`posts_created_idx`) when the words are
 * common, or by the full-text index when they are rare. Beyond that a common word's results are
 * the most relevant of its newest matches, and its list ends there (ADR 012).
 */
export const SEARCH_RANKED_MATCHES = 500;

/**
 * One page of posts the viewer may see (THE visibility rule, blocks included) that satisfy
 * `match`, ordered by `rank` (a float8 expression; a constant for lists by time), then newest.
 * With `candidates`, only the newest that many matches are ranked. The authors are joined to the
 * page only, not to every match. One statement, author included.
 */
async function pageOfPosts(options: {
  viewerId: string;
  match: SQL;
  rank: SQL;
  candidates?: number;
  cursor: string | null | undefined;
  limit: number;
}): Promise<SearchPage<PostResult>> {
  const { viewerId, match, rank, limit } = options;
  const cursor = decodePostCursor(options.cursor);
  const after = cursor
    ? sql`where (m.rank, m.created_at, m.id) < (${cursor.rank}::float8, ${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`
    : sql``;
  const newest = options.candidates
    ? // "nulls last" as the index has it (drizzle-kit's default); both columns are not null.
      sql`order by ${posts.createdAt} desc nulls last, ${posts.id} desc nulls last limit ${options.candidates}`
    : sql``;
  const rows = rowsOf<PostRow>(
    await getDb().execute(sql`
      select page.*, ${profiles.username} as username, ${profiles.displayName} as display_name,
        ${profiles.avatarUrl} as avatar_url
      from (
        select * from (
          select ${posts.id} as id, ${posts.kind} as kind, ${posts.title} as title,
            ${posts.artist} as artist, ${posts.album} as album, ${posts.note} as note,
            ${posts.audience} as audience, ${postTags} as tags, ${posts.createdAt} as created_at,
            ${posts.authorId} as author_id, ${rank} as rank
          from ${posts}
          where ${match} and ${canSeePost(viewerId)}
          ${newest}
        ) m
        ${after}
        order by m.rank desc, m.created_at desc, m.id desc
        limit ${limit + 1}
      ) page
      inner join ${profiles} on ${profiles.userId} = page.author_id
      order by page.rank desc, page.created_at desc, page.id desc`),
  );
  return pageOf(rows, limit, toPostResult, (r) =>
    encodeSearchCursor([Number(r.rank), new Date(r.created_at).toISOString(), r.id]),
  );
}

/**
 * Posts whose music names, tags or note match the query (PostgreSQL full text, accent-blind),
 * most relevant first, then newest; only what the viewer may see. One statement.
 */
export async function searchPosts(options: SearchOptions): Promise<SearchPage<PostResult>> {
  const query = normalizeQuery(options.query);
  if (!query) return { items: [], nextCursor: null };
  const tsq = textQuery(query);
  return pageOfPosts({
    viewerId: options.viewerId,
    match: sql`${searchVector} @@ ${tsq} and ${byFollowed(options.followedBy)}`,
    rank: sql`ts_rank(${searchVector}, ${tsq})::float8`,
    candidates: SEARCH_RANKED_MATCHES,
    cursor: options.cursor,
    limit: pageSize(options.limit),
  });
}

/** A tag's posts, newest first, with how many there are (on the first page). Two statements. */
export async function listTagPosts(options: {
  viewerId: string;
  tag: string;
  cursor?: string | null;
  limit?: number;
  /** Only posts of the people this person follows. */
  followedBy?: string;
}): Promise<{ tag: string; postCount: number | null; page: SearchPage<PostResult> }> {
  const { viewerId } = options;
  const tag = tagOfQuery(`#${normalizeQuery(options.tag).replace(/^#/, "")}`);
  if (!tag) return { tag: options.tag, postCount: 0, page: { items: [], nextCursor: null } };
  const match = sql`${postTags} @> array[${tag}]::text[] and ${byFollowed(options.followedBy)}`;
  const [page, count] = await Promise.all([
    pageOfPosts({
      viewerId,
      match,
      rank: sql`0::float8`,
      cursor: options.cursor,
      limit: pageSize(options.limit),
    }),
    options.cursor
      ? Promise.resolve(null)
      : getDb()
          .execute(
            sql`select count(*)::int as n from ${posts} where ${match} and ${canSeePost(viewerId)}`,
          )
          .then((r) => Number(rowsOf<{ n: number }>(r)[0]?.n ?? 0)),
  ]);
  return { tag, postCount: count, page };
}

/** What a music result names, to list its posts. */
export interface MusicItem {
  section: MusicSection;
  /** Artist name (for "artists"), album title or track title. */
  name: string;
  artist?: string | null;
}

/** The posts about one artist, album or track, newest first. One statement. */
export async function listMusicPosts(options: {
  viewerId: string;
  item: MusicItem;
  cursor?: string | null;
  limit?: number;
}): Promise<SearchPage<PostResult>> {
  const { item } = options;
  const name = normalizeQuery(item.name);
  const artist = normalizeQuery(item.artist ?? "");
  if (!name) return { items: [], nextCursor: null };
  const sameArtist = artist ? sql`and ${artistKey} = ${fold(artist)}` : sql``;
  const match =
    item.section === "artists"
      ? sql`${artistKey} = ${fold(name)} and ${posts.kind} <> 'playlist'`
      : item.section === "albums"
        ? sql`${albumKey} = ${fold(name)} ${sameArtist}`
        : sql`${posts.kind} = 'track' and ${titleKey} = ${fold(name)} ${sameArtist}`;
  return pageOfPosts({
    viewerId: options.viewerId,
    match,
    rank: sql`0::float8`,
    cursor: options.cursor,
    limit: pageSize(options.limit),
  });
}

// ---------------------------------------------------------------------------------------------
// Music

interface MusicRow {
  section: MusicSection;
  key: string;
  name: string;
  artist: string | null;
  post_count: number;
  friends: string[] | null;
  friend_count: number;
}

/**
 * The posts whose `keys` (folded names) contain the query as typed; only when none does, those
 * whose names are similar (trigrams): a misspelling finds the name, while a correct query does not
 * drag in every look-alike. Both branches run on the trigram indexes; the second one is skipped
 * by a one-time check when the first finds anything. Aliased as `posts`, so the usual column
 * references apply.
 */
function postsMatchingNames(keys: SQL[], query: string): SQL {
  const like = likeAnywhere(query);
  const q = fold(query);
  const contains = sql.join(
    keys.map((key) => sql`${key} like ${like}`),
    sql` or `,
  );
  const similar = sql.join(
    keys.map((key) => sql`${key} % ${q}`),
    sql` or `,
  );
  return sql`(select * from ${posts} where ${contains}
    union all
    select * from ${posts} where not exists (select 1 from ${posts} where ${contains}) and (${similar})
  ) as ${posts}`;
}

function musicGroups(viewerId: string, query: string, section: MusicSection): SQL {
  const friendName = sql`coalesce(nullif(${profiles.displayName}, ''), ${profiles.username})`;
  const common = sql`count(*)::int as post_count,
      (array_agg(distinct ${friendName}) filter (where viewer_follows.followee_id is not null))[1:3] as friends,
      count(distinct ${posts.authorId}) filter (where viewer_follows.followee_id is not null)::int as friend_count`;
  const from = (keys: SQL[]) => sql`from ${postsMatchingNames(keys, query)}
    inner join ${profiles} on ${profiles.userId} = ${posts.authorId}
    left join ${follows} as viewer_follows
      on viewer_follows.follower_id = ${viewerId} and viewer_follows.followee_id = ${posts.authorId}`;
  const visible = canSeePost(viewerId);
  if (section === "artists") {
    return sql`select 'artists'::text as section, ${artistKey} as key,
        mode() within group (order by ${posts.artist}) as name, null::text as artist, ${common}
      ${from([artistKey])}
      where ${artistKey} is not null and ${posts.kind} <> 'playlist' and ${visible}
      group by ${artistKey}`;
  }
  const [title, titleKeyOf] =
    section === "albums" ? [posts.album, albumKey] : ([posts.title, titleKey] as const);
  const kindFilter = section === "tracks" ? sql`and ${posts.kind} = 'track'` : sql``;
  return sql`select ${section}::text as section,
      ${titleKeyOf} || chr(31) || coalesce(${artistKey}, '') as key,
      mode() within group (order by ${title}) as name,
      mode() within group (order by ${posts.artist}) as artist, ${common}
    ${from([titleKeyOf, artistKey])}
    where ${titleKeyOf} is not null ${kindFilter} and ${visible}
    group by ${titleKeyOf}, ${artistKey}`;
}

function toMusicResult(r: MusicRow): MusicResult {
  return {
    id: `${r.section}:${r.key}`,
    section: r.section,
    name: r.name,
    artist: r.artist,
    postCount: Number(r.post_count),
    friends: r.friends ?? [],
    friendCount: Number(r.friend_count),
  };
}

/** Most posted first, then by name; a keyset on both. */
function orderedGroups(groups: SQL, cursor: string | null | undefined, limit: number): SQL {
  const after = decodeCountCursor(cursor);
  const where = after
    ? sql`where post_count < ${after.count} or (post_count = ${after.count} and key > ${after.key})`
    : sql``;
  return sql`select * from (${groups}) g ${where} order by post_count desc, key asc limit ${limit + 1}`;
}

export interface MusicResults {
  sections: { section: MusicSection; page: SearchPage<MusicResult> }[];
}

/**
 * Artists, albums and tracks people here posted about whose names match (typo-tolerant,
 * accent-blind), with how many visible posts and which of the viewer's follows posted them.
 * All three sections (a few each) in ONE statement, or one section paged.
 */
export async function searchMusic(
  options: SearchOptions & { section?: MusicSection | null },
): Promise<MusicResults> {
  const { viewerId, section } = options;
  const query = normalizeQuery(options.query);
  const wanted = section ? [section] : [...MUSIC_SECTIONS];
  if (!query) return { sections: wanted.map((s) => ({ section: s, page: emptyPage() })) };
  const limit = section ? pageSize(options.limit) : Math.min(pageSize(options.limit), 10);
  const parts = wanted.map(
    (s) =>
      sql`(${orderedGroups(musicGroups(viewerId, query, s), section ? options.cursor : null, limit)})`,
  );
  const rows = rowsOf<MusicRow>(await getDb().execute(sql.join(parts, sql` union all `)));
  return {
    sections: wanted.map((s) => ({
      section: s,
      page: pageOf(
        rows.filter((r) => r.section === s),
        limit,
        toMusicResult,
        (r) => encodeSearchCursor([Number(r.post_count), r.key]),
      ),
    })),
  };
}

function emptyPage<T>(): SearchPage<T> {
  return { items: [], nextCursor: null };
}

// ---------------------------------------------------------------------------------------------
// Tags

interface TagRow {
  tag: string;
  post_count: number;
}

/**
 * `#tags` starting with the query's word, with how many visible posts carry them; most used
 * first. The prefix is matched on the tags' weight in the full-text index. One statement.
 */
export async function searchTags(options: SearchOptions): Promise<SearchPage<TagResult>> {
  const { viewerId } = options;
  const word = (
    normalizeQuery(options.query)
      .replace(/^#/, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).join("");
  if (!word) return emptyPage();
  const limit = pageSize(options.limit);
  const groups = sql`select t.tag as tag, t.tag as key, count(*)::int as post_count
    from ${posts} cross join lateral unnest(${postTags}) as t(tag)
    where ${searchVector} @@ to_tsquery('simple', quote_literal(soundtrail_fold(${word})) || ':*B')
      and replace(soundtrail_fold(t.tag), ' ', '') like replace(soundtrail_fold(${word}), '%', '\\%') || '%'
      and ${canSeePost(viewerId)}
    group by t.tag`;
  const rows = rowsOf<TagRow & { key: string }>(
    await getDb().execute(orderedGroups(groups, options.cursor, limit)),
  );
  return pageOf(
    rows,
    limit,
    (r) => ({ id: r.tag, tag: r.tag, postCount: Number(r.post_count) }),
    (r) => encodeSearchCursor([Number(r.post_count), r.key]),
  );
}

// ---------------------------------------------------------------------------------------------
// Top and the empty page

export interface TopResults {
  people: PersonResult[];
  posts: PostResult[];
  music: MusicResult[];
  tags: TagResult[];
}

/** A few of each kind, for the Top tab: four statements (people, posts, music, tags). */
export async function searchTop(options: { viewerId: string; query: string }): Promise<TopResults> {
  const { viewerId, query } = options;
  const [people, found, music, tags] = await Promise.all([
    searchPeople({ viewerId, query, limit: TOP_SECTION_SIZE }),
    searchPosts({ viewerId, query, limit: TOP_SECTION_SIZE }),
    searchMusic({ viewerId, query, limit: 3 }),
    searchTags({ viewerId, query, limit: 6 }),
  ]);
  return {
    people: people.items,
    posts: found.items,
    music: music.sections.flatMap((s) => s.page.items),
    tags: tags.items,
  };
}

export interface TrendingArtist {
  id: string;
  name: string;
  postCount: number;
}

export interface ExploreResults {
  trendingTags: TagResult[];
  trendingArtists: TrendingArtist[];
  suggestions: Suggestion[];
}

/**
 * What the empty search page offers: the tags and artists most posted about in the last
 * TRENDING_DAYS days (posts the viewer may see), and people to follow.
 */
export async function exploreSearch(options: {
  viewerId: string;
  /** False to leave out people to follow (and their statements). */
  withSuggestions?: boolean;
  /** False to leave out the trending tags (and their statement). */
  withTags?: boolean;
}): Promise<ExploreResults> {
  const { viewerId } = options;
  const recent = sql`${posts.createdAt} > now() - make_interval(days => ${TRENDING_DAYS}) and ${canSeePost(viewerId)}`;
  const db = getDb();
  const [tags, artists, suggestions] = await Promise.all([
    options.withTags === false
      ? { rows: [] }
      : db.execute(sql`select t.tag as tag, count(*)::int as post_count
      from ${posts} cross join lateral unnest(${postTags}) as t(tag)
      where ${recent} and ${postTags} <> '{}'
      group by t.tag order by post_count desc, tag asc limit 12`),
    db.execute(sql`select ${artistKey} as key,
        mode() within group (order by ${posts.artist}) as name, count(*)::int as post_count
      from ${posts}
      where ${recent} and ${artistKey} is not null and ${posts.kind} <> 'playlist'
      group by ${artistKey} order by post_count desc, key asc limit 8`),
    options.withSuggestions === false ? [] : suggestPeople({ viewerId, limit: 5 }),
  ]);
  return {
    trendingTags: rowsOf<TagRow>(tags).map((r) => ({
      id: r.tag,
      tag: r.tag,
      postCount: Number(r.post_count),
    })),
    trendingArtists: rowsOf<{ key: string; name: string; post_count: number }>(artists).map(
      (r) => ({ id: r.key, name: r.name, postCount: Number(r.post_count) }),
    ),
    suggestions,
  };
}
