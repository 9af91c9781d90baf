import { eq } from "drizzle-orm";
import { publishLive } from "~/core/live-bus.server";
import type { DbOrTx } from "~/db/client.server";
import { journeySettings } from "~/db/schema";

/**
 * Tells open pages that a person's listens or "now playing" changed (delivered on commit when
 * `db` is a transaction). The person's own pages are always told; others who may see the
 * journey (its audience, blocks: decided by the hub per connected reader) only when the change
 * is one they could see: not a "now playing" while it is paused, not listens all of artists the
 * person hides from others.
 */
export async function publishListenChange(
  db: DbOrTx,
  options: { userId: string; artistKeys: string[]; isNowPlaying?: boolean },
): Promise<void> {
  const [settings] = await db
    .select({
      hiddenArtists: journeySettings.hiddenArtists,
      nowPlayingPaused: journeySettings.nowPlayingPaused,
    })
    .from(journeySettings)
    .where(eq(journeySettings.userId, options.userId));
  const hidden = new Set(settings?.hiddenArtists ?? []);
  const isOwnerOnly =
    (options.isNowPlaying === true && settings?.nowPlayingPaused === true) ||
    (options.artistKeys.length > 0 && options.artistKeys.every((key) => hidden.has(key)));
  await publishLive(
    db,
    isOwnerOnly ? { t: "l", u: options.userId, o: 1 } : { t: "l", u: options.userId },
  );
}
