import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { useFetcher, useLocation, useNavigate, useRevalidator } from "react-router";
import { showToast } from "~/components/ui/toaster";
import type { NotificationView } from "~/features/notifications";
import { describeNotification, notificationHref } from "~/features/notifications";
import { LiveClient, type LiveStatus } from "./live-client";
import type { LiveEvent } from "./protocol";

type Listener = (event: LiveEvent) => void;

interface LiveContextValue {
  status: LiveStatus;
  /** Unread notifications, kept current by the live stream. */
  unread: number;
  /** Hears every live event; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void;
}

const noSubscription = () => () => {};
const LiveContext = createContext<LiveContextValue>({
  status: "stopped",
  unread: 0,
  subscribe: noSubscription,
});
/**
 * The subscription alone, which never changes: a page that listens for events (the feed) does
 * not render again, with all its posts, each time the connection's state or the count changes.
 */
const LiveSubscribeContext = createContext<LiveContextValue["subscribe"]>(noSubscription);

export function useLive(): LiveContextValue {
  return useContext(LiveContext);
}

/** Calls `listener` for each live event while the component is mounted. */
export function useLiveEvents(listener: Listener): void {
  const subscribe = useContext(LiveSubscribeContext);
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => subscribe((event) => latest.current(event)), [subscribe]);
}

/**
 * Reloads the page's data (its loaders) when a live event `matches`. An event that arrives
 * while a reload is running is not dropped: one more reload follows it, so the page ends on the
 * newest data.
 */
export function useLiveRevalidation(matches: (event: LiveEvent) => boolean): void {
  const revalidator = useRevalidator();
  const isPending = useRef(false);
  useLiveEvents((event) => {
    if (!matches(event)) return;
    if (revalidator.state === "idle") void revalidator.revalidate();
    else isPending.current = true;
  });
  useEffect(() => {
    if (revalidator.state !== "idle" || !isPending.current) return;
    isPending.current = false;
    void revalidator.revalidate();
  }, [revalidator.state, revalidator.revalidate]);
}

/** How long notifications that arrive together are gathered into one toast. */
const TOAST_GATHER_MS = 400;

/**
 * Keeps one live connection per signed-in tab (`/api/events`), shares its events with the page,
 * keeps the unread count current and shows a toast (with "View") for a notification that
 * arrives while the person is on another page than `/notifications`.
 */
export function LiveProvider({
  viewer,
  children,
}: {
  viewer: { id: string; unreadNotifications: number; notificationsSeq: number } | null;
  children: ReactNode;
}) {
  const [status, setStatus] = useState<LiveStatus>("stopped");
  const [unread, setUnread] = useState(viewer?.unreadNotifications ?? 0);
  const listeners = useRef(new Set<Listener>());
  const location = useLocation();
  const navigate = useNavigate();
  const markRead = useFetcher();
  const pathname = useRef(location.pathname);
  pathname.current = location.pathname;
  const pending = useRef<NotificationView[]>([]);
  const gatherTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  // Every page load brings a fresh count from the server; take it.
  const fromServer = viewer?.unreadNotifications ?? 0;
  useEffect(() => setUnread(fromServer), [fromServer]);

  const subscribe = useCallback((listener: Listener) => {
    listeners.current.add(listener);
    return () => {
      listeners.current.delete(listener);
    };
  }, []);

  const flushToasts = useRef(() => {});
  flushToasts.current = () => {
    gatherTimer.current = null;
    const batch = pending.current;
    pending.current = [];
    if (batch.length === 0 || pathname.current === "/notifications") return;
    const single = batch.length === 1 ? batch[0] : undefined;
    if (single) {
      const href = notificationHref(single);
      showToast({
        id: `notification-${single.id}-${single.seq}`,
        type: "info",
        title: describeNotification(single),
        description: single.commentExcerpt ? `“${single.commentExcerpt}”` : undefined,
        actions: [
          {
            label: "View",
            onClick: () => {
              markRead.submit(
                { intent: "read", id: single.id },
                { method: "post", action: "/notifications" },
              );
              navigate(href);
            },
          },
        ],
      });
      return;
    }
    showToast({
      id: `notifications-${batch[batch.length - 1]?.seq ?? 0}`,
      type: "info",
      title: `${batch.length} new notifications`,
      description: batch
        .slice(-2)
        .map((n) => describeNotification(n))
        .join(" · "),
      actions: [{ label: "View", onClick: () => navigate("/notifications") }],
    });
  };

  const viewerId = viewer?.id ?? null;
  const startAfter = viewer?.notificationsSeq ?? 0;
  const startAfterRef = useRef(startAfter);
  startAfterRef.current = startAfter;

  useEffect(() => {
    if (!viewerId) return;
    const client = new LiveClient({
      url: "/api/events",
      after: startAfterRef.current,
      onStatus: setStatus,
      onEvent: (event) => {
        if (event.type === "unread") setUnread(event.data.count);
        if (event.type === "notification" && !event.data.isRead) {
          pending.current.push(event.data);
          gatherTimer.current ??= setTimeout(() => flushToasts.current(), TOAST_GATHER_MS);
        }
        for (const listener of listeners.current) listener(event);
      },
    });
    client.start();
    const online = () => client.reconnectNow();
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("online", online);
      if (gatherTimer.current) clearTimeout(gatherTimer.current);
      gatherTimer.current = null;
      client.stop();
    };
  }, [viewerId]);

  const value = useMemo(() => ({ status, unread, subscribe }), [status, unread, subscribe]);
  return (
    <LiveSubscribeContext.Provider value={subscribe}>
      <LiveContext.Provider value={value}>{children}</LiveContext.Provider>
    </LiveSubscribeContext.Provider>
  );
}
