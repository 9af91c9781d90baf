import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { profiles } from "~/db/schema";

/** Spec: 3–30 letters, digits, `_` or `.`. */
export const USERNAME_PATTERN = /^[A-Za-z0-9_.]{3,30}$/;

/** True when nobody has `username` yet (case-insensitive). */
export async function isUsernameAvailable(username: string): Promise<boolean> {
  const rows = await getDb()
    .select({ userId: profiles.userId })
    .from(profiles)
    .where(eq(sql`lower(${profiles.username})`, username.toLowerCase()))
    .limit(1);
  return rows.length === 0;
}

function suggestUsername(seed: string): string {
  const base = seed
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, "")
    .slice(0, 20);
  return `${base.length >= 3 ? base : "listener"}_${randomBytes(3).toString("hex")}`;
}

export interface CreateProfileOptions {
  userId: string;
  email: string | null;
  displayName: string | null;
  username?: string | null;
}

/**
 * Creates the profile of a new account. A chosen username that was taken in the meantime (or
 * none, for guests and OAuth) gets a generated one the person can change later.
 */
export async function createProfile(options: CreateProfileOptions): Promise<void> {
  const db = getDb();
  const wanted =
    options.username && USERNAME_PATTERN.test(options.username) ? options.username : null;
  for (let attempt = 0; attempt < 5; attempt++) {
    const username =
      attempt === 0 && wanted
        ? wanted
        : suggestUsername(wanted ?? options.displayName ?? "listener");
    const inserted = await db
      .insert(profiles)
      .values({
        userId: options.userId,
        email: options.email,
        displayName: options.displayName,
        username,
      })
      .onConflictDoNothing()
      .returning({ userId: profiles.userId });
    if (inserted.length > 0) return;
    const existing = await db
      .select({ userId: profiles.userId })
      .from(profiles)
      .where(eq(profiles.userId, options.userId));
    if (existing.length > 0) return;
  }
  logger.error({ userId: options.userId }, "could not create a profile");
  throw new Error("Could not create a profile for the new account");
}
