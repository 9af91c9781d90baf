import { sql } from "drizzle-orm";
import { artistKey } from "~/core/music-keys";
import { getDb } from "~/db/client.server";
import { journeySettings, nowPlaying } from "~/db/schema";
import { canSeeJourney } from "./access.server";

/** What a profile shows while a person's player says it is playing. */
export interface NowPlayingTrack {
  artistName: string;
  trackName: string;
  releaseName: string | null;
  /** ISO times: when the player said so, and when it stops showing. */
  startedAt: string;
  expiresAt: string;
}

/**
 * The track `userId`'s player says is playing, when it has not run out, the person has not
 * paused "now playing", and the viewer may see their journey; else null. An artist the person
 * hid from others is shown to them alone. One statement.
 */
export async function getVisibleNowPlaying(options: {
  viewerId: string | null;
  userId: string;
}): Promise<NowPlayingTrack | null> {
  const [row] = await getDb()
    .select({
      artistName: nowPlaying.artistName,
      trackName: nowPlaying.trackName,
      releaseName: nowPlaying.releaseName,
      startedAt: nowPlaying.startedAt,
      expiresAt: nowPlaying.expiresAt,
      hiddenArtists: sql<
        string[] | null
      >`(select ${journeySettings.hiddenArtists} from ${journeySettings}
        where ${journeySettings.userId} = ${options.userId})`,
    })
    .from(nowPlaying)
    .where(
      sql`${nowPlaying.userId} = ${options.userId}
        and ${nowPlaying.expiresAt} > now()
        and not coalesce((select ${journeySettings.nowPlayingPaused} from ${journeySettings}
          where ${journeySettings.userId} = ${options.userId}), false)
        and ${canSeeJourney(options.viewerId, options.userId)}`,
    );
  if (!row) return null;
  const isHidden =
    options.viewerId !== options.userId &&
    (row.hiddenArtists ?? []).includes(artistKey(row.artistName));
  if (isHidden) return null;
  return {
    artistName: row.artistName,
    trackName: row.trackName,
    releaseName: row.releaseName,
    startedAt: row.startedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}
