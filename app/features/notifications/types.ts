import type { NotificationKind } from "./kinds";

export interface NotificationActor {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
}

/** One (possibly grouped) notification as every screen shows it. */
export interface NotificationView {
  id: string;
  /** Its position in the recipient's stream; the Server-Sent Event id. */
  seq: number;
  kind: NotificationKind;
  /** When it last changed (a new person joined the group). */
  updatedAt: string;
  isRead: boolean;
  /** The newest people behind it, at most three. */
  actors: NotificationActor[];
  actorCount: number;
  /** `art`: the post's artwork (its link's, else its generated cover) for a small thumb. */
  post: { id: string; title: string; artist: string | null; art: string } | null;
  /** The comment it is about (the newest one in a group), shortened. */
  commentExcerpt: string | null;
  /** Plays a finished listening-history import added (listen_import only). */
  importedPlays: number | null;
}

export interface NotificationPage {
  notifications: NotificationView[];
  nextCursor: string | null;
}
