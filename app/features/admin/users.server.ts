import { count, desc, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { publishLive } from "~/core/live-bus.server";
import { getDb, type Tx } from "~/db/client.server";
import { profiles, session, user } from "~/db/schema";
import { assertAdmin } from "./access.server";
import { recordAudit } from "./audit.server";
import { type Paged, pageInfo, pageOffset } from "./paging";

/** One row of the users table: every profile column plus the account's ban state. */
export interface AdminUserRow {
  userId: string;
  email: string | null;
  displayName: string | null;
  username: string;
  avatarUrl: string | null;
  roles: string[];
  createdAt: Date;
  isBanned: boolean;
  banReason: string | null;
}

/** Profiles newest first, 12 a page (spec §7). */
export async function listUsers(options: {
  actorId: string;
  page: number;
}): Promise<Paged<AdminUserRow>> {
  await assertAdmin(options.actorId);
  const db = getDb();
  const [totals] = await db.select({ total: count() }).from(profiles);
  const info = pageInfo(totals?.total ?? 0, options.page);
  const rows = await db
    .select({
      userId: profiles.userId,
      email: profiles.email,
      displayName: profiles.displayName,
      username: profiles.username,
      avatarUrl: profiles.avatarUrl,
      roles: profiles.roles,
      createdAt: profiles.createdAt,
      banned: user.banned,
      banReason: user.banReason,
    })
    .from(profiles)
    .innerJoin(user, eq(user.id, profiles.userId))
    .orderBy(desc(profiles.createdAt), desc(profiles.userId))
    .limit(info.pageSize)
    .offset(pageOffset(info));
  return {
    ...info,
    items: rows.map(({ banned, ...row }) => ({ ...row, isBanned: Boolean(banned) })),
  };
}

export const LAST_ADMIN =
  "You are the last admin. Make someone else an admin before you give up the role.";

/**
 * Grants or revokes the `admin` role. The last admin cannot revoke their own role (so there is
 * always one); the admins are locked while checking, so two admins stepping down together
 * cannot both succeed.
 */
export async function setUserAdmin(options: {
  actorId: string;
  userId: string;
  isAdmin: boolean;
}): Promise<"granted" | "revoked" | "unchanged"> {
  const actor = await assertAdmin(options.actorId);
  return getDb().transaction(async (tx) => {
    const admins = await tx
      .select({ userId: profiles.userId })
      .from(profiles)
      .where(sql`'admin' = any(${profiles.roles})`)
      .for("update");
    const [target] = await tx
      .select({ username: profiles.username, roles: profiles.roles })
      .from(profiles)
      .where(eq(profiles.userId, options.userId))
      .for("update");
    if (!target) throw new AppError("not_found", "That account does not exist.");
    if (target.roles.includes("admin") === options.isAdmin) return "unchanged";
    if (!options.isAdmin && admins.length <= 1) throw new AppError("conflict", LAST_ADMIN);
    await tx
      .update(profiles)
      .set({
        roles: options.isAdmin
          ? sql`array_append(array_remove(${profiles.roles}, 'admin'), 'admin')`
          : sql`array_remove(${profiles.roles}, 'admin')`,
      })
      .where(eq(profiles.userId, options.userId));
    await recordAudit(tx, actor, {
      action: options.isAdmin ? "user.grant_admin" : "user.revoke_admin",
      targetType: "user",
      targetId: options.userId,
      details: { username: target.username },
    });
    return options.isAdmin ? "granted" : "revoked";
  });
}

async function lockAccount(tx: Tx, userId: string): Promise<{ username: string }> {
  const [target] = await tx
    .select({ username: profiles.username })
    .from(user)
    .innerJoin(profiles, eq(profiles.userId, user.id))
    .where(eq(user.id, userId))
    .for("update", { of: user });
  if (!target) throw new AppError("not_found", "That account does not exist.");
  return target;
}

/**
 * Bans an account: marks it banned and ends every session it has, in one transaction, so the
 * person is signed out everywhere at once. An admin cannot ban themselves.
 */
export async function banUser(options: {
  actorId: string;
  userId: string;
  reason: string;
}): Promise<{ sessionsEnded: number }> {
  const actor = await assertAdmin(options.actorId);
  if (options.userId === actor.id) throw new AppError("invalid", "You cannot ban yourself.");
  return getDb().transaction(async (tx) => {
    const target = await lockAccount(tx, options.userId);
    await tx
      .update(user)
      .set({ banned: true, banReason: options.reason, banExpires: null })
      .where(eq(user.id, options.userId));
    const ended = await tx
      .delete(session)
      .where(eq(session.userId, options.userId))
      .returning({ id: session.id });
    await recordAudit(tx, actor, {
      action: "user.ban",
      targetType: "user",
      targetId: options.userId,
      details: { username: target.username, reason: options.reason, sessionsEnded: ended.length },
    });
    // Their open live streams end on every instance once this commits.
    await publishLive(tx, { t: "s", u: options.userId });
    return { sessionsEnded: ended.length };
  });
}

/** Lifts a ban. */
export async function unbanUser(options: { actorId: string; userId: string }): Promise<void> {
  const actor = await assertAdmin(options.actorId);
  await getDb().transaction(async (tx) => {
    const target = await lockAccount(tx, options.userId);
    await tx
      .update(user)
      .set({ banned: false, banReason: null, banExpires: null })
      .where(eq(user.id, options.userId));
    await recordAudit(tx, actor, {
      action: "user.unban",
      targetType: "user",
      targetId: options.userId,
      details: { username: target.username },
    });
  });
}
