import { sql } from "drizzle-orm";
import type pg from "pg";
import { logger } from "~/core/logger.server";
import type { DatabaseHandle, DbOrTx } from "~/db/client.server";
import { logOutageOr } from "~/db/unavailable.server";
import { loadPg } from "~/lib/lazy-module.server";

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
  | { t: "s"; u: string };

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
 * Listens on the live channel. PGlite: its in-process `listen`. PostgreSQL: one dedicated
 * connection per app instance (not per browser), re-opened with backoff when it drops.
 */
export async function subscribeLive(
  handle: DatabaseHandle,
  options: SubscribeOptions,
): Promise<LiveSubscription> {
  const deliver = (payload: string | undefined) => {
    const message = parse(payload);
    if (!message) {
      logger.warn({ payload }, "ignored a malformed live message");
      return;
    }
    try {
      options.onMessage(message);
    } catch (error) {
      logger.error({ err: error }, "live message handler failed");
    }
  };

  if (handle.pglite) {
    const unlisten = await handle.pglite.listen(LIVE_CHANNEL, deliver);
    return { close: () => unlisten() };
  }

  const connectionString = handle.databaseUrl;
  if (!connectionString) throw new Error("PostgreSQL handle without a database URL");
  let closed = false;
  let client: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let attempt = 0;

  const retryLater = () => {
    if (closed || retryTimer) return;
    const delay = Math.min(10_000, 500 * 2 ** attempt++);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connect(true).catch((error: unknown) => {
        logOutageOr("live listener", error, () =>
          logger.warn({ err: error }, "live listener could not reconnect"),
        );
        retryLater();
      });
    }, delay);
    retryTimer.unref();
  };

  const onFailure = (failed: pg.Client, error?: Error) => {
    if (client !== failed) return;
    client = null;
    logOutageOr("live listener", error, () =>
      logger.warn({ err: error }, "live listener connection lost; reconnecting"),
    );
    failed.end().catch(() => {});
    retryLater();
  };

  const { Client } = await loadPg();
  const connect = async (isReconnect: boolean): Promise<void> => {
    const next = new Client({ connectionString });
    next.on("notification", (message) => {
      if (message.channel === LIVE_CHANNEL) deliver(message.payload);
    });
    next.on("error", (error) => onFailure(next, error));
    next.on("end", () => onFailure(next));
    try {
      await next.connect();
      await next.query(`listen ${LIVE_CHANNEL}`);
    } catch (error) {
      next.end().catch(() => {});
      throw error;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    attempt = 0;
    if (isReconnect) {
      logger.info("live listener reconnected");
      options.onResubscribed?.();
    }
  };

  await connect(false);
  return {
    close: async () => {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
