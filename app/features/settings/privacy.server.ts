import { desc, eq } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { blocks, profiles } from "~/db/schema";
import { acceptAllFollowRequests } from "~/features/follows/requests.server";
import { AUDIENCES, type Audience } from "~/features/posts/constants";
import { AppError } from "~/lib/errors";
import type { PrivacyInput } from "./schemas";

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
      id: profiles.userId,
      username: profiles.username,
      displayName: profiles.displayName,
      avatarUrl: profiles.avatarUrl,
      blockedAt: blocks.createdAt,
    })
    .from(blocks)
    .innerJoin(profiles, eq(profiles.userId, blocks.blockedId))
    .where(eq(blocks.blockerId, options.viewerId))
    .orderBy(desc(blocks.createdAt))
    .limit(500);
  return rows.map((row) => ({
    ...row,
    displayName: row.displayName || row.username,
    blockedAt: row.blockedAt.toISOString(),
  }));
}
