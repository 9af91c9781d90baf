import { desc, eq } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { blocks, profiles } from "~/db/schema";

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
