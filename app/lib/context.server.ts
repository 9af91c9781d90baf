import { createContext } from "react-router";

export interface RequestInfo {
  requestId: string;
  /** Per-response CSP nonce for inline scripts. */
  nonce: string;
  /** The client address (socket, or the proxy's when TRUST_PROXY is on). */
  clientAddress: string;
  /** The id of the running build; open tabs compare it to notice a new deploy. */
  buildId: string;
}

export const requestInfoContext = createContext<RequestInfo>({
  requestId: "dev",
  nonce: "",
  clientAddress: "127.0.0.1",
  buildId: "dev",
});

export interface Viewer {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  isAdmin: boolean;
  /** A guest (anonymous) account that can still become a full one. */
  isGuest: boolean;
  /** Unread notifications when the request began (capped at 100). */
  unreadNotifications: number;
  /** The newest notification's `seq`: where this page's live stream starts. */
  notificationsSeq: number;
  /** Who new posts are for unless chosen otherwise (privacy settings); the composer starts there. */
  defaultAudience: "everyone" | "followers" | "only_me";
}

/** The signed-in person, or null; set by the root middleware for every request. */
export const viewerContext = createContext<Viewer | null>(null);

/**
 * The id of the session the request came with (never sent to the browser): live streams are
 * tied to it, so ending the session ends them.
 */
export const sessionIdContext = createContext<string | null>(null);
