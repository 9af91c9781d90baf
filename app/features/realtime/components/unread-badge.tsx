import { useLive } from "../live-provider";

export function unreadText(unread: number): string | null {
  if (unread <= 0) return null;
  return unread > 99 ? "99+" : String(unread);
}

/** The unread count next to "Notifications" in the header, kept current by the live stream. */
export function UnreadBadge() {
  const text = unreadText(useLive().unread);
  if (!text) return null;
  return (
    <span
      aria-hidden="true"
      data-testid="unread-badge"
      className="inline-flex h-5 min-w-5 items-center justify-center rounded-full bg-primary px-1.5 text-xs font-bold text-primary-foreground"
    >
      {text}
    </span>
  );
}

/** The Notifications link's accessible name: "Notifications, 2 unread" (or just "Notifications"). */
export function useNotificationsLabel(): string {
  const text = unreadText(useLive().unread);
  return text ? `Notifications, ${text} unread` : "Notifications";
}
