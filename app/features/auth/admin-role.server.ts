import { eq, sql } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { profiles, user } from "~/db/schema";

export type SetAdminRoleResult = "granted" | "revoked" | "unchanged" | "no-such-account";

/** Grants or revokes the `admin` role of the account with `email` (for the command line). */
export async function setAdminRole(options: {
  email: string;
  isAdmin: boolean;
}): Promise<SetAdminRoleResult> {
  const db = getDb();
  const [account] = await db
    .select({ id: user.id, roles: profiles.roles })
    .from(user)
    .innerJoin(profiles, eq(profiles.userId, user.id))
    .where(eq(sql`lower(${user.email})`, options.email.trim().toLowerCase()));
  if (!account) return "no-such-account";
  if (account.roles.includes("admin") === options.isAdmin) return "unchanged";
  await db
    .update(profiles)
    .set({
      roles: options.isAdmin
        ? sql`array_append(array_remove(${profiles.roles}, 'admin'), 'admin')`
        : sql`array_remove(${profiles.roles}, 'admin')`,
    })
    .where(eq(profiles.userId, account.id));
  return options.isAdmin ? "granted" : "revoked";
}

/**
 * Whether `userId` holds the admin role, read from the database now. Any failure counts as
 * "not admin" and is logged, so an outage can never open the admin area.
 */
export async function verifyAdminAccess(userId: string): Promise<boolean> {
  try {
    const [row] = await getDb()
      .select({ roles: profiles.roles })
      .from(profiles)
      .where(eq(profiles.userId, userId));
    return Array.isArray(row?.roles) && row.roles.includes("admin");
  } catch (error) {
    logger.error({ err: error, userId }, "Failed to verify admin access");
    return false;
  }
}
