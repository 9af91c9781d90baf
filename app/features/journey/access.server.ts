import { eq, sql } from "drizzle-orm";
import { publishLive } from "~/core/live-bus.server";
import { blockedBetween, canSeeJourney } from "~/core/visibility.server";
import { getDb } from "~/db/client.server";
import { follows, type JourneyAudience, journeySettings } from "~/db/schema";
import { queueJourneyAggregate } from "./aggregates.server";

export interface JourneySettings {
  audience: JourneyAudience;
  /** Artist keys (normalised) left out of what others see. */
  hiddenArtists: string[];
  nowPlayingPaused: boolean;
  recapsEnabled: boolean;
}

/** What a person who never changed anything has: followers see it, nothing hidden. */
export const DEFAULT_JOURNEY_SETTINGS: JourneySettings = {
  audience: "followers",
  hiddenArtists: [],
  nowPlayingPaused: false,
  recapsEnabled: true,
};

export async function getJourneySettings(options: { userId: string }): Promise<JourneySettings> {
  const [row] = await getDb()
    .select({
      audience: journeySettings.audience,
      hiddenArtists: journeySettings.hiddenArtists,
      nowPlayingPaused: journeySettings.nowPlayingPaused,
      recapsEnabled: journeySettings.recapsEnabled,
    })
    .from(journeySettings)
    .where(eq(journeySettings.userId, options.userId));
  return row ?? { ...DEFAULT_JOURNEY_SETTINGS };
}

/** What the viewer may see of someone's journey. */
export type JourneyAccess =
  | {
      allowed: true;
      isOwner: boolean;
      /** Artist keys to leave out of everything shown (empty for the owner). */
      hiddenArtists: string[];
      audience: JourneyAudience;
    }
  | {
      allowed: false;
      /** Who it is shared with, for the message ("… shares their journey with followers"). */
      audience: JourneyAudience;
    };

/**
 * THE journey visibility rule (one statement): the owner always; otherwise nobody across a block
 * (either way); `everyone` → anybody who can open the profile, signed out included; `followers`
 * → people with an accepted follow (a waiting request is not one); `only_me` → nobody else.
 * Others never see the artists the owner hid.
 */
export async function getJourneyAccess(options: {
  viewerId: string | null;
  ownerId: string;
}): Promise<JourneyAccess> {
  const { viewerId, ownerId } = options;
  const isOwner = viewerId === ownerId;
  const v = viewerId ?? "";
  const result = await getDb().execute(sql`select
      (select ${journeySettings.audience} from ${journeySettings} where ${journeySettings.userId} = ${ownerId}) as audience,
      (select ${journeySettings.hiddenArtists} from ${journeySettings} where ${journeySettings.userId} = ${ownerId}) as hidden_artists,
      ${viewerId ? blockedBetween(sql`${ownerId}`, sql`${v}`) : sql`false`} as is_blocked,
      exists (select 1 from ${follows} where ${follows.followerId} = ${v} and ${follows.followeeId} = ${ownerId}) as is_follower`);
  const row = (
    result as unknown as {
      rows: {
        audience: JourneyAudience | null;
        hidden_artists: string[] | null;
        is_blocked: boolean;
        is_follower: boolean;
      }[];
    }
  ).rows[0];
  const audience = row?.audience ?? DEFAULT_JOURNEY_SETTINGS.audience;
  if (isOwner) return { allowed: true, isOwner: true, hiddenArtists: [], audience };
  const isAllowed =
    !row?.is_blocked &&
    (audience === "everyone" || (audience === "followers" && Boolean(row?.is_follower)));
  if (!isAllowed) return { allowed: false, audience };
  return { allowed: true, isOwner: false, hiddenArtists: row?.hidden_artists ?? [], audience };
}

/** Saves the journey part of the privacy settings (one row per person, made on first save). */
export async function saveJourneySettings(
  options: { userId: string } & JourneySettings,
): Promise<void> {
  const values = {
    audience: options.audience,
    hiddenArtists: [...new Set(options.hiddenArtists)].slice(0, 100),
    nowPlayingPaused: options.nowPlayingPaused,
    recapsEnabled: options.recapsEnabled,
    updatedAt: new Date(),
  };
  await getDb().transaction(async (tx) => {
    // Friends' "listening now" strips follow a paused or resumed "now playing" live.
    await publishLive(tx, { t: "l", u: options.userId });
    await tx
      .insert(journeySettings)
      .values({ userId: options.userId, ...values })
      .onConflictDoUpdate({ target: journeySettings.userId, set: values });
    // The day totals without hidden artists follow the setting (the job sees whether it changed).
    await queueJourneyAggregate(tx, options.userId);
  });
}

// The journey rule as an SQL predicate lives in core (the realtime hub needs it too).
export { canSeeJourney };
