import { and, eq, sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { type JourneyAudience, listens } from "~/db/schema";
import { getJourneyAccess } from "./access.server";
import { type ResolvedPeriod, resolvePeriod } from "./period";
import { getJourneyStats, type JourneyStats, type RankedArtist } from "./stats.server";
import { getTasteMatch, type TasteMatch } from "./taste.server";
import { listPostsInPeriod, type TimelinePost } from "./timeline.server";

const DAY_MS = 86_400_000;

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
  const { start, end, ...period } = resolvePeriod(options.params, options.now);
  const stats = await getJourneyStats({
    userId: owner.id,
    start,
    end,
    hiddenArtists: access.hiddenArtists,
    now: options.now,
  });
  const postStart = start ?? new Date(`${stats.start ?? stats.end}T00:00:00Z`);
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
  return { state: "shown", owner, isOwner: access.isOwner, period, stats, posts, taste };
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
  const end = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  const start = new Date(end.getTime() - 30 * DAY_MS);
  const hidden = access.hiddenArtists;
  const notHidden =
    hidden.length > 0
      ? sql`${listens.artistKey} not in (select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb))`
      : sql`true`;
  const [rows, taste] = await Promise.all([
    getDb().execute(sql`select ${listens.artistKey} as key,
        mode() within group (order by ${listens.artistName}) as name, count(*)::int as plays,
        sum(count(*)) over ()::int as total
      from ${listens}
      where ${listens.userId} = ${owner.id} and ${listens.listenedAt} >= ${start.toISOString()}::timestamptz
        and ${listens.listenedAt} < ${end.toISOString()}::timestamptz and ${notHidden}
      group by ${listens.artistKey} order by plays desc, key limit 5`),
    viewerId && !access.isOwner
      ? getTasteMatch({ viewerId, otherId: owner.id, otherHiddenArtists: hidden, now })
      : Promise.resolve(null),
  ]);
  const list = (rows as unknown as { rows: Record<string, unknown>[] }).rows;
  return {
    state: "shown",
    owner,
    isOwner: access.isOwner,
    plays: Number(list[0]?.total ?? 0),
    topArtists: list.map((r) => ({
      key: String(r.key),
      name: String(r.name),
      plays: Number(r.plays),
    })),
    taste,
  };
}
