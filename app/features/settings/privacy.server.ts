import { desc, eq } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { queueFederationEvent } from "~/core/federation-events.server";
import { artistKey } from "~/core/music-keys";
import { withShownName } from "~/core/person";
import { personColumns } from "~/core/person.server";
import { getDb } from "~/db/client.server";
import { blocks, profiles } from "~/db/schema";
import { acceptAllFollowRequests } from "~/features/follows/index.server";
import {
  getJourneySettings,
  type JourneySettings,
  latestArtistNames,
  saveJourneySettings,
  topArtistShares,
} from "~/features/journey/index.server";
import { AUDIENCES, type Audience } from "~/features/posts";
import { HIDDEN_ARTISTS_MAX, type JourneyPrivacyInput, type PrivacyInput } from "./schemas";

export interface PrivacySettings {
  defaultAudience: Audience;
  requiresFollowApproval: boolean;
  isDiscoverable: boolean;
}

/** What the privacy form starts from. */
export async function getPrivacySettings(options: { userId: string }): Promise<PrivacySettings> {
  const [row] = await getDb()
    .select({
      defaultAudience: profiles.defaultAudience,
      requiresFollowApproval: profiles.requiresFollowApproval,
      isDiscoverable: profiles.isDiscoverable,
    })
    .from(profiles)
    .where(eq(profiles.userId, options.userId));
  if (!row) throw new AppError("not_found", "Your profile could not be found.");
  return row;
}

/**
 * Saves the default audience for new posts, whether new followers need approval, and whether
 * the person appears in search and suggestions. Turning approval off accepts every waiting
 * request (those people asked to follow; now anyone may), in the same transaction. Returns how
 * many requests that accepted.
 */
export async function savePrivacySettings(
  options: { userId: string } & PrivacyInput,
): Promise<{ accepted: number }> {
  if (!(AUDIENCES as readonly string[]).includes(options.defaultAudience)) {
    throw new AppError("invalid", "Choose who sees your new posts.");
  }
  return getDb().transaction(async (tx) => {
    const updated = await tx
      .update(profiles)
      .set({
        defaultAudience: options.defaultAudience,
        requiresFollowApproval: options.requiresFollowApproval,
        isDiscoverable: options.isDiscoverable,
      })
      .where(eq(profiles.userId, options.userId))
      .returning({ userId: profiles.userId });
    if (updated.length === 0) throw new AppError("not_found", "Your profile could not be found.");
    const accepted = options.requiresFollowApproval
      ? 0
      : await acceptAllFollowRequests(tx, options.userId);
    // Other servers show whether followers are approved (manuallyApprovesFollowers).
    await queueFederationEvent(tx, { type: "profileUpdated", userId: options.userId });
    return { accepted };
  });
}

export interface BlockedPerson {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  blockedAt: string;
}

/** Everyone the viewer blocked, most recent first (capped: a settings list, not a feed). */
export async function listBlockedPeople(options: { viewerId: string }): Promise<BlockedPerson[]> {
  const rows = await getDb()
    .select({
      ...personColumns,
      blockedAt: blocks.createdAt,
    })
    .from(blocks)
    .innerJoin(profiles, eq(profiles.userId, blocks.blockedId))
    .where(eq(blocks.blockerId, options.viewerId))
    .orderBy(desc(blocks.createdAt))
    .limit(500);
  return rows.map((row) => ({
    ...withShownName(row),
    blockedAt: row.blockedAt.toISOString(),
  }));
}

export interface JourneyPrivacy extends JourneySettings {
  /** The hidden artists with the name the person played them under (the key if never played). */
  hidden: { key: string; name: string }[];
  /** Their most played artists of the last 90 days, to pick one to hide. */
  suggestions: string[];
}

/** The Journey fieldset's starting point: the settings (defaults without a row) and choices. */
export async function getJourneyPrivacy(options: {
  userId: string;
  now?: Date;
}): Promise<JourneyPrivacy> {
  const settings = await getJourneySettings({ userId: options.userId });
  const end = options.now ?? new Date();
  const [byKey, top] = await Promise.all([
    latestArtistNames({ userId: options.userId, keys: settings.hiddenArtists }),
    topArtistShares({
      userId: options.userId,
      start: new Date(end.getTime() - 90 * 86_400_000),
      end,
      limit: 20,
    }),
  ]);
  const hidden = new Set(settings.hiddenArtists);
  return {
    ...settings,
    hidden: settings.hiddenArtists.map((key) => ({ key, name: byKey.get(key) ?? key })),
    suggestions: top.filter((a) => !hidden.has(a.key)).map((a) => a.name),
  };
}

/**
 * Saves who sees the journey and what is left out. The kept hidden artists arrive as keys, a new
 * one as a name (typed or picked), stored as its key so every spelling of it is hidden.
 */
export async function saveJourneyPrivacy(
  options: { userId: string } & JourneyPrivacyInput,
): Promise<{ added: string | null }> {
  const keys = [...new Set(options.hiddenArtists.map((k) => k.trim()).filter(Boolean))];
  const added = options.addArtist ? artistKey(options.addArtist) : null;
  if (added && !keys.includes(added)) keys.push(added);
  if (keys.length > HIDDEN_ARTISTS_MAX) {
    throw new AppError("invalid", `Hide at most ${HIDDEN_ARTISTS_MAX} artists.`);
  }
  await saveJourneySettings({
    userId: options.userId,
    audience: options.journeyAudience,
    hiddenArtists: keys,
    nowPlayingPaused: options.nowPlayingPaused,
    recapsEnabled: options.recapsEnabled,
  });
  return { added: added ? options.addArtist : null };
}

/** Stops hiding one artist (by key), leaving the other journey settings as they are. */
export async function unhideJourneyArtist(options: {
  userId: string;
  artistKey: string;
}): Promise<void> {
  const settings = await getJourneySettings({ userId: options.userId });
  await saveJourneySettings({
    userId: options.userId,
    ...settings,
    hiddenArtists: settings.hiddenArtists.filter((key) => key !== options.artistKey),
  });
}
