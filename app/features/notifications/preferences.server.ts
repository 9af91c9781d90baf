import { eq, sql } from "drizzle-orm";
import { type DbOrTx, getDb } from "~/db/client.server";
import { notificationPreferences } from "~/db/schema";
import {
  NOTIFICATION_DEFAULTS,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationPreference,
} from "./kinds";

export type NotificationPreferences = Record<NotificationKind, NotificationPreference>;

export async function getNotificationPreferences(
  userId: string,
  db: DbOrTx = getDb(),
): Promise<NotificationPreferences> {
  const rows = await db
    .select()
    .from(notificationPreferences)
    .where(eq(notificationPreferences.userId, userId));
  const out = Object.fromEntries(
    NOTIFICATION_KINDS.map((kind) => [kind, { ...NOTIFICATION_DEFAULTS[kind] }]),
  ) as NotificationPreferences;
  for (const row of rows) out[row.kind] = { inApp: row.inApp, email: row.email };
  return out;
}

/** Sets one kind's preference; fields left out keep their current value. */
export async function setNotificationPreference(options: {
  userId: string;
  kind: NotificationKind;
  inApp?: boolean;
  email?: boolean;
}): Promise<NotificationPreference> {
  return getDb().transaction(async (tx) => {
    const current = (await getNotificationPreferences(options.userId, tx))[options.kind];
    const next = {
      inApp: options.inApp ?? current.inApp,
      email: options.email ?? current.email,
    };
    await tx
      .insert(notificationPreferences)
      .values({ userId: options.userId, kind: options.kind, ...next })
      .onConflictDoUpdate({
        target: [notificationPreferences.userId, notificationPreferences.kind],
        set: { ...next, updatedAt: sql`now()` },
      });
    return next;
  });
}
