/**
 * Bounded concurrency for the app's requests (docs/decisions/031-fair-admission.md).
 *
 * Node renders on one thread: with 50 requests rendering at once, each one's work is sliced
 * between all the others and every answer is late — the tail grows with the load (bench:
 * p99 11× p50 at 50 connections). Admitting a few at a time and queueing the rest keeps each
 * render short; when the queue itself is too long, a quick 503 with `Retry-After` is better for
 * everyone than a slow answer after many seconds.
 *
 * Three rules keep one person from hurting everyone:
 * - **Lanes.** Heavy requests (a journey computed cold, an export, a recap image, a search) have
 *   their own turns and queue, so however many of them arrive, page views keep theirs; a heavy
 *   request that waits longer than its deadline is answered 503 rather than late.
 * - **Sign-in has a lane of its own.** Signing in, signing up and the auth API spend most of
 *   their time hashing a password (scrypt, in libuv's threads, not the event loop): in the page
 *   views' lane each one held a turn for the whole hash and waited behind every page view
 *   queued before it (issue 38: 3.6–5 s to sign in at a moderate load). Their own turns mean
 *   neither waits for the other.
 * - **Fairness between clients.** Waiting requests are queued per client (a session, else an
 *   address) and turns go round the clients in turn: one person's twenty tabs, or a scraper,
 *   wait behind each other, not in front of everybody else; one client may not hold more than
 *   its share of the queue.
 * - **Turns cover the server's work only.** The caller gives the turn back once the answer is
 *   ready to stream (server/http-handler.ts), not when a slow client has downloaded it.
 */
export type Lane = "light" | "heavy" | "auth";

export interface AdmissionOptions {
  /** Page views and other light requests the app works on at once. */
  concurrency: number;
  /** Light requests that may wait for a turn; beyond that, `enter` refuses at once. */
  queueLimit: number;
  /** Heavy requests worked on at once (default 1), besides the light ones. */
  heavyConcurrency?: number;
  /** Heavy requests that may wait (default 20). */
  heavyQueueLimit?: number;
  /** A heavy request waiting longer than this is refused (default 30 s). */
  heavyMaxWaitMs?: number;
  /** Sign-in, sign-up and auth API requests worked on at once (default 2), besides the others. */
  authConcurrency?: number;
  /** Requests one client may have waiting in a lane (default a quarter of its queue, ≥ 4). */
  perClientQueueLimit?: number;
}

export type Release = () => void;

export interface Ticket {
  /** Who is asking (a session, a token, else the address); requests without one share "". */
  client?: string;
  lane?: Lane;
}

export interface AdmissionStats {
  active: number;
  waiting: number;
  heavyActive: number;
  heavyWaiting: number;
  authActive: number;
  authWaiting: number;
  /** Requests refused since start (queue full, a client over its share, a heavy deadline). */
  shed: number;
}

interface Waiter {
  client: string;
  admit(release: Release): void;
  refuse(): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  timer?: NodeJS.Timeout;
}

/** One lane: its turns, and its waiting requests queued per client, served round-robin. */
class LaneQueue {
  active = 0;
  waiting = 0;
  /** Per client, its waiting requests in arrival order. */
  private readonly byClient = new Map<string, Waiter[]>();
  /** Clients with waiting requests, in the order they get their next turn. */
  private readonly ring: string[] = [];

  constructor(
    readonly concurrency: number,
    readonly queueLimit: number,
    readonly perClientLimit: number,
    readonly maxWaitMs: number | null,
  ) {}

  waitingOf(client: string): number {
    return this.byClient.get(client)?.length ?? 0;
  }

  push(waiter: Waiter): void {
    const queue = this.byClient.get(waiter.client);
    if (queue) queue.push(waiter);
    else {
      this.byClient.set(waiter.client, [waiter]);
      this.ring.push(waiter.client);
    }
    this.waiting++;
  }

  remove(waiter: Waiter): boolean {
    const queue = this.byClient.get(waiter.client);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index === -1) return false;
    queue.splice(index, 1);
    this.waiting--;
    if (queue.length === 0) this.dropClient(waiter.client);
    return true;
  }

  /** The next waiter: the first of the client whose turn it is. */
  shift(): Waiter | undefined {
    const client = this.ring.shift();
    if (client === undefined) return undefined;
    const queue = this.byClient.get(client) ?? [];
    const waiter = queue.shift();
    this.waiting--;
    if (queue.length === 0) this.byClient.delete(client);
    else this.ring.push(client);
    return waiter;
  }

  private dropClient(client: string): void {
    this.byClient.delete(client);
    const at = this.ring.indexOf(client);
    if (at !== -1) this.ring.splice(at, 1);
  }
}

export class AdmissionQueue {
  private readonly lanes: Record<Lane, LaneQueue>;
  private shed = 0;
  private scheduled = false;

  constructor(options: AdmissionOptions) {
    if (!(options.concurrency >= 1)) throw new Error("concurrency must be at least 1");
    if (!(options.queueLimit >= 0)) throw new Error("queueLimit must be 0 or more");
    const heavyQueue = options.heavyQueueLimit ?? 20;
    const share = (limit: number) =>
      options.perClientQueueLimit ?? Math.max(4, Math.ceil(limit / 4));
    this.lanes = {
      light: new LaneQueue(
        options.concurrency,
        options.queueLimit,
        share(options.queueLimit),
        null,
      ),
      heavy: new LaneQueue(
        Math.max(1, options.heavyConcurrency ?? 1),
        heavyQueue,
        share(heavyQueue),
        options.heavyMaxWaitMs ?? 30_000,
      ),
      auth: new LaneQueue(
        Math.max(1, options.authConcurrency ?? 2),
        options.queueLimit,
        share(options.queueLimit),
        null,
      ),
    };
  }

  /** Requests being worked on, and waiting for a turn, per lane; and how many were refused. */
  get stats(): AdmissionStats {
    return {
      active: this.lanes.light.active,
      waiting: this.lanes.light.waiting,
      heavyActive: this.lanes.heavy.active,
      heavyWaiting: this.lanes.heavy.waiting,
      authActive: this.lanes.auth.active,
      authWaiting: this.lanes.auth.waiting,
      shed: this.shed,
    };
  }

  /**
   * A turn in the ticket's lane: resolves with the function to call once the work is done
   * (exactly once; later calls do nothing), or with null when the request is refused — its
   * lane's queue is full, its client already has its share waiting, a heavy request waited past
   * its deadline — or was aborted while it waited.
   */
  enter(signal?: AbortSignal, ticket: Ticket = {}): Promise<Release | null> {
    if (signal?.aborted) return Promise.resolve(null);
    const lane = this.lanes[ticket.lane ?? "light"];
    const client = ticket.client ?? "";
    if (lane.active < lane.concurrency && lane.waiting === 0 && !this.scheduled) {
      lane.active += 1;
      return Promise.resolve(this.releaser(lane));
    }
    if (lane.waiting >= lane.queueLimit || lane.waitingOf(client) >= lane.perClientLimit) {
      this.shed++;
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        client,
        admit: (release) => resolve(release),
        refuse: () => resolve(null),
        signal,
        onAbort: () => {
          if (lane.remove(waiter)) {
            clearTimeout(waiter.timer);
            resolve(null);
          }
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      if (lane.maxWaitMs !== null) {
        waiter.timer = setTimeout(() => {
          if (!lane.remove(waiter)) return;
          signal?.removeEventListener("abort", waiter.onAbort);
          this.shed++;
          waiter.refuse();
        }, lane.maxWaitMs);
        waiter.timer.unref();
      }
      lane.push(waiter);
    });
  }

  private releaser(lane: LaneQueue): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      lane.active -= 1;
      this.next();
    };
  }

  /**
   * Turns are handed on from the event loop's check phase, after it has polled the network: every
   * request that arrived meanwhile has joined the queue by then. Handing on at once (in the
   * release) lets the connections that are already being served take every turn while others'
   * requests sit unread in the kernel for seconds — a plain Node server doing 15 ms of work per
   * request shows that tail at 50 connections (bench/README.md).
   */
  private next(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const lane of Object.values(this.lanes)) {
        while (lane.active < lane.concurrency) {
          const waiter = lane.shift();
          if (!waiter) break;
          waiter.signal?.removeEventListener("abort", waiter.onAbort);
          clearTimeout(waiter.timer);
          lane.active += 1;
          waiter.admit(this.releaser(lane));
        }
      }
    });
  }
}
