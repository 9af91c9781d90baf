import { and, desc, eq, sql } from "drizzle-orm";
import { defineJob, drainJobs, stringFields } from "~/core/jobs/index.server";
import { publishLive } from "~/core/live-bus.server";
import { logger } from "~/core/logger.server";
import { EMBED_ORIGINS, recognizeLink } from "~/core/streaming-links";
import { type DbOrTx, getDb } from "~/db/client.server";
import { linkUnfurls, posts } from "~/db/schema";
import { type Env, getEnv } from "~/lib/env.server";
import { fetchLinkMetadata, type UnfurlConfig } from "./metadata.server";
import { FetchRefused } from "./safe-fetch.server";

/**
 * Link previews, durably: a post with a streaming link queues its URL (one row per URL and a
 * job, in the post's own transaction); the job (core/jobs, any instance) asks the service
 * (metadata.server.ts), stores the answer and artwork, and tells the people who see the posts
 * over the live stream. A URL already done is reused; a failure leaves the card as
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
 * transaction): its row, and a job to fetch it. A URL queued or done before is left as it is:
 * one fetch per URL.
 */
export async function requestUnfurl(tx: DbOrTx, url: string | null | undefined): Promise<void> {
  if (!url) return;
  const link = recognizeLink(url);
  if (!link) return;
  const inserted = await tx
    .insert(linkUnfurls)
    .values({ url, service: link.service })
    .onConflictDoNothing({ target: linkUnfurls.url })
    .returning({ url: linkUnfurls.url });
  if (inserted.length > 0) await unfurlJob.enqueue(tx, { url }, { key: url });
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

/** Tests point the job at their fake service; the server reads the environment. */
let configOverride: UnfurlConfig | undefined;

async function markFailed(url: string, message: string): Promise<void> {
  await getDb()
    .update(linkUnfurls)
    .set({ status: "failed", error: message.slice(0, 500), updatedAt: new Date() })
    .where(and(eq(linkUnfurls.url, url), eq(linkUnfurls.status, "pending")));
}

/**
 * Fetches one link's preview (a job: any instance runs it, once per URL at a time). A failure
 * that may pass (a slow or erroring service) is retried after 1, then 4 minutes, then the link
 * counts as failed; a refusal (a redirect elsewhere, a private address, too large) is final.
 */
export const unfurlJob = defineJob<{ url: string }>({
  kind: "unfurl.link",
  priority: 6,
  concurrency: 2,
  maxAttempts: MAX_ATTEMPTS,
  backoffSeconds: (attempt) => 60 * attempt * attempt,
  parse: stringFields("url"),
  async run(job) {
    const config = configOverride ?? unfurlConfigFromEnv(getEnv());
    // Off: the link stays pending, as it was queued (startUnfurls queues it again when on).
    if (!config.isEnabled) return undefined;
    const { url } = job.payload;
    const db = getDb();
    await db
      .update(linkUnfurls)
      .set({ attempts: job.attempt, updatedAt: new Date() })
      .where(eq(linkUnfurls.url, url));
    const link = recognizeLink(url);
    if (!link) {
      await markFailed(url, "not a streaming link");
      return undefined;
    }
    let meta: Awaited<ReturnType<typeof fetchLinkMetadata>>;
    try {
      meta = await fetchLinkMetadata(link, config);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const isFinal = error instanceof FetchRefused || job.attempt >= MAX_ATTEMPTS;
      logger.info({ url, err: message, isFinal }, "link preview failed");
      if (isFinal) {
        await markFailed(url, message);
        return undefined;
      }
      await db
        .update(linkUnfurls)
        .set({ error: message.slice(0, 500), updatedAt: new Date() })
        .where(eq(linkUnfurls.url, url));
      throw error;
    }
    await db.transaction(async (tx) => {
      await job.fence(tx);
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
          updatedAt: new Date(),
        })
        .where(and(eq(linkUnfurls.url, url), eq(linkUnfurls.status, "pending")));
      await announce(tx, url);
    });
    logger.debug({ url }, "link preview ready");
    return undefined;
  },
  async onDead({ url }, error) {
    await markFailed(url, error);
  },
});

/**
 * At start, when previews are on: links left pending without a job (queued while previews were
 * off, or before they ran on the job system) get one.
 */
export async function queuePendingUnfurls(): Promise<void> {
  if (!unfurlConfigFromEnv(getEnv()).isEnabled) return;
  await getDb().execute(sql`
    insert into jobs (kind, payload, key, priority, max_attempts)
    select ${unfurlJob.kind}, jsonb_build_object('url', u.url), u.url, ${unfurlJob.priority},
      ${MAX_ATTEMPTS}
    from ${linkUnfurls} u
    where u.status = 'pending' and not exists (
      select 1 from jobs j where j.kind = ${unfurlJob.kind} and j.key = u.url
        and j.status in ('queued', 'running'))
    on conflict do nothing`);
}

/**
 * Runs the queued previews here until none is due, with `config` (tests); returns how many
 * jobs ran.
 */
export async function processPendingUnfurls(
  options: { config?: UnfurlConfig } = {},
): Promise<number> {
  configOverride = options.config;
  try {
    return await drainJobs([unfurlJob]);
  } finally {
    configOverride = undefined;
  }
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
