import { sql } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import type { DatabaseHandle, DbOrTx } from "~/db/client.server";
import { listenOnChannel } from "~/db/listen.server";

/**
 * The one broker Soundtrail uses: PostgreSQL's NOTIFY / LISTEN. A change publishes a small
 * message inside its own transaction, so PostgreSQL delivers it exactly when (and only if) the
 * change commits; every app instance listens on one connection and pushes to its own browsers.
 */
export const LIVE_CHANNEL = "soundtrail_live";

export type LiveMessage =
  /** Something changed in this person's notifications (new, grouped, removed, read). */
  | { t: "n"; u: string }
  /** A new post; instances tell the people it reaches. */
  | { t: "p"; p: string; a: string }
  /** A post's link preview (title, artwork) is ready; instances tell those who see the post. */
  | { t: "u"; p: string; a: string }
  /** This person's sessions were ended (sign out everywhere, ban): close their streams. */
  | { t: "s"; u: string }
  /**
   * This person's listens or "now playing" changed (a player sent some, one was deleted, they
   * paused it); `o`: only the person may be told (a paused "now playing", listens of artists
   * hidden from others). Their pages, their readers' pages and friends' "listening now" strips
   * refresh.
   */
  | { t: "l"; u: string; o?: 1 }
  /** A post's likes or comments changed: cards on screen of those it reaches show the counts. */
  | { t: "c"; p: string };

/** Publishes `message`; inside a transaction it is delivered on commit, never on rollback. */
export async function publishLive(db: DbOrTx, message: LiveMessage): Promise<void> {
  await db.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(message)})`);
}

export interface LiveSubscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  onMessage(message: LiveMessage): void;
  /**
   * Called after the listening connection came back from a failure: messages sent while it was
   * down are lost, so whoever listens must catch up from the database.
   */
  onResubscribed?(): void;
}

function parse(payload: string | undefined): LiveMessage | null {
  if (!payload) return null;
  try {
    const value = JSON.parse(payload) as LiveMessage;
    return value && typeof value === "object" && typeof value.t === "string" ? value : null;
  } catch {
    return null;
  }
}

/**
 * Listens on the live channel: one listening connection per app instance (not per browser);
 * see `listenOnChannel`.
 */
export async function subscribeLive(
  handle: DatabaseHandle,
  options: SubscribeOptions,
): Promise<LiveSubscription> {
  return listenOnChannel(handle, LIVE_CHANNEL, {
    name: "live listener",
    onPayload(payload) {
      const message = parse(payload);
      if (!message) {
        logger.warn({ payload }, "ignored a malformed live message");
        return;
      }
      options.onMessage(message);
    },
    onResubscribed: options.onResubscribed,
  });
}
