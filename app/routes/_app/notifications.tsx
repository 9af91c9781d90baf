import { useState } from "react";
import { data, Form, Link, useFetcher, useNavigation, useRevalidator } from "react-router";
import { z } from "zod";
import { Button, buttonClasses } from "~/components/ui/button";
import { EmptyState } from "~/components/ui/empty-state";
import { Icon } from "~/components/ui/icon";
import { PageHeader } from "~/components/ui/page-header";
import { requireUser } from "~/features/auth/guards.server";
import { NotificationItem } from "~/features/notifications/components/notification-item";
import { listNotifications, markAllRead, markRead } from "~/features/notifications/inbox.server";
import type { NotificationView } from "~/features/notifications/types";
import { useLive, useLiveEvents } from "~/features/realtime/live-provider";
import { DiscoverPanel } from "~/features/search/components/discover-panel";
import { loadDiscovery } from "~/features/search/discovery.server";
import { usePagedList } from "~/lib/use-paged-list";
import type { Route } from "./+types/notifications";

export const meta: Route.MetaFunction = () => [{ title: "Notifications · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const cursor = new URL(request.url).searchParams.get("cursor");
  const page = await listNotifications({ viewerId: viewer.id, cursor });
  // Nothing yet: who to follow and what is trending, the way to get some.
  const discovery =
    !cursor && page.notifications.length === 0 ? await loadDiscovery(viewer.id) : null;
  return { page, isFirstPage: !cursor, viewerId: viewer.id, discovery };
}

const actionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("read-all") }),
  z.object({ intent: z.literal("read"), id: z.uuid() }),
]);

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const parsed = actionSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) {
    return data({ ok: false as const, error: "That is not something we can mark as read." }, 400);
  }
  if (parsed.data.intent === "read-all") await markAllRead(viewer.id);
  else await markRead({ viewerId: viewer.id, id: parsed.data.id });
  return { ok: true as const, intent: parsed.data.intent };
}

export default function Notifications({ loaderData }: Route.ComponentProps) {
  const { page, isFirstPage, viewerId, discovery } = loaderData;
  const { unread } = useLive();
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const markOne = useFetcher();
  // Read on this page after it was rendered: shown read at once, without waiting for a reload.
  const [readHere, setReadHere] = useState<ReadonlySet<string>>(new Set());

  // Something new or changed: the first page is read again; loaded older pages stay.
  useLiveEvents((event) => {
    if (event.type === "notification" && revalidator.state === "idle") revalidator.revalidate();
  });

  const list = usePagedList<NotificationView>({
    first: page.notifications,
    nextCursor: page.nextCursor,
    pageUrl: (cursor) => `/notifications?cursor=${encodeURIComponent(cursor)}`,
    itemsOf: (value) => {
      const next = (value as { page?: typeof page }).page;
      return next ? { items: next.notifications, nextCursor: next.nextCursor } : null;
    },
    resetKey: isFirstPage ? "first" : (page.notifications[0]?.id ?? "empty"),
  });

  const isMarkingAll =
    navigation.state !== "idle" && navigation.formData?.get("intent") === "read-all";
  // A read notification never becomes unread again (news opens a new one), so ids suffice.
  const isRead = (n: NotificationView) => n.isRead || readHere.has(n.id);
  const hasUnread = unread > 0 || list.items.some((n) => !isRead(n));

  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <PageHeader title="Notifications">What happened around your posts.</PageHeader>
        {hasUnread ? (
          <Form
            method="post"
            onSubmit={() => setReadHere(new Set(list.items.map((n) => n.id)))}
            className="mb-6 sm:mt-1"
            preventScrollReset
          >
            <input type="hidden" name="intent" value="read-all" />
            <Button type="submit" variant="secondary" size="sm" disabled={isMarkingAll}>
              {isMarkingAll ? (
                <Icon name="loader-circle" className="size-4 animate-spin" />
              ) : (
                <Icon name="check-check" className="size-4" />
              )}
              Mark all as read
            </Button>
          </Form>
        ) : null}
      </div>

      {!isFirstPage ? (
        <p className="mb-4 text-sm">
          <Link to="/notifications" className="font-medium text-primary underline">
            Back to the newest
          </Link>
        </p>
      ) : null}

      {list.items.length === 0 ? (
        <div className="flex flex-col gap-4">
          <EmptyState icon="bell-off" title="You're all caught up">
            {discovery?.isNewInstance
              ? "This Soundtrail is new. When people join and react to your posts, their likes, comments, mentions and follows show up here."
              : "Likes, comments, replies, mentions and new followers will show up here. Follow people and join in to get some."}
          </EmptyState>
          {discovery ? <DiscoverPanel discovery={discovery} viewerId={viewerId} /> : null}
        </div>
      ) : (
        <>
          <ol aria-label="Notifications" className="flex flex-col gap-2">
            {list.items.map((notification) => (
              <li key={notification.id}>
                <NotificationItem
                  notification={notification}
                  isRead={isRead(notification)}
                  onOpen={() => {
                    if (isRead(notification)) return;
                    setReadHere((ids) => new Set(ids).add(notification.id));
                    markOne.submit(
                      { intent: "read", id: notification.id },
                      { method: "post", action: "/notifications" },
                    );
                  }}
                />
              </li>
            ))}
          </ol>
          <div ref={list.sentinel} className="mt-6 flex justify-center">
            {list.cursor ? (
              <Link
                to={`/notifications?cursor=${encodeURIComponent(list.cursor)}`}
                preventScrollReset
                className={buttonClasses("secondary")}
                onClick={(event) => {
                  event.preventDefault();
                  list.loadMore();
                }}
                aria-busy={list.isLoading || undefined}
              >
                {list.isLoading ? (
                  <Icon name="loader-circle" className="size-4 animate-spin" />
                ) : null}
                {list.isLoading ? "Loading more…" : "Load more"}
              </Link>
            ) : (
              <p className="text-sm text-muted-foreground">That's everything.</p>
            )}
          </div>
        </>
      )}
    </>
  );
}
