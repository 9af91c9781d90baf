import { and, eq, sql } from "drizzle-orm";
import { type DbOrTx, getDb } from "~/db/client.server";
import { emailPreferences, notificationPreferences, profiles } from "~/db/schema";
import type { UnsubscribeKind } from "~/features/mail/index.server";
import {
  isNotificationKind,
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

/** Turns one kind of mail on or off for a person. Returns false when the account is gone. */
export async function setEmailPreference(options: {
  userId: string;
  kind: UnsubscribeKind;
  isSubscribed: boolean;
}): Promise<boolean> {
  const { kind } = options;
  const db = getDb();
  const [exists] = await db
    .select({ userId: profiles.userId })
    .from(profiles)
    .where(eq(profiles.userId, options.userId));
  if (!exists) return false;
  if (isNotificationKind(kind)) {
    await setNotificationPreference({ userId: options.userId, kind, email: options.isSubscribed });
    return true;
  }
  await db
    .insert(emailPreferences)
    .values({ userId: options.userId, kind, isSubscribed: options.isSubscribed })
    .onConflictDoUpdate({
      target: [emailPreferences.userId, emailPreferences.kind],
      set: { isSubscribed: options.isSubscribed, updatedAt: sql`now()` },
    });
  return true;
}

/** Whether a person gets mail of `kind` (yes unless they turned it off). */
export async function isSubscribedTo(options: {
  userId: string;
  kind: UnsubscribeKind;
}): Promise<boolean> {
  const { kind } = options;
  if (isNotificationKind(kind)) {
    return (await getNotificationPreferences(options.userId))[kind].email;
  }
  const [row] = await getDb()
    .select({ isSubscribed: emailPreferences.isSubscribed })
    .from(emailPreferences)
    .where(and(eq(emailPreferences.userId, options.userId), eq(emailPreferences.kind, kind)));
  return row?.isSubscribed ?? true;
}
