import { sql } from "drizzle-orm";
import { shownName } from "~/core/person";
import { canSeePost } from "~/core/visibility.server";
import { getDb, rowsOf } from "~/db/client.server";
import { follows, listens, posts, profiles } from "~/db/schema";
import {
  canSeeJourney,
  type JourneyStats,
  loadJourneyStats,
  PERIOD_LABELS,
  periodSearch,
} from "~/features/journey/index.server";
import { getProfile } from "~/features/people/index.server";
import type { PostKind } from "~/features/posts";
import { listProfilePosts } from "~/features/posts/index.server";
import { normalizeQuery, tagOfQuery } from "~/features/search";
import { listTagPosts, type PostResult, searchPosts } from "~/features/search/index.server";
import type { PostDraft } from "./constants";
import type { PeriodSpec } from "./intents";

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

/**
 * The days of a period as the journey resolves them: rolling windows end with today (UTC,
 * included) and last 7, 30 or 365 days; ranges are their days; all time has no start.
 */
export function periodRange(period: PeriodSpec, now: Date): { since: Date | null; until: Date } {
  const tomorrow = new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000 + 86_400_000);
  if (period.kind === "range") {
    const until = new Date(Date.parse(`${period.to}T00:00:00Z`) + 86_400_000);
    return {
      since: new Date(`${period.from}T00:00:00Z`),
      until: until.getTime() > tomorrow.getTime() ? tomorrow : until,
    };
  }
  const days = { week: 7, month: 30, year: 365, all: 0 }[period.period];
  return {
    since: days ? new Date(tomorrow.getTime() - days * 86_400_000) : null,
    until: tomorrow,
  };
}

/** The person's most posted artists in a period given as the journey takes it. */
export async function getTopPostedArtists(options: {
  viewerId: string;
  period: PeriodSpec;
  now?: Date;
  limit?: number;
}): Promise<ArtistCount[]> {
  const { since, until } = periodRange(options.period, options.now ?? new Date());
  return artistCounts({ viewerId: options.viewerId, since, until, limit: options.limit ?? 5 });
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
 * Artists the person has never posted about nor played (their listening history), shared by the
 * people they follow and by people with a similar taste (who posted about an artist the person
 * also posted about); the more people shared it, the higher. Only posts the person may see.
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
        union
        select soundtrail_fold(min(${listens.artistName})) from ${listens}
        where ${listens.userId} = ${viewerId} group by ${listens.artistKey}
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
  const year = options.year ?? (options.now ?? new Date()).getUTCFullYear();
  const summary = await summarisePosts({
    viewerId: options.viewerId,
    since: new Date(Date.UTC(year, 0, 1)),
    until: new Date(Date.UTC(year + 1, 0, 1)),
  });
  return { year, ...summary };
}

/** The person's posts in [since, until): how many, top artists, mood, busiest month, the first. */
export async function summarisePosts(options: {
  viewerId: string;
  since: Date | null;
  until: Date;
}): Promise<Omit<YearSummary, "year">> {
  const { viewerId, until } = options;
  const since = options.since ?? new Date(Date.UTC(1990, 0, 1));
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
  /** Only posts of the people the person follows ("jazz tips from people I follow"). */
  onlyFollowed?: boolean;
}): Promise<{ query: string; tag: string | null; posts: PostRef[] }> {
  const { viewerId } = options;
  const query = normalizeQuery(options.query);
  const limit = options.limit ?? 5;
  const followedBy = options.onlyFollowed ? viewerId : undefined;
  if (!query) return { query, tag: null, posts: [] };
  const tag = tagOfQuery(query.startsWith("#") ? query : `#${query}`);
  let tagged: PostRef[] = [];
  if (tag) {
    const found = await listTagPosts({ viewerId, tag, limit, followedBy });
    tagged = found.page.items.map(fromSearch);
    if (query.startsWith("#") || (tagged.length > 0 && !followedBy)) {
      return { query, tag, posts: tagged };
    }
  }
  // From friends, a word is a tag and also words in titles, artists and notes ("jazz").
  const found = await searchPosts({ viewerId, query: query.replace(/^#/, ""), limit, followedBy });
  const seen = new Set(tagged.map((p) => p.id));
  const posts = [...tagged, ...found.items.map(fromSearch).filter((p) => !seen.has(p.id))];
  return { query, tag: tagged.length > 0 ? tag : null, posts: posts.slice(0, limit) };
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

/* ------------------------------------------------------------ listening (the journey) */

/** The journey page's query for a period: its rolling windows, or a custom range of days. */
export function journeyParams(period: PeriodSpec): URLSearchParams {
  if (period.kind === "rolling") return new URLSearchParams({ period: period.period });
  return new URLSearchParams({ period: "custom", from: period.from, to: period.to });
}

/** How an answer says a period: "in the last 30 days", "in March 2026", "this year". */
export function periodWords(period: PeriodSpec): string {
  if (period.kind === "range") return period.name;
  if (period.period === "all") return "of all time";
  return `in the ${PERIOD_LABELS[period.period].toLowerCase()}`;
}

export interface Person {
  id: string;
  username: string;
  displayName: string;
}

export interface RankedPlay {
  name: string;
  /** Whose album or track (null for artists). */
  artist: string | null;
  plays: number;
}

/** A journey's numbers for a period as the viewer may see them, JSON-ready for both engines. */
export type ListeningAnswer =
  | { state: "unknown_person"; name: string }
  | { state: "hidden"; person: Person; audience: string; message: string }
  /** The period cannot be shown (it starts in the future, or too long ago). */
  | { state: "bad_period"; person: Person; message: string }
  | {
      state: "shown";
      person: Person;
      isOwner: boolean;
      /** The words for the period, and the journey page showing the same numbers. */
      period: string;
      journeyHref: string;
      plays: number;
      listeningMs: number;
      estimatedPlays: number;
      artistCount: number;
      topArtists: RankedPlay[];
      topAlbums: RankedPlay[];
      topTracks: RankedPlay[];
      discoveries: number;
      longestStreakDays: number | null;
    };

/** What the journey page says when it is not shared with the viewer (the same words). */
export function hiddenJourneyMessage(name: string, audience: string): string {
  return audience === "followers"
    ? `${name} shares their journey with followers only.`
    : audience === "only_me"
      ? `${name} keeps their journey private.`
      : `${name}'s journey is not available to you.`;
}

function shownStats(stats: JourneyStats) {
  return {
    plays: stats.totals.plays,
    listeningMs: stats.totals.listeningMs,
    estimatedPlays: stats.totals.estimatedPlays,
    artistCount: stats.totals.artists,
    topArtists: stats.topArtists.map((a) => ({ name: a.name, artist: null, plays: a.plays })),
    topAlbums: stats.topAlbums.map((a) => ({ name: a.name, artist: a.artistName, plays: a.plays })),
    topTracks: stats.topTracks.map((a) => ({ name: a.name, artist: a.artistName, plays: a.plays })),
    discoveries: stats.discoveries.count,
    longestStreakDays: stats.streaks.longest?.days ?? null,
  };
}

/**
 * Someone's listening in a period, as their journey page shows it to the viewer: the journey's
 * own access rule (audience, blocks, hidden artists) and its own stats code for the same period
 * (loadJourneyStats), so the assistant never has numbers of its own.
 */
export async function getListening(options: {
  viewerId: string;
  /** A name or username; none for the person asking. */
  person?: string | null;
  period: PeriodSpec;
  now?: Date;
}): Promise<ListeningAnswer> {
  const { viewerId } = options;
  const person = options.person
    ? await findPerson({ viewerId, name: options.person })
    : await personById(viewerId);
  if (!person) return { state: "unknown_person", name: options.person ?? "" };
  const params = journeyParams(options.period);
  const view = await loadJourneyStats({ viewerId, ownerId: person.id, params, now: options.now });
  if (view.state === "hidden") {
    return {
      state: "hidden",
      person,
      audience: view.audience,
      message: hiddenJourneyMessage(person.displayName, view.audience),
    };
  }
  if (view.period.error) return { state: "bad_period", person, message: view.period.error };
  return {
    state: "shown",
    person,
    isOwner: view.isOwner,
    period: periodWords(options.period),
    journeyHref: `/u/${encodeURIComponent(person.username)}/journey${periodSearch(view.period)}`,
    ...shownStats(view.stats),
  };
}

async function personById(userId: string): Promise<Person | null> {
  const rows = rowsOf<{ id: string; username: string; display_name: string | null }>(
    await getDb().execute(sql`select ${profiles.userId} as id, ${profiles.username} as username,
      ${profiles.displayName} as display_name from ${profiles} where ${profiles.userId} = ${userId}`),
  );
  const row = rows[0];
  return row
    ? { id: row.id, username: row.username, displayName: row.display_name || row.username }
    : null;
}

/**
 * The person a name in a question means: a username (with or without @), a display name, a first
 * name or a near spelling of one; people the asker follows first. Banned accounts are nobody.
 */
export async function findPerson(options: {
  viewerId: string;
  name: string;
}): Promise<Person | null> {
  // "ben okafor", then "ben": a question's name may run into the words after it.
  const words = normalizeQuery(options.name.replace(/^@/, ""), 100).split(" ");
  for (let n = words.length; n > 0; n--) {
    const found = await personNamed(options.viewerId, words.slice(0, n).join(" "));
    if (found) return found;
  }
  return null;
}

async function personNamed(viewerId: string, name: string): Promise<Person | null> {
  if (!name) return null;
  const options = { viewerId };
  const rows = rowsOf<{ id: string; username: string; display_name: string | null }>(
    await getDb().execute(sql`
      with candidates as (
        select ${profiles.userId} as id, ${profiles.username} as username,
          ${profiles.displayName} as display_name,
          lower(${profiles.username}) = lower(${name}) as same_username,
          soundtrail_fold(coalesce(${profiles.displayName}, '')) = soundtrail_fold(${name}) as same_name,
          soundtrail_fold(coalesce(${profiles.displayName}, '')) like soundtrail_fold(${name}) || ' %' as first_name,
          greatest(similarity(soundtrail_fold(coalesce(${profiles.displayName}, '')), soundtrail_fold(${name})),
            similarity(lower(${profiles.username}), lower(${name}))) as score,
          exists (select 1 from ${follows} where ${follows.followerId} = ${options.viewerId}
            and ${follows.followeeId} = ${profiles.userId}) as followed
        from ${profiles}
        where not exists (select 1 from "user" u where u.id = ${profiles.userId} and u.banned)
      )
      select id, username, display_name from candidates
      where same_username or same_name or first_name or score >= 0.45
      order by same_username desc, same_name desc, followed desc, first_name desc, score desc, username
      limit 1`),
  );
  const row = rows[0];
  return row
    ? { id: row.id, username: row.username, displayName: row.display_name || row.username }
    : null;
}

/** What someone has been posting, as their profile shows it to the viewer (the same rule). */
export async function getPersonPosts(options: {
  viewerId: string;
  person: string;
  limit?: number;
}): Promise<
  | { state: "unknown_person"; name: string }
  | {
      state: "shown";
      person: Person;
      /** The viewer blocked them (their posts are hidden both ways, as the profile says). */
      youBlocked: boolean;
      postCount: number;
      posts: PostRef[];
    }
> {
  const { viewerId } = options;
  const person = await findPerson({ viewerId, name: options.person });
  if (!person) return { state: "unknown_person", name: options.person };
  const [profile, page] = await Promise.all([
    getProfile({ viewerId, username: person.username }),
    listProfilePosts({ viewerId, authorId: person.id, limit: options.limit ?? 5 }),
  ]);
  return {
    state: "shown",
    person,
    youBlocked: profile?.hasBlocked ?? false,
    postCount: profile?.postCount ?? 0,
    posts: page.posts.map((p) => ({
      id: p.id,
      kind: p.kind,
      title: p.title,
      artist: p.artist,
      createdAt: p.createdAt,
      author: { username: person.username, displayName: person.displayName },
    })),
  };
}

export interface FriendListening {
  username: string;
  displayName: string;
  artist: string;
  plays: number;
}

/**
 * What the people the person follows played most in the last 30 days: each one's journey as
 * the person may see it (its access rule, hidden artists left out, the same stats code), for up
 * to ten of them, the most recent listeners first.
 */
export async function getFriendsPlays(options: {
  viewerId: string;
  now?: Date;
}): Promise<{ friends: FriendListening[] }> {
  const { viewerId } = options;
  const rows = rowsOf<{ id: string; username: string; display_name: string | null }>(
    await getDb().execute(sql`
      select ${profiles.userId} as id, ${profiles.username} as username,
        ${profiles.displayName} as display_name
      from ${follows} join ${profiles} on ${profiles.userId} = ${follows.followeeId}
      cross join lateral (select max(l.listened_at) as last from ${listens} l
        where l.user_id = ${follows.followeeId}) latest
      where ${follows.followerId} = ${viewerId} and latest.last is not null
        and ${canSeeJourney(viewerId, follows.followeeId)}
      order by latest.last desc, ${profiles.username}
      limit 10`),
  );
  const period: PeriodSpec = { kind: "rolling", period: "month" };
  const friends: FriendListening[] = [];
  for (const row of rows) {
    const view = await loadJourneyStats({
      viewerId,
      ownerId: row.id,
      params: journeyParams(period),
      now: options.now,
    });
    const top = view.state === "shown" ? view.stats.topArtists[0] : undefined;
    if (!top) continue;
    friends.push({
      username: row.username,
      displayName: row.display_name || row.username,
      artist: top.name,
      plays: top.plays,
    });
  }
  friends.sort((a, b) => b.plays - a.plays || a.username.localeCompare(b.username));
  return { friends };
}
