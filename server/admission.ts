/**
 * Bounded concurrency for the app's requests, first come first served.
 *
 * Node renders on one thread: with 50 requests rendering at once, each one's work is sliced
 * between all the others and every answer is late — the tail grows with the load (bench:
 * p99 11× p50 at 50 connections). Admitting a few at a time and queueing the rest in arrival
 * order keeps each render short and answers in order; when the queue itself is too long, a
 * quick 503 with `Retry-After` is better for everyone than a slow answer after many seconds.
 */
export interface AdmissionOptions {
  /** Requests the app works on at once. */
  concurrency: number;
  /** Requests that may wait for a turn; beyond that, `enter` refuses at once. */
  queueLimit: number;
}

export type Release = () => void;

interface Waiter {
  admit(release: Release): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class AdmissionQueue {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: AdmissionOptions) {
    if (!(options.concurrency >= 1)) throw new Error("concurrency must be at least 1");
    if (!(options.queueLimit >= 0)) throw new Error("queueLimit must be 0 or more");
  }

  /** Requests being worked on, and waiting for a turn. */
  get stats(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  /**
   * A turn: resolves with the function to call once the work is done (exactly once; later
   * calls do nothing), or with null when the queue is full or the request was aborted while it
   * waited.
   */
  enter(signal?: AbortSignal): Promise<Release | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if (this.active < this.options.concurrency && this.waiting.length === 0 && !this.scheduled) {
      this.active += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.options.queueLimit) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        admit: (release) => resolve(release),
        signal,
        onAbort: () => {
          const index = this.waiting.indexOf(waiter);
          if (index !== -1) this.waiting.splice(index, 1);
          resolve(null);
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      this.next();
    };
  }

  /**
   * Turns are handed on from the event loop's check phase, after it has polled the network: every
   * request that arrived meanwhile has joined the queue by then, so the order is the order of
   * arrival. Handing on at once (in the release) lets the connections that are already being
   * served take every turn while others' requests sit unread in the kernel for seconds — a
   * plain Node server doing 15 ms of work per request shows that tail at 50 connections
   * (bench/README.md).
   */
  private scheduled = false;

  private next(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.active < this.options.concurrency) {
        const waiter = this.waiting.shift();
        if (!waiter) return;
        waiter.signal?.removeEventListener("abort", waiter.onAbort);
        this.active += 1;
        waiter.admit(this.releaser());
      }
    });
  }
}
