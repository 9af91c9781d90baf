import { and, desc, gte, lt, sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { listens } from "~/db/schema";
import { cachedByListens } from "./cache.server";
import { periodKeyStats, planPeriod } from "./period-stats.server";
import { isDayStart } from "./stats.server";

const DAY_MS = 86_400_000;
/** How many of each person's top artists the match compares. */
export const TASTE_TOP_N = 50;
/** Below this share of the viewer's plays an artist counts as one they "rarely play". */
export const RARELY_SHARE = 0.005;

/** The formula in one sentence, shown next to the number. */
export const TASTE_FORMULA =
  "Cosine similarity of each person's top 50 artists over the last 12 months, weighted by each artist's share of their plays: 100% means the same artists in the same proportions, 0% no artist in common.";

export interface ArtistShare {
  key: string;
  name: string;
  plays: number;
  /** Plays of this artist / plays of the person's top artists. */
  share: number;
}

export interface TasteMatch {
  /** 0–100, rounded. */
  percent: number;
  /** Artists both play, by how much each adds to the match (their contributions sum to it). */
  shared: { name: string; contribution: number; theirShare: number; yourShare: number }[];
  /** Their top artists the viewer rarely or never plays. */
  differences: { name: string; theirShare: number; yourShare: number }[];
  /** Plays each side had in the window (for "not enough to compare"). */
  yourPlays: number;
  theirPlays: number;
}

/** Someone's top artists in [start, end) as shares of the plays of those artists. */
export async function topArtistShares(options: {
  userId: string;
  start: Date;
  end: Date;
  hiddenArtists?: string[];
  limit?: number;
}): Promise<ArtistShare[]> {
  const hidden = options.hiddenArtists ?? [];
  const limit = options.limit ?? TASTE_TOP_N;
  const rows =
    isDayStart(options.start) && isDayStart(options.end)
      ? (
          await periodKeyStats({
            plan: await planPeriod({
              userId: options.userId,
              startDay: options.start.toISOString().slice(0, 10),
              endDay: options.end.toISOString().slice(0, 10),
              hidden,
            }),
            startDay: options.start.toISOString().slice(0, 10),
            endDay: options.end.toISOString().slice(0, 10),
            limit,
            artistsOnly: true,
          })
        ).artists
      : await topArtistSharesFromPlays({ ...options, hidden, limit });
  const total = rows.reduce((sum, r) => sum + Number(r.plays), 0);
  return rows.map((r) => ({
    key: r.key,
    name: r.name,
    plays: Number(r.plays),
    share: total > 0 ? Number(r.plays) / total : 0,
  }));
}

/** The same top artists from every play of the period (a period not on day boundaries). */
export async function topArtistSharesFromPlays(options: {
  userId: string;
  start: Date;
  end: Date;
  hidden: string[];
  limit: number;
}): Promise<{ key: string; name: string; plays: number }[]> {
  const { hidden } = options;
  return getDb()
    .select({
      key: listens.artistKey,
      name: sql<string>`mode() within group (order by ${listens.artistName})`,
      plays: sql<number>`count(*)::int`,
    })
    .from(listens)
    .where(
      and(
        sql`${listens.userId} = ${options.userId}`,
        gte(listens.listenedAt, options.start),
        lt(listens.listenedAt, options.end),
        hidden.length > 0
          ? sql`${listens.artistKey} not in (select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb))`
          : undefined,
      ),
    )
    .groupBy(listens.artistKey)
    .orderBy(desc(sql`count(*)`), listens.artistKey)
    .limit(options.limit);
}

/**
 * The match between two lists of artist shares: cos(a, b) = Σ aᵢ·bᵢ / (‖a‖·‖b‖) over artist keys.
 * Each shared artist contributes aᵢ·bᵢ / (‖a‖·‖b‖), so the contributions add up to the match.
 */
export function compareTastes(yours: ArtistShare[], theirs: ArtistShare[]): TasteMatch {
  const norm = (list: ArtistShare[]) => Math.sqrt(list.reduce((s, a) => s + a.share * a.share, 0));
  const denominator = norm(yours) * norm(theirs);
  const mine = new Map(yours.map((a) => [a.key, a]));
  const shared = theirs
    .filter((a) => mine.has(a.key))
    .map((a) => {
      const y = mine.get(a.key) as ArtistShare;
      return {
        name: a.name,
        contribution: denominator > 0 ? (a.share * y.share) / denominator : 0,
        theirShare: a.share,
        yourShare: y.share,
      };
    })
    .sort((a, b) => b.contribution - a.contribution || a.name.localeCompare(b.name));
  const similarity = shared.reduce((s, a) => s + a.contribution, 0);
  const differences = theirs
    .filter((a) => (mine.get(a.key)?.share ?? 0) < RARELY_SHARE)
    .map((a) => ({ name: a.name, theirShare: a.share, yourShare: mine.get(a.key)?.share ?? 0 }))
    .slice(0, 5);
  return {
    percent: Math.round(Math.min(1, similarity) * 100),
    shared: shared.slice(0, 5),
    differences,
    yourPlays: yours.reduce((s, a) => s + a.plays, 0),
    theirPlays: theirs.reduce((s, a) => s + a.plays, 0),
  };
}

/**
 * The taste match of the viewer with someone whose journey the viewer may see (the caller checks
 * that), over the 365 days before `now`; their hidden artists are left out.
 */
export async function getTasteMatch(options: {
  viewerId: string;
  otherId: string;
  otherHiddenArtists: string[];
  now?: Date;
}): Promise<TasteMatch> {
  const now = options.now ?? new Date();
  const end = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  const start = new Date(end.getTime() - 365 * DAY_MS);
  const shares = (userId: string, hiddenArtists: string[]) =>
    cachedByListens(
      userId,
      ["shares", start.toISOString(), end.toISOString(), [...hiddenArtists].sort()],
      () => topArtistShares({ userId, start, end, hiddenArtists }),
    );
  const [yours, theirs] = await Promise.all([
    shares(options.viewerId, []),
    shares(options.otherId, options.otherHiddenArtists),
  ]);
  return compareTastes(yours, theirs);
}
