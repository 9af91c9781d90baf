import type pg from "pg";
import { logger } from "~/core/logger.server";
import { loadPg } from "~/lib/lazy-module.server";
import type { DatabaseHandle } from "./client.server";
import { logOutageOr } from "./unavailable.server";

export interface ChannelSubscription {
  close(): Promise<void>;
}

export interface ListenOptions {
  /** What the listener is called in logs ("live listener", "job listener"). */
  name: string;
  onPayload(payload: string | undefined): void;
  /**
   * Called after the listening connection came back from a failure: notifications sent while
   * it was down are lost, so whoever listens must catch up from the database.
   */
  onResubscribed?(): void;
}

/**
 * Listens on one PostgreSQL NOTIFY channel. PGlite: its in-process `listen`. PostgreSQL: one
 * dedicated connection (outside the pool), re-opened with backoff when it drops.
 */
export async function listenOnChannel(
  handle: DatabaseHandle,
  channel: string,
  options: ListenOptions,
): Promise<ChannelSubscription> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  const deliver = (payload: string | undefined) => {
    try {
      options.onPayload(payload);
    } catch (error) {
      logger.error({ err: error, channel }, `${options.name}: handler failed`);
    }
  };

  if (handle.pglite) {
    const unlisten = await handle.pglite.listen(channel, deliver);
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
        logOutageOr(options.name, error, () =>
          logger.warn({ err: error }, `${options.name} could not reconnect`),
        );
        retryLater();
      });
    }, delay);
    retryTimer.unref();
  };

  const onFailure = (failed: pg.Client, error?: Error) => {
    if (client !== failed) return;
    client = null;
    logOutageOr(options.name, error, () =>
      logger.warn({ err: error }, `${options.name} connection lost; reconnecting`),
    );
    failed.end().catch(() => {});
    retryLater();
  };

  const { Client } = await loadPg();
  const connect = async (isReconnect: boolean): Promise<void> => {
    const next = new Client({ connectionString });
    next.on("notification", (message) => {
      if (message.channel === channel) deliver(message.payload);
    });
    next.on("error", (error) => onFailure(next, error));
    next.on("end", () => onFailure(next));
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
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
      logger.info(`${options.name} reconnected`);
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
