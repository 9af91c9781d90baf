import { and, eq, sql } from "drizzle-orm";
import { artistKey, titleKey } from "~/core/music-keys";
import { getDb } from "~/db/client.server";
import { listens, nowPlaying } from "~/db/schema";
import { queueJourneyAggregate } from "../aggregates.server";
import { publishListenChange } from "./live.server";
import type { ValidListen } from "./validate";

/** Longest name the history keeps (its check constraint); ListenBrainz sets no such limit. */
const NAME_MAX = 512;
/** How long "now playing" shows when the player does not say how long the track is. */
export const PLAYING_NOW_MAX_DURATION_SECONDS = 10 * 60;

/** Cuts a name to NAME_MAX characters (code points, as Postgres counts them). */
function clipName(name: string): string {
  const chars = Array.from(name);
  return chars.length > NAME_MAX ? chars.slice(0, NAME_MAX).join("").trim() : name;
}

/**
 * Adds played listens (`single`, `import`) to the person's history. A listen already there
 * (same person, second, artist and track) is left alone, so a player that retries, or sends
 * the same listens again, adds nothing twice. Returns how many were new.
 */
export async function recordListens(options: {
  userId: string;
  listens: ValidListen[];
}): Promise<number> {
  const rows = options.listens.flatMap((listen) => {
    if (listen.listenedAt === null) return [];
    const artistName = clipName(listen.artistName);
    const trackName = clipName(listen.trackName);
    const releaseName = listen.releaseName ? clipName(listen.releaseName) : null;
    return [
      {
        userId: options.userId,
        listenedAt: new Date(listen.listenedAt * 1000),
        durationMs: listen.durationMs,
        artistName,
        trackName,
        releaseName,
        artistKey: artistKey(artistName),
        trackKey: titleKey(trackName),
        releaseKey: releaseName ? titleKey(releaseName) : null,
        source: "scrobble" as const,
      },
    ];
  });
  if (rows.length === 0) return 0;
  const inserted = await getDb().transaction(async (tx) => {
    const added = await tx
      .insert(listens)
      .values(rows)
      .onConflictDoNothing({
        target: [listens.userId, listens.listenedAt, listens.artistKey, listens.trackKey],
      })
      .returning({ id: listens.id });
    // The journey's aggregates follow within seconds (one waiting job per person).
    if (added.length > 0) {
      await queueJourneyAggregate(tx, options.userId);
      // The person's open profile shows them (delivered on commit).
      await publishListenChange(tx, {
        userId: options.userId,
        artistKeys: [...new Set(rows.map((row) => row.artistKey))],
      });
    }
    return added;
  });
  return inserted.length;
}

/**
 * What the person's player says is playing. As ListenBrainz does, the same track sent again
 * while it still shows changes nothing; another track replaces it. It shows for the track's
 * length when the player gives it, else ten minutes.
 */
export async function recordPlayingNow(options: {
  userId: string;
  listen: ValidListen;
}): Promise<{ artistName: string; trackName: string; releaseName: string | null }> {
  const { listen } = options;
  const seconds = listen.durationMs
    ? Math.floor(listen.durationMs / 1000)
    : PLAYING_NOW_MAX_DURATION_SECONDS;
  const artistName = clipName(listen.artistName);
  const trackName = clipName(listen.trackName);
  const releaseName = listen.releaseName ? clipName(listen.releaseName) : null;
  const written = await getDb()
    .insert(nowPlaying)
    .values({
      userId: options.userId,
      artistName,
      trackName,
      releaseName,
      durationMs: listen.durationMs,
      startedAt: sql`now()`,
      expiresAt: sql`now() + make_interval(secs => ${Math.max(1, seconds)})`,
    })
    .onConflictDoUpdate({
      target: nowPlaying.userId,
      set: {
        artistName: sql`excluded.artist_name`,
        trackName: sql`excluded.track_name`,
        releaseName: sql`excluded.release_name`,
        durationMs: sql`excluded.duration_ms`,
        startedAt: sql`excluded.started_at`,
        expiresAt: sql`excluded.expires_at`,
      },
      setWhere: sql`${nowPlaying.expiresAt} <= now()
        or ${nowPlaying.trackName} <> excluded.track_name
        or ${nowPlaying.artistName} <> excluded.artist_name`,
    })
    .returning({ userId: nowPlaying.userId });
  // The same track sent again changes nothing, and tells nobody.
  if (written.length > 0) {
    await publishListenChange(getDb(), {
      userId: options.userId,
      artistKeys: [artistKey(artistName)],
      isNowPlaying: true,
    });
  }
  return { artistName, trackName, releaseName };
}

/** Ends what shows as "now playing" (ListenBrainz's `playing-now/delete`); false when none. */
export async function clearPlayingNow(options: { userId: string }): Promise<boolean> {
  const removed = await getDb()
    .delete(nowPlaying)
    .where(and(eq(nowPlaying.userId, options.userId), sql`${nowPlaying.expiresAt} > now()`))
    .returning({ userId: nowPlaying.userId, artistName: nowPlaying.artistName });
  const [cleared] = removed;
  if (cleared) {
    await publishListenChange(getDb(), {
      userId: options.userId,
      artistKeys: [artistKey(cleared.artistName)],
      isNowPlaying: true,
    });
  }
  return removed.length > 0;
}

/**
 * A played listen of the track that shows as "now playing" ends it: the player has moved on
 * from it (or will say what is next).
 */
export async function clearPlayingNowFor(options: {
  userId: string;
  listen: ValidListen;
}): Promise<void> {
  const [current] = await getDb()
    .select({ artistName: nowPlaying.artistName, trackName: nowPlaying.trackName })
    .from(nowPlaying)
    .where(eq(nowPlaying.userId, options.userId));
  if (!current) return;
  const isSameTrack =
    artistKey(current.artistName) === artistKey(clipName(options.listen.artistName)) &&
    titleKey(current.trackName) === titleKey(clipName(options.listen.trackName));
  if (!isSameTrack) return;
  const removed = await getDb()
    .delete(nowPlaying)
    .where(
      and(
        eq(nowPlaying.userId, options.userId),
        eq(nowPlaying.artistName, current.artistName),
        eq(nowPlaying.trackName, current.trackName),
      ),
    )
    .returning({ userId: nowPlaying.userId });
  if (removed.length > 0) {
    await publishListenChange(getDb(), {
      userId: options.userId,
      artistKeys: [artistKey(current.artistName)],
      isNowPlaying: true,
    });
  }
}
