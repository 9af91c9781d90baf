import { requireUser } from "~/features/auth/guards.server";
import {
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationPreference,
} from "~/features/notifications/kinds";
import { NotificationSettingsForm } from "~/features/settings/components/notification-settings";
import {
  getNotificationSettings,
  saveNotificationSettings,
} from "~/features/settings/notifications.server";
import { keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-notifications";

export const meta: Route.MetaFunction = () => [{ title: "Notifications · Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  return { settings: await getNotificationSettings({ userId: viewer.id }) };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const form = await request.formData();
  // A checkbox is sent only when ticked: absent means off.
  const kinds = Object.fromEntries(
    NOTIFICATION_KINDS.map((kind) => [
      kind,
      { inApp: form.get(`${kind}.inApp`) === "on", email: form.get(`${kind}.email`) === "on" },
    ]),
  ) as Record<NotificationKind, NotificationPreference>;
  await saveNotificationSettings({
    userId: viewer.id,
    kinds,
    announcements: form.get("announcements.email") === "on",
  });
  return redirectWithToast("/settings/notifications", {
    type: "success",
    title: "Notification settings saved",
  });
}

/**
 * A save sent while the network is down comes back as a NetworkFailure for the form to keep,
 * show and send again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return keepOnNetworkFailure(serverAction);
}

export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function NotificationSettingsPage({ loaderData }: Route.ComponentProps) {
  return <NotificationSettingsForm settings={loaderData.settings} />;
}
