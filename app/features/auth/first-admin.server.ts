import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { getDb, rowsOf } from "~/db/client.server";
import { appMeta, profiles } from "~/db/schema";

/** Where the one-time setup link's hash is kept (app_meta); gone once someone is admin. */
const SETUP_KEY = "first_admin_setup";

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/** Whether anyone holds the admin role. */
async function hasAdmin(): Promise<boolean> {
  const [row] = rowsOf<{ has_admin: boolean }>(
    await getDb().execute(
      sql`select exists (select 1 from ${profiles} where 'admin' = any(${profiles.roles})) as has_admin`,
    ),
  );
  return Boolean(row?.has_admin);
}

/**
 * At start, on an instance nobody administers yet: a new one-time setup token (its hash
 * stored, the token itself returned for the start line to print). Each start replaces the
 * last one, so only the newest printed link works. Once someone is admin: null, and any old
 * token is forgotten.
 */
export async function prepareFirstAdminSetup(): Promise<string | null> {
  if (await hasAdmin()) {
    await getDb().delete(appMeta).where(eq(appMeta.key, SETUP_KEY));
    return null;
  }
  const token = randomBytes(24).toString("base64url");
  const value = hashToken(token);
  await getDb()
    .insert(appMeta)
    .values({ key: SETUP_KEY, value })
    .onConflictDoUpdate({ target: appMeta.key, set: { value, updatedAt: new Date() } });
  return token;
}

export type FirstAdminCheck = "valid" | "invalid" | "taken";

function matches(stored: string | undefined, token: string): boolean {
  if (!stored || token.length < 16 || token.length > 100) return false;
  const a = Buffer.from(stored);
  const b = Buffer.from(hashToken(token));
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `token` is the current setup link ("taken" once someone is admin). */
export async function checkFirstAdminToken(token: string): Promise<FirstAdminCheck> {
  if (await hasAdmin()) return "taken";
  const [row] = await getDb()
    .select({ value: appMeta.value })
    .from(appMeta)
    .where(eq(appMeta.key, SETUP_KEY));
  return matches(row?.value, token) ? "valid" : "invalid";
}

/**
 * Makes `userId` the instance's first administrator with the setup link's token: only while
 * nobody is admin, only with the newest token, once (the token goes with it), never for a
 * guest account. One transaction, the token's row locked, so two people pressing at once
 * cannot both become admin.
 */
export async function claimFirstAdmin(options: {
  userId: string;
  isGuest: boolean;
  token: string;
}): Promise<FirstAdminCheck | "granted" | "guest"> {
  if (options.isGuest) return "guest";
  return getDb().transaction(async (tx) => {
    const [row] = rowsOf<{ value: string }>(
      await tx.execute(sql`select value from ${appMeta} where key = ${SETUP_KEY} for update`),
    );
    const [admin] = rowsOf<{ has_admin: boolean }>(
      await tx.execute(
        sql`select exists (select 1 from ${profiles} where 'admin' = any(${profiles.roles})) as has_admin`,
      ),
    );
    if (admin?.has_admin) return "taken";
    if (!matches(row?.value, options.token)) return "invalid";
    await tx
      .update(profiles)
      .set({
        roles: sql`array_append(array_remove(${profiles.roles}, 'admin'), 'admin')`,
      })
      .where(eq(profiles.userId, options.userId));
    await tx.delete(appMeta).where(eq(appMeta.key, SETUP_KEY));
    return "granted";
  });
}
