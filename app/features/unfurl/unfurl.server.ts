import { and, desc, eq, sql } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { type DbOrTx, getDb, rowsOf } from "~/db/client.server";
import { linkUnfurls, posts } from "~/db/schema";
import { logOutageOr } from "~/db/unavailable.server";
import { EMBED_ORIGINS, recognizeLink } from "~/features/posts";
import { publishLive } from "~/features/realtime/index.server";
import { type Env, getEnv } from "~/lib/env.server";
import { fetchLinkMetadata, type UnfurlConfig } from "./metadata.server";
import { FetchRefused } from "./safe-fetch.server";

/**
 * Link previews, durably: a post with a streaming link queues its URL (one row per URL, in the
 * post's own transaction); a worker on any instance claims pending rows with a lease, asks the
 * service (metadata.server.ts), stores the answer and artwork, and tells the people who see
 * the posts over the live stream. A URL already done is reused; a failure leaves the card as
 * it was (the generated cover), nothing else.
 */

/** The services' own endpoints; UNFURL_*_URL replace them (docs in the env schema). */
const DEFAULT_OEMBED = {
  spotify: "https://open.spotify.com/oembed",
  youtube: "https://www.youtube.com/oembed",
  soundcloud: "https://soundcloud.com/oembed",
  deezer: "https://api.deezer.com/oembed",
  tidal: "https://oembed.tidal.com/",
} as const;

/** Attempts per URL before it counts as failed (only for errors that may pass). */
export const MAX_ATTEMPTS = 3;
/** Posts told about one finished preview, at most (the newest). */
const ANNOUNCE_LIMIT = 200;

export function unfurlConfigFromEnv(env: Env): UnfurlConfig {
  const overrides = {
    spotify: env.UNFURL_SPOTIFY_URL,
    youtube: env.UNFURL_YOUTUBE_URL,
    soundcloud: env.UNFURL_SOUNDCLOUD_URL,
    deezer: env.UNFURL_DEEZER_URL,
    tidal: env.UNFURL_TIDAL_URL,
  };
  const pageOrigin = {
    bandcamp: env.UNFURL_BANDCAMP_URL,
    apple_music: env.UNFURL_APPLE_MUSIC_URL,
  };
  const configured = [...Object.values(overrides), ...Object.values(pageOrigin)].filter(
    (u): u is string => Boolean(u),
  );
  return {
    isEnabled: env.UNFURL_LINKS,
    oembed: {
      spotify: overrides.spotify ?? DEFAULT_OEMBED.spotify,
      youtube: overrides.youtube ?? DEFAULT_OEMBED.youtube,
      soundcloud: overrides.soundcloud ?? DEFAULT_OEMBED.soundcloud,
      deezer: overrides.deezer ?? DEFAULT_OEMBED.deezer,
      tidal: overrides.tidal ?? DEFAULT_OEMBED.tidal,
    },
    pageOrigin: {
      ...(pageOrigin.bandcamp ? { bandcamp: pageOrigin.bandcamp } : {}),
      ...(pageOrigin.apple_music ? { apple_music: pageOrigin.apple_music } : {}),
    },
    trustedOrigins: [...new Set(configured.map((u) => new URL(u).origin))],
    frameOrigins: [...EMBED_ORIGINS, ...env.PLAYER_FRAME_ORIGINS],
    timeoutMs: 8_000,
  };
}

/**
 * Queues the preview of `url` when it is a streaming link we know (inside the caller's
 * transaction). A URL queued or done before is left as it is: one fetch per URL.
 */
export async function requestUnfurl(tx: DbOrTx, url: string | null | undefined): Promise<void> {
  if (!url) return;
  const link = recognizeLink(url);
  if (!link) return;
  await tx
    .insert(linkUnfurls)
    .values({ url, service: link.service })
    .onConflictDoNothing({ target: linkUnfurls.url });
}

interface Claimed {
  url: string;
  attempts: number;
}

/** Takes the oldest pending URL nobody holds, for two minutes (longer than one unfurl takes). */
async function claimOne(db: DbOrTx): Promise<Claimed | null> {
  const rows = rowsOf<Claimed>(
    await db.execute(sql`
      update ${linkUnfurls} set
        locked_until = now() + interval '120 seconds',
        attempts = attempts + 1,
        updated_at = now()
      where url = (
        select url from ${linkUnfurls}
        where status = 'pending' and (locked_until is null or locked_until < now())
        order by created_at
        limit 1
        for update skip locked)
      returning url, attempts`),
  );
  return rows[0] ?? null;
}

/** Tells everyone who sees a post with this link that its preview is ready (on commit). */
async function announce(tx: DbOrTx, url: string): Promise<void> {
  const rows = await tx
    .select({ id: posts.id, authorId: posts.authorId })
    .from(posts)
    .where(eq(posts.linkUrl, url))
    .orderBy(desc(posts.createdAt))
    .limit(ANNOUNCE_LIMIT);
  for (const row of rows) await publishLive(tx, { t: "u", p: row.id, a: row.authorId });
}

async function unfurlOne(claimed: Claimed, config: UnfurlConfig): Promise<void> {
  const db = getDb();
  const link = recognizeLink(claimed.url);
  if (!link) {
    await db
      .update(linkUnfurls)
      .set({ status: "failed", error: "not a streaming link", updatedAt: new Date() })
      .where(eq(linkUnfurls.url, claimed.url));
    return;
  }
  try {
    const meta = await fetchLinkMetadata(link, config);
    await db.transaction(async (tx) => {
      await tx
        .update(linkUnfurls)
        .set({
          status: "done",
          title: meta.title,
          artist: meta.artist,
          embedUrl: meta.embedUrl,
          artwork: meta.artwork?.bytes ?? null,
          artworkWidth: meta.artwork?.width ?? null,
          artworkHeight: meta.artwork?.height ?? null,
          artworkSha256: meta.artwork?.sha256 ?? null,
          error: null,
          lockedUntil: null,
          updatedAt: new Date(),
        })
        .where(and(eq(linkUnfurls.url, claimed.url), eq(linkUnfurls.status, "pending")));
      await announce(tx, claimed.url);
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const isFinal = error instanceof FetchRefused || claimed.attempts >= MAX_ATTEMPTS;
    logger.info({ url: claimed.url, err: message, isFinal }, "link preview failed");
    await db
      .update(linkUnfurls)
      .set({
        status: isFinal ? "failed" : "pending",
        error: message.slice(0, 500),
        // Try again later: 1, then 4 minutes.
        lockedUntil: isFinal
          ? null
          : new Date(Date.now() + claimed.attempts * claimed.attempts * 60_000),
        updatedAt: new Date(),
      })
      .where(eq(linkUnfurls.url, claimed.url));
  }
}

/**
 * Works through pending previews until none is left to claim (or `limit` are done); returns
 * how many it handled. Safe to run on several instances at once.
 */
export async function processPendingUnfurls(
  options: { config?: UnfurlConfig; limit?: number } = {},
): Promise<number> {
  const config = options.config ?? unfurlConfigFromEnv(getEnv());
  if (!config.isEnabled) return 0;
  const db = getDb();
  const limit = options.limit ?? 50;
  let handled = 0;
  while (handled < limit) {
    const claimed = await claimOne(db);
    if (!claimed) break;
    await unfurlOne(claimed, config);
    handled++;
  }
  return handled;
}

let timer: NodeJS.Timeout | undefined;
let running: Promise<void> | undefined;
let again = false;

/** Starts a round now (or right after the running one): called when a link was queued. */
export function kickUnfurlWorker(): void {
  if (!timer) return;
  if (running) {
    again = true;
    return;
  }
  running = (async () => {
    do {
      again = false;
      await processPendingUnfurls();
    } while (again);
  })()
    .catch((error: unknown) =>
      logOutageOr("link previews", error, () =>
        logger.error({ err: error }, "link preview worker failed"),
      ),
    )
    .finally(() => {
      running = undefined;
    });
}

/** Runs pending previews now and every `intervalMs` (retries, and work left by a restart). */
export function startUnfurlWorker(intervalMs = 30_000): void {
  if (timer || !getEnv().UNFURL_LINKS) return;
  timer = setInterval(kickUnfurlWorker, intervalMs);
  timer.unref();
  kickUnfurlWorker();
}

export async function stopUnfurlWorker(): Promise<void> {
  clearInterval(timer);
  timer = undefined;
  await running;
}

export const ARTWORK_FILE = /^([0-9a-f]{64})\.webp$/;

/**
 * Stored artwork by file name (`<sha256>.webp`), or null. It shows public metadata of a public
 * link, so it is anybody's to fetch, like the service's own picture.
 */
export async function getArtwork(file: string): Promise<Uint8Array | null> {
  const sha = ARTWORK_FILE.exec(file)?.[1];
  if (!sha) return null;
  const [row] = await getDb()
    .select({ artwork: linkUnfurls.artwork })
    .from(linkUnfurls)
    .where(and(eq(linkUnfurls.artworkSha256, sha), eq(linkUnfurls.status, "done")))
    .limit(1);
  return row?.artwork ?? null;
}
