import { eq } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { logger } from "~/core/logger.server";
import type { Database, Tx } from "~/db/client.server";
import { getDb } from "~/db/client.server";
import { profiles, user } from "~/db/schema";
import { NOT_ADMIN, NOT_SIGNED_IN } from "./errors";

/** A Drizzle transaction handle (what `db.transaction` passes to its callback). */

export interface AdminActor {
  id: string;
  username: string;
}

/**
 * Checks, against the database, that `actorId` is a signed-in admin who is not banned. Every
 * admin function calls it first, so no route can forget the check. Throws AppError `unauthenticated` or `forbidden`;
 * a failure to check counts as "not an admin" and is logged (spec §4).
 */
export async function assertAdmin(
  actorId: string | null | undefined,
  db: Database | Tx = getDb(),
): Promise<AdminActor> {
  if (!actorId) throw new AppError("unauthenticated", NOT_SIGNED_IN);
  let row: { username: string; roles: string[]; banned: boolean | null } | undefined;
  try {
    [row] = await db
      .select({ username: profiles.username, roles: profiles.roles, banned: user.banned })
      .from(user)
      .innerJoin(profiles, eq(profiles.userId, user.id))
      .where(eq(user.id, actorId));
  } catch (error) {
    logger.error({ err: error, userId: actorId }, "Failed to verify admin access");
    throw new AppError("forbidden", NOT_ADMIN);
  }
  if (!row) throw new AppError("unauthenticated", NOT_SIGNED_IN);
  if (row.banned || !row.roles.includes("admin")) throw new AppError("forbidden", NOT_ADMIN);
  return { id: actorId, username: row.username };
}
