import { AppError } from "~/core/errors";
import {
  NOTIFICATION_KIND_LABELS,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationPreference,
} from "~/features/notifications";
import {
  getNotificationPreferences,
  isSubscribedTo,
  setEmailPreference,
  setNotificationPreference,
} from "~/features/notifications/index.server";

export interface NotificationSettings {
  kinds: ({ kind: NotificationKind; label: string } & NotificationPreference)[];
  /** Mail from the Soundtrail team (bulk e-mail); there is no in-app side. */
  announcements: boolean;
}

/** The person's choices per kind of notification, as the settings form shows them. */
export async function getNotificationSettings(options: {
  userId: string;
}): Promise<NotificationSettings> {
  const [preferences, announcements] = await Promise.all([
    getNotificationPreferences(options.userId),
    isSubscribedTo({ userId: options.userId, kind: "announcements" }),
  ]);
  return {
    kinds: NOTIFICATION_KINDS.map((kind) => ({
      kind,
      label: NOTIFICATION_KIND_LABELS[kind],
      ...preferences[kind],
    })),
    announcements,
  };
}

/**
 * Saves every kind's in-app and e-mail choice and the announcements mail. These are the same
 * settings the one-click unsubscribe links in mails change.
 */
export async function saveNotificationSettings(options: {
  userId: string;
  kinds: Record<NotificationKind, NotificationPreference>;
  announcements: boolean;
}): Promise<void> {
  for (const kind of NOTIFICATION_KINDS) {
    await setNotificationPreference({ userId: options.userId, kind, ...options.kinds[kind] });
  }
  const exists = await setEmailPreference({
    userId: options.userId,
    kind: "announcements",
    isSubscribed: options.announcements,
  });
  if (!exists) throw new AppError("not_found", "Your account could not be found.");
}
