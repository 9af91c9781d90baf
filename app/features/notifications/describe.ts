import { type NotificationKind, SELF_NOTIFICATION_KINDS } from "./kinds";

/** True for kinds about the person's own things, told without "who did it". */
export function isSelfNotification(kind: NotificationKind): boolean {
  return SELF_NOTIFICATION_KINDS.includes(kind);
}

/** What a notification needs to be put into words (the view, or a mail's facts). */
export interface Describable {
  kind: NotificationKind;
  actors: { displayName: string; username: string }[];
  actorCount: number;
  post: { id: string; title: string } | null;
  /** Plays an import added (listen_import). */
  importedPlays?: number | null;
}

/** "Ana", "Ana and Ben", "Ana and 3 others". */
export function whoDidIt(actors: Describable["actors"], actorCount: number): string {
  const first = actors[0]?.displayName ?? "Someone";
  if (actorCount <= 1) return first;
  if (actorCount === 2 && actors[1]) return `${first} and ${actors[1].displayName}`;
  const others = actorCount - 1;
  return `${first} and ${others} ${others === 1 ? "other" : "others"}`;
}

/** What happened, after the people: "liked your post “Blue in Green”". */
export function whatHappened(n: Pick<Describable, "kind" | "post" | "importedPlays">): string {
  const title = n.post ? ` “${n.post.title}”` : "";
  switch (n.kind) {
    case "like":
      return `liked your post${title}`;
    case "comment":
      return `commented on your post${title}`;
    case "reply":
      return `replied to your comment${n.post ? ` on${title}` : ""}`;
    case "mention":
      return `mentioned you${n.post ? ` in${title}` : ""}`;
    case "follow":
      return "started following you";
    case "follow_request":
      return "asked to follow you";
    case "follow_accept":
      return "accepted your follow request";
    case "listen_import": {
      const plays = n.importedPlays ?? 0;
      return `Your listening history import is done: ${plays.toLocaleString("en-US")} ${plays === 1 ? "play" : "plays"} added`;
    }
  }
}

/** The whole sentence, for toasts, mail subjects and screen readers. */
export function describeNotification(n: Describable): string {
  if (isSelfNotification(n.kind)) return whatHappened(n);
  return `${whoDidIt(n.actors, n.actorCount)} ${whatHappened(n)}`;
}

/** Where a notification leads: the post (at its comments when that is what it is about), or the person. */
export function notificationHref(n: Describable): string {
  if (n.post) {
    const toComments = n.kind === "comment" || n.kind === "reply" || n.kind === "mention";
    return `/post/${n.post.id}${toComments ? "#comments" : ""}`;
  }
  if (n.kind === "listen_import") return "/settings/listening";
  // The requests wait for an answer in privacy settings.
  if (n.kind === "follow_request") return "/settings/privacy#follow-requests";
  const actor = n.actors[0];
  return n.kind === "follow" && n.actorCount > 1
    ? "/profile"
    : actor
      ? `/u/${encodeURIComponent(actor.username)}`
      : "/notifications";
}
