import { inArray, sql } from "drizzle-orm";
import { type LiveMessage, type LiveSubscription, subscribeLive } from "~/core/live-bus.server";
import { logger } from "~/core/logger.server";
import { blockedBetween, canSeeJourney, journeyOpenTo } from "~/core/visibility.server";
import { type DatabaseHandle, getDb, rowsOf } from "~/db/client.server";
import {
  comments,
  follows,
  homeTimeline,
  postLikes,
  posts,
  profiles,
  session,
  user,
} from "~/db/schema";
import { logOutageOr } from "~/db/unavailable.server";
import {
  type NotificationView,
  notificationsAfter,
  unreadCount,
} from "~/features/notifications/index.server";
import { HEARTBEAT_MS, type LiveEvent } from "./protocol";

/** One browser's open event stream. */
export interface LiveStream {
  readonly userId: string;
  /** The session it was opened with: when that session ends, so does the stream. */
  readonly sessionId: string;
  /** The newest notification `seq` this stream has been sent. */
  lastSeq: number;
  /** Writes one already-formatted SSE frame. */
  write(frame: string): void;
  /** Ends the stream (the browser reconnects). */
  end(): void;
}

/** Formats one Server-Sent Event; only notifications carry an id (their `seq`). */
export function formatEvent(event: LiveEvent, id?: number): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** Notifications sent in one catch-up, at most; more are sent in further rounds. */
const SYNC_BATCH = 50;
const SYNC_ROUNDS = 4;

/**
 * This instance's open event streams, by person. Streams cost no thread and no database
 * connection: the instance listens once (see `subscribeLive`) and reads from the database only
 * when something changed for a person connected here.
 */
export class LiveHub {
  private readonly streams = new Map<string, Set<LiveStream>>();
  private readonly syncing = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  private heartbeat: NodeJS.Timeout | null = null;
  private subscription: LiveSubscription | null = null;
  private draining = false;

  async start(handle: DatabaseHandle): Promise<void> {
    this.subscription = await subscribeLive(handle, {
      onMessage: (message) => this.receive(message),
      // Messages sent while the listening connection was down are lost: catch everyone up.
      onResubscribed: () => {
        for (const userId of this.streams.keys()) this.sync(userId);
      },
    });
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.endAll();
    await Promise.allSettled(this.syncing.values());
    await this.subscription?.close();
    this.subscription = null;
  }

  /** Ends every stream and refuses new ones (shutdown); browsers reconnect elsewhere or later. */
  drain(): void {
    this.draining = true;
    this.endAll();
  }

  private endAll(): void {
    for (const set of this.streams.values()) for (const stream of set) stream.end();
    this.streams.clear();
  }

  get size(): number {
    let n = 0;
    for (const set of this.streams.values()) n += set.size;
    return n;
  }

  /** Registers a stream, sends `ready`, and catches it up from `lastSeq`. */
  add(stream: LiveStream): void {
    if (this.draining) {
      stream.end();
      return;
    }
    let set = this.streams.get(stream.userId);
    if (!set) {
      set = new Set();
      this.streams.set(stream.userId, set);
    }
    set.add(stream);
    stream.write(formatEvent({ type: "ready", data: { heartbeatMs: HEARTBEAT_MS } }));
    this.sync(stream.userId);
  }

  remove(stream: LiveStream): void {
    const set = this.streams.get(stream.userId);
    if (!set) return;
    set.delete(stream);
    if (set.size === 0) this.streams.delete(stream.userId);
  }

  private beat(): void {
    const frame = formatEvent({ type: "heartbeat", data: { at: Date.now() } });
    for (const set of this.streams.values()) for (const stream of set) stream.write(frame);
    // Sessions can also end without an announcement (expiry, a missed code path): re-check.
    void this.closeEndedSessions(null).catch((error: unknown) =>
      logOutageOr("live streams", error, () =>
        logger.warn({ err: error }, "could not re-check live streams' sessions"),
      ),
    );
  }

  /**
   * Ends the streams (of `userId`, or of everyone connected here) whose session no longer
   * exists, has expired or belongs to a banned account. One query.
   */
  async closeEndedSessions(userId: string | null): Promise<void> {
    const open = userId
      ? [...(this.streams.get(userId) ?? [])]
      : [...this.streams.values()].flatMap((set) => [...set]);
    if (open.length === 0) return;
    const ids = [...new Set(open.map((stream) => stream.sessionId))];
    const alive = rowsOf<{ id: string }>(
      await getDb().execute(sql`
        select s.id from ${session} s join ${user} u on u.id = s.user_id
        where ${inArray(sql`s.id`, ids)} and s.expires_at > (now() at time zone 'utc')
          and coalesce(u.banned, false) = false`),
    );
    const living = new Set(alive.map((row) => row.id));
    for (const stream of open) {
      if (!living.has(stream.sessionId)) {
        stream.end();
        this.remove(stream);
      }
    }
  }

  private receive(message: LiveMessage): void {
    switch (message.t) {
      case "n":
        if (this.streams.has(message.u)) this.sync(message.u);
        return;
      case "p":
        void this.announcePost(message.p, message.a).catch((error: unknown) =>
          logger.error({ err: error }, "could not announce a new post"),
        );
        return;
      case "u":
        void this.announceUnfurl(message.p).catch((error: unknown) =>
          logger.error({ err: error }, "could not announce a link preview"),
        );
        return;
      case "l":
        void this.announceListens(message.u, message.o === 1).catch((error: unknown) =>
          logOutageOr("live streams", error, () =>
            logger.error({ err: error }, "could not announce changed listens"),
          ),
        );
        // The friends' "listening now" strips reload (what they then read is access-checked).
        void this.announceNowPlaying(message.u).catch((error: unknown) =>
          logOutageOr("live streams", error, () =>
            logger.error({ err: error }, "could not announce a change of now playing"),
          ),
        );
        return;
      case "c":
        void this.announceCounts(message.p).catch((error: unknown) =>
          logOutageOr("live streams", error, () =>
            logger.error({ err: error }, "could not announce a post's counts"),
          ),
        );
        return;
      case "s":
        void this.closeEndedSessions(message.u).catch((error: unknown) => {
          // Could not check: end them all; a browser whose session lives reconnects at once.
          logger.warn({ err: error }, "could not check ended sessions; closing the streams");
          for (const stream of this.streams.get(message.u) ?? []) stream.end();
          this.streams.delete(message.u);
        });
        return;
    }
  }

  /**
   * Sends a person's streams what they have not had yet, and the unread count. Runs once at a
   * time per person; a change arriving meanwhile triggers one more round.
   */
  sync(userId: string): Promise<void> {
    const running = this.syncing.get(userId);
    if (running) {
      this.dirty.add(userId);
      return running;
    }
    const run = (async () => {
      try {
        do {
          this.dirty.delete(userId);
          await this.syncOnce(userId);
        } while (this.dirty.has(userId));
      } catch (error) {
        logger.error({ err: error, userId }, "live sync failed");
      } finally {
        this.syncing.delete(userId);
      }
    })();
    this.syncing.set(userId, run);
    return run;
  }

  private async syncOnce(userId: string): Promise<void> {
    const streams = () => [...(this.streams.get(userId) ?? [])];
    if (streams().length === 0) return;
    for (let round = 0; round < SYNC_ROUNDS; round++) {
      const from = Math.min(...streams().map((s) => s.lastSeq));
      const rows: NotificationView[] = await notificationsAfter({
        recipientId: userId,
        afterSeq: from,
        limit: SYNC_BATCH,
      });
      for (const stream of streams()) {
        for (const view of rows) {
          if (view.seq <= stream.lastSeq) continue;
          stream.write(formatEvent({ type: "notification", data: view }, view.seq));
          stream.lastSeq = view.seq;
        }
      }
      if (rows.length < SYNC_BATCH) break;
    }
    const count = await unreadCount(userId);
    const frame = formatEvent({ type: "unread", data: { count } });
    for (const stream of streams()) stream.write(frame);
  }

  /**
   * A new post: tells each connected person it reaches (their "Following" timeline, or the
   * "Everyone" tab for a public post), in one query for all of them. Not its author.
   */
  private async announcePost(postId: string, authorId: string): Promise<void> {
    const userIds = [...this.streams.keys()].filter((id) => id !== authorId);
    if (userIds.length === 0) return;
    const rows = rowsOf<{ user_id: string; following: boolean; everyone: boolean }>(
      await getDb().execute(sql`
        select v.user_id,
          exists (select 1 from ${homeTimeline} t
            where t.user_id = v.user_id and t.post_id = p.id) as following,
          (p.audience = 'everyone' and not ${blockedBetween(sql`v.user_id`, sql`p.author_id`)}) as everyone
        from ${profiles} v
        cross join ${posts} p
        where p.id = ${postId} and ${inArray(sql`v.user_id`, userIds)}`),
    );
    for (const row of rows) {
      if (!row.following && !row.everyone) continue;
      const frame = formatEvent({
        type: "post",
        data: { postId, following: row.following, everyone: row.everyone },
      });
      for (const stream of this.streams.get(row.user_id) ?? []) stream.write(frame);
    }
  }
  /**
   * A person's listens or "now playing" changed: tells them, and (unless only they may know)
   * each connected reader the journey's rule lets in — `everyone`, or `followers` with an
   * accepted follow, never across a block (journeyOpenTo). One query for all of them.
   */
  private async announceListens(ownerId: string, isOwnerOnly: boolean): Promise<void> {
    const frame = formatEvent({ type: "listens", data: { at: Date.now(), userId: ownerId } });
    for (const stream of this.streams.get(ownerId) ?? []) stream.write(frame);
    if (isOwnerOnly) return;
    const userIds = [...this.streams.keys()].filter((id) => id !== ownerId);
    if (userIds.length === 0) return;
    const rows = rowsOf<{ user_id: string }>(
      await getDb().execute(sql`
        select v.user_id from ${profiles} v
        where ${inArray(sql`v.user_id`, userIds)}
          and ${journeyOpenTo(sql`v.user_id`, ownerId)}`),
    );
    for (const row of rows) {
      for (const stream of this.streams.get(row.user_id) ?? []) stream.write(frame);
    }
  }

  /**
   * A post's link preview is ready: tells its author and each connected person who sees it in
   * a timeline or the "Everyone" tab, so a card on screen can fill in. One query.
   */
  private async announceUnfurl(postId: string): Promise<void> {
    const userIds = [...this.streams.keys()];
    if (userIds.length === 0) return;
    const rows = rowsOf<{ user_id: string; is_own: boolean }>(
      await getDb().execute(sql`
        select v.user_id, v.user_id = p.author_id as is_own
        from ${profiles} v
        cross join ${posts} p
        where p.id = ${postId} and ${inArray(sql`v.user_id`, userIds)}
          and (v.user_id = p.author_id
            or exists (select 1 from ${homeTimeline} t
              where t.user_id = v.user_id and t.post_id = p.id)
            or (p.audience = 'everyone'
              and not ${blockedBetween(sql`v.user_id`, sql`p.author_id`)}))`),
    );
    for (const row of rows) {
      const frame = formatEvent({ type: "unfurl", data: { postId, isOwn: Boolean(row.is_own) } });
      for (const stream of this.streams.get(row.user_id) ?? []) stream.write(frame);
    }
  }

  /**
   * Someone's "now playing" (or listens) changed: tells each connected person who follows them
   * and may see their journey, so the feed's "listening now" strip reloads. One query, over the
   * people connected to this instance only.
   */
  private async announceNowPlaying(ownerId: string): Promise<void> {
    const userIds = [...this.streams.keys()].filter((id) => id !== ownerId);
    if (userIds.length === 0) return;
    const rows = rowsOf<{ user_id: string }>(
      await getDb().execute(sql`
        select f.follower_id as user_id from ${follows} f
        where f.followee_id = ${ownerId} and ${inArray(sql`f.follower_id`, userIds)}
          and ${canSeeJourney(sql`f.follower_id`, ownerId)}`),
    );
    const frame = formatEvent({ type: "nowPlaying", data: { userId: ownerId } });
    for (const row of rows) {
      for (const stream of this.streams.get(row.user_id) ?? []) stream.write(frame);
    }
  }

  /**
   * A post's likes or comments changed: sends its counts to the connected people whose cards
   * show it — its author and those whose "Following" timeline holds it (the author's followers
   * who may see it), so the cost of a like is bounded by the author's followers connected here,
   * never by everyone online. One query; `liked` is each reader's own like.
   */
  private async announceCounts(postId: string): Promise<void> {
    const userIds = [...this.streams.keys()];
    if (userIds.length === 0) return;
    const rows = rowsOf<{
      user_id: string;
      like_count: number;
      comment_count: number;
      liked: boolean;
    }>(
      await getDb().execute(sql`
        select v.user_id,
          (select count(*)::int from ${postLikes} l where l.post_id = p.id) as like_count,
          (select count(*)::int from ${comments} c where c.post_id = p.id) as comment_count,
          exists (select 1 from ${postLikes} l
            where l.post_id = p.id and l.user_id = v.user_id) as liked
        from ${profiles} v
        cross join ${posts} p
        where p.id = ${postId} and ${inArray(sql`v.user_id`, userIds)}
          and (v.user_id = p.author_id
            or (exists (select 1 from ${homeTimeline} t
                  where t.user_id = v.user_id and t.post_id = p.id)
              and not ${blockedBetween(sql`v.user_id`, sql`p.author_id`)}))`),
    );
    for (const row of rows) {
      const frame = formatEvent({
        type: "counts",
        data: {
          postId,
          likeCount: Number(row.like_count),
          commentCount: Number(row.comment_count),
          liked: Boolean(row.liked),
        },
      });
      for (const stream of this.streams.get(row.user_id) ?? []) stream.write(frame);
    }
  }
}

const HUB_KEY = Symbol.for("soundtrail.liveHub");
type GlobalWithHub = typeof globalThis & { [HUB_KEY]?: LiveHub };

/** This process's hub (one per app instance). */
export function getLiveHub(): LiveHub | undefined {
  return (globalThis as GlobalWithHub)[HUB_KEY];
}

export async function startLiveHub(handle: DatabaseHandle): Promise<LiveHub> {
  await stopLiveHub();
  const hub = new LiveHub();
  await hub.start(handle);
  (globalThis as GlobalWithHub)[HUB_KEY] = hub;
  return hub;
}

export async function stopLiveHub(): Promise<void> {
  const hub = getLiveHub();
  (globalThis as GlobalWithHub)[HUB_KEY] = undefined;
  await hub?.stop();
}
