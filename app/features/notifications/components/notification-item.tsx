import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { Icon, type IconName } from "~/components/ui/icon";
import { RelativeTime } from "~/components/ui/relative-time";
import { cn } from "~/lib/utils";
import { isSelfNotification, notificationHref, whatHappened, whoDidIt } from "../describe";
import type { NotificationKind } from "../kinds";
import type { NotificationView } from "../types";

const icons: Record<NotificationKind, IconName> = {
  like: "heart",
  comment: "message-circle",
  reply: "reply",
  mention: "at-sign",
  follow: "user-plus",
  follow_request: "clock",
  follow_accept: "user-check",
  listen_import: "list-music",
};

/** One notification: who, what, where it leads; unread ones stand out (not by colour alone). */
export function NotificationItem({
  notification,
  isRead,
  onOpen,
}: {
  notification: NotificationView;
  isRead: boolean;
  onOpen: () => void;
}) {
  const iconName = icons[notification.kind];
  const [first, ...others] = notification.actors;
  return (
    <Link
      to={notificationHref(notification)}
      onClick={onOpen}
      data-unread={isRead ? undefined : "true"}
      className={cn(
        "flex gap-3 rounded-xl border p-3 hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring sm:p-4",
        isRead ? "border-border bg-card" : "border-primary bg-accent/40",
      )}
    >
      <div className="relative shrink-0">
        {first ? (
          <Avatar name={first.displayName} username={first.username} src={first.avatarUrl} />
        ) : null}
        <span className="absolute -right-1 -bottom-1 flex size-5 items-center justify-center rounded-full border border-border bg-background">
          <Icon name={iconName} className="size-3 text-primary" />
        </span>
      </div>
      <div className="min-w-0 flex-1">
        <p className="text-sm">
          {isRead ? null : <span className="sr-only">Unread: </span>}
          {isSelfNotification(notification.kind) ? null : (
            <>
              <span className="font-semibold">
                {whoDidIt(notification.actors, notification.actorCount)}
              </span>{" "}
            </>
          )}
          {whatHappened(notification)}
        </p>
        {notification.commentExcerpt ? (
          <p className="mt-1 truncate text-sm text-muted-foreground">
            “{notification.commentExcerpt}”
          </p>
        ) : null}
        <div className="mt-1 flex items-center gap-2 text-xs text-muted-foreground">
          <RelativeTime iso={notification.updatedAt} />
          {others.length > 0 ? (
            <span aria-hidden="true" className="flex -space-x-2">
              {others.map((actor) => (
                <Avatar
                  key={actor.id}
                  name={actor.displayName}
                  username={actor.username}
                  src={actor.avatarUrl}
                  size="sm"
                  className="ring-2 ring-background"
                />
              ))}
            </span>
          ) : null}
        </div>
      </div>
      {notification.post ? (
        <img
          src={notification.post.art}
          alt=""
          width={40}
          height={40}
          loading="lazy"
          decoding="async"
          className="size-10 shrink-0 rounded-md object-cover"
        />
      ) : null}
      {isRead ? null : (
        <span aria-hidden="true" className="mt-1.5 size-2.5 shrink-0 rounded-full bg-primary" />
      )}
    </Link>
  );
}
