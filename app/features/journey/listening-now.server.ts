import { sql } from "drizzle-orm";
import { artistKey } from "~/core/music-keys";
import { getDb, rowsOf } from "~/db/client.server";
import { follows, journeySettings, nowPlaying, profiles } from "~/db/schema";
import { canSeeJourney } from "./access.server";

/** One friend in the feed's "listening now" strip. */
export interface ListeningNowEntry {
  userId: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  artistName: string;
  trackName: string;
  releaseName: string | null;
  /** ISO time the track stops showing (the strip refreshes then). */
  expiresAt: string;
}

/** Friends the strip shows at most. */
export const LISTENING_NOW_LIMIT = 12;

/**
 * The people the viewer follows whose player says something is playing now, newest first, as
 * the profile shows it: not run out, "now playing" not paused, the viewer allowed to see their
 * journey (audience, blocks either way — the journey rule, `canSeeJourney`), and not an artist
 * they hid from others. One statement.
 */
export async function listListeningNow(options: {
  viewerId: string;
  limit?: number;
}): Promise<ListeningNowEntry[]> {
  const { viewerId } = options;
  const limit = Math.min(options.limit ?? LISTENING_NOW_LIMIT, LISTENING_NOW_LIMIT);
  const rows = rowsOf<{
    user_id: string;
    username: string;
    display_name: string;
    avatar_url: string | null;
    artist_name: string;
    track_name: string;
    release_name: string | null;
    expires_at: Date | string;
    hidden_artists: string[] | null;
  }>(
    await getDb().execute(sql`
      select np.user_id, pr.username, pr.display_name, pr.avatar_url,
        np.artist_name, np.track_name, np.release_name, np.expires_at,
        js.hidden_artists
      from ${nowPlaying} np
      join ${follows} f on f.follower_id = ${viewerId} and f.followee_id = np.user_id
      join ${profiles} pr on pr.user_id = np.user_id
      left join ${journeySettings} js on js.user_id = np.user_id
      where np.expires_at > now()
        and not coalesce(js.now_playing_paused, false)
        and ${canSeeJourney(viewerId, sql`np.user_id`)}
      order by np.started_at desc, np.user_id
      limit ${limit * 2}`),
  );
  return rows
    .filter((row) => !(row.hidden_artists ?? []).includes(artistKey(row.artist_name)))
    .slice(0, limit)
    .map((row) => ({
      userId: row.user_id,
      username: row.username,
      displayName: row.display_name,
      avatarUrl: row.avatar_url,
      artistName: row.artist_name,
      trackName: row.track_name,
      releaseName: row.release_name,
      expiresAt: new Date(row.expires_at).toISOString(),
    }));
}
