import { eq } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import type { Database, Tx } from "~/db/client.server";
import { getDb } from "~/db/client.server";
import { profiles, user } from "~/db/schema";
import { AdminError, NOT_ADMIN, NOT_SIGNED_IN } from "./errors";

/** A Drizzle transaction handle (what `db.transaction` passes to its callback). */

export interface AdminActor {
  id: string;
  username: string;
}

/**
 * Checks, against the database, that `actorId` is a signed-in admin who is not banned. Every
 * admin function calls it first, so no route can forget the check. Throws AdminError 401 or 403;
 * a failure to check counts as "not an admin" and is logged (spec §4).
 */
export async function assertAdmin(
  actorId: string | null | undefined,
  db: Database | Tx = getDb(),
): Promise<AdminActor> {
  if (!actorId) throw new AdminError(401, NOT_SIGNED_IN);
  let row: { username: string; roles: string[]; banned: boolean | null } | undefined;
  try {
    [row] = await db
      .select({ username: profiles.username, roles: profiles.roles, banned: user.banned })
      .from(user)
      .innerJoin(profiles, eq(profiles.userId, user.id))
      .where(eq(user.id, actorId));
  } catch (error) {
    logger.error({ err: error, userId: actorId }, "Failed to verify admin access");
    throw new AdminError(403, NOT_ADMIN);
  }
  if (!row) throw new AdminError(401, NOT_SIGNED_IN);
  if (row.banned || !row.roles.includes("admin")) throw new AdminError(403, NOT_ADMIN);
  return { id: actorId, username: row.username };
}
