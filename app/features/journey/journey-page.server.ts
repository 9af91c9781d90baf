import { and, eq, sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { type JourneyAudience, listens } from "~/db/schema";
import { getJourneyAccess, getJourneySettings } from "./access.server";
import { type Chapter, listChapters, syncChapters } from "./chapters.server";
import { type ResolvedPeriod, resolvePeriod } from "./period";
import { getJourneyStats, type JourneyStats, type RankedArtist } from "./stats.server";
import { getTasteMatch, type TasteMatch } from "./taste.server";
import { listPostsInPeriod, type TimelinePost } from "./timeline.server";

export interface JourneyOwner {
  id: string;
  username: string;
  displayName: string;
}

/** The owner fields a journey view carries (not the whole profile). */
export function ownerOf(profile: JourneyOwner): JourneyOwner {
  return { id: profile.id, username: profile.username, displayName: profile.displayName };
}

/** What a journey page or section shows; `hidden` carries only the audience for the message. */
export type JourneyView =
  | { state: "hidden"; owner: JourneyOwner; audience: JourneyAudience }
  | { state: "empty"; owner: JourneyOwner; isOwner: boolean }
  | {
      state: "shown";
      owner: JourneyOwner;
      isOwner: boolean;
      period: Omit<ResolvedPeriod, "start" | "end">;
      stats: JourneyStats;
      posts: { posts: TimelinePost[]; days: { day: string; posts: number }[] };
      taste: TasteMatch | null;
      /** Shown from two chapters on (one is the whole history). */
      chapters: Chapter[];
      /** Recap cards: whether the owner allows them, and the journey's audience (the default for posting one). */
      recaps: { enabled: boolean; audience: JourneyAudience };
    };

async function hasPlays(userId: string, hidden: string[]): Promise<boolean> {
  const [row] = await getDb()
    .select({ one: sql<number>`1` })
    .from(listens)
    .where(
      and(
        eq(listens.userId, userId),
        hidden.length > 0
          ? sql`${listens.artistKey} not in (select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb))`
          : undefined,
      ),
    )
    .limit(1);
  return Boolean(row);
}

/** A period's stats as the journey page computes them: the period from `params`, then the stats. */
async function periodStatsOf(options: {
  ownerId: string;
  hiddenArtists: string[];
  params: URLSearchParams;
  now?: Date;
}) {
  const { start, end, ...period } = resolvePeriod(options.params, options.now);
  const stats = await getJourneyStats({
    userId: options.ownerId,
    start,
    end,
    hiddenArtists: options.hiddenArtists,
    now: options.now,
  });
  return { start, end, period, stats };
}

/** A journey's stats for a period, as the viewer may see them (what other features read). */
export type JourneyStatsView =
  | { state: "hidden"; audience: JourneyAudience }
  | {
      state: "shown";
      isOwner: boolean;
      period: Omit<ResolvedPeriod, "start" | "end">;
      stats: JourneyStats;
    };

/**
 * The numbers of the journey page (`/u/<username>/journey` + `params`) without the rest of the
 * page: the same access rule (audience, blocks, hidden artists), the same period and the same
 * stats code, so whoever quotes them (the assistant) says what the page shows.
 */
export async function loadJourneyStats(options: {
  viewerId: string | null;
  ownerId: string;
  params: URLSearchParams;
  now?: Date;
}): Promise<JourneyStatsView> {
  const access = await getJourneyAccess({ viewerId: options.viewerId, ownerId: options.ownerId });
  if (!access.allowed) return { state: "hidden", audience: access.audience };
  const { period, stats } = await periodStatsOf({
    ownerId: options.ownerId,
    hiddenArtists: access.hiddenArtists,
    params: options.params,
    now: options.now,
  });
  return { state: "shown", isOwner: access.isOwner, period, stats };
}

/** The full journey of `owner` as the viewer may see it, for the period in `params`. */
export async function loadJourney(options: {
  viewerId: string | null;
  owner: JourneyOwner;
  params: URLSearchParams;
  now?: Date;
}): Promise<JourneyView> {
  const { viewerId, owner } = options;
  const access = await getJourneyAccess({ viewerId, ownerId: owner.id });
  if (!access.allowed) return { state: "hidden", owner, audience: access.audience };
  if (!(await hasPlays(owner.id, access.hiddenArtists))) {
    return { state: "empty", owner, isOwner: access.isOwner };
  }
  const { start, end, period, stats } = await periodStatsOf({
    ownerId: owner.id,
    hiddenArtists: access.hiddenArtists,
    params: options.params,
    now: options.now,
  });
  const postStart = start ?? new Date(`${stats.start ?? stats.end}T00:00:00Z`);
  const settings = await getJourneySettings({ userId: owner.id });
  const chapters = access.isOwner
    ? await syncChapters({ userId: owner.id, hiddenArtists: settings.hiddenArtists })
    : await listChapters({ userId: owner.id });
  const [posts, taste] = await Promise.all([
    listPostsInPeriod({ viewerId, authorId: owner.id, start: postStart, end }),
    viewerId && !access.isOwner
      ? getTasteMatch({
          viewerId,
          otherId: owner.id,
          otherHiddenArtists: access.hiddenArtists,
          now: options.now,
        })
      : Promise.resolve(null),
  ]);
  return {
    state: "shown",
    owner,
    isOwner: access.isOwner,
    period,
    stats,
    posts,
    taste,
    chapters: chapters.length >= 2 ? chapters : [],
    recaps: { enabled: settings.recapsEnabled, audience: access.audience },
  };
}

/** The profile's Journey section: the last 30 days' top artists and plays, and the taste match. */
export type JourneySummary =
  | { state: "hidden"; owner: JourneyOwner; audience: JourneyAudience }
  | { state: "empty"; owner: JourneyOwner; isOwner: boolean }
  | {
      state: "shown";
      owner: JourneyOwner;
      isOwner: boolean;
      plays: number;
      topArtists: RankedArtist[];
      taste: TasteMatch | null;
    };

export async function loadJourneySummary(options: {
  viewerId: string | null;
  owner: JourneyOwner;
  now?: Date;
}): Promise<JourneySummary> {
  const { viewerId, owner } = options;
  const access = await getJourneyAccess({ viewerId, ownerId: owner.id });
  if (!access.allowed) return { state: "hidden", owner, audience: access.audience };
  if (!(await hasPlays(owner.id, access.hiddenArtists))) {
    return { state: "empty", owner, isOwner: access.isOwner };
  }
  const now = options.now ?? new Date();
  // The journey page's default period (the last 30 days), so both share one cached result.
  const { start, end } = resolvePeriod(new URLSearchParams({ period: "month" }), now);
  const hidden = access.hiddenArtists;
  const [stats, taste] = await Promise.all([
    getJourneyStats({ userId: owner.id, start, end, hiddenArtists: hidden, now }),
    viewerId && !access.isOwner
      ? getTasteMatch({ viewerId, otherId: owner.id, otherHiddenArtists: hidden, now })
      : Promise.resolve(null),
  ]);
  return {
    state: "shown",
    owner,
    isOwner: access.isOwner,
    plays: stats.totals.plays,
    topArtists: stats.topArtists.slice(0, 5),
    taste,
  };
}
