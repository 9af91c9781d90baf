import {
  HEARTBEAT_MS,
  type LiveEvent,
  type LiveEventType,
  RECONNECT_DELAYS_MS,
  SILENCE_TIMEOUT_MS,
} from "./protocol";

export type LiveStatus = "connecting" | "open" | "reconnecting" | "stopped";

export interface LiveClientOptions {
  url: string;
  /** The newest notification seq the page already shows; the stream starts after it. */
  after: number;
  onEvent(event: LiveEvent): void;
  onStatus(status: LiveStatus): void;
  /** For tests; defaults to the global fetch and timers. */
  fetch?: typeof fetch;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

// A record, so a new event type that is not listed here fails to compile instead of being dropped.
const EVENT_TYPES: Record<LiveEventType, true> = {
  ready: true,
  heartbeat: true,
  notification: true,
  unread: true,
  post: true,
  unfurl: true,
  listens: true,
  nowPlaying: true,
  counts: true,
};
const KNOWN: ReadonlySet<string> = new Set(Object.keys(EVENT_TYPES));

/**
 * Parses a text/event-stream incrementally (WHATWG "server-sent events" framing): returns the
 * complete events in `buffer` and what is left over.
 */
export function parseEventStream(buffer: string): {
  events: { id: string | null; event: string; data: string }[];
  rest: string;
} {
  const events: { id: string | null; event: string; data: string }[] = [];
  const normalised = buffer.replace(/\r\n?/g, "\n");
  const blocks = normalised.split("\n\n");
  const rest = blocks.pop() ?? "";
  for (const block of blocks) {
    let id: string | null = null;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) events.push({ id, event, data: data.join("\n") });
  }
  return { events, rest };
}

/**
 * The browser's side of `/api/events`: one streaming request, read with fetch so that it can
 * send `Last-Event-ID` itself, see a 401, and time out. 10 s without the first event, or
 * without a heartbeat for 30 + 10 s, counts as a failure; it then reconnects after 1, 2 and
 * 5 s, and every 10 s after that, asking for everything after the last notification it got.
 */
export class LiveClient {
  private lastEventId: number;
  private attempt = 0;
  private stopped = false;
  private controller: AbortController | null = null;
  private watchdog: unknown = null;
  private retry: unknown = null;
  private readonly fetch: typeof fetch;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly options: LiveClientOptions) {
    this.lastEventId = options.after;
    this.fetch = options.fetch ?? ((...args) => fetch(...args));
    this.setTimer = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer =
      options.clearTimeout ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimer(this.watchdog);
    this.clearTimer(this.retry);
    this.controller?.abort();
    this.options.onStatus("stopped");
  }

  /** Reconnect now (the browser came back online, or the tab became visible after a failure). */
  reconnectNow(): void {
    if (this.stopped || this.controller) return;
    this.clearTimer(this.retry);
    void this.connect();
  }

  private armWatchdog(ms: number): void {
    this.clearTimer(this.watchdog);
    this.watchdog = this.setTimer(() => this.controller?.abort(), ms);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const controller = new AbortController();
    this.controller = controller;
    this.options.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    this.armWatchdog(SILENCE_TIMEOUT_MS);
    let unauthorised = false;
    try {
      const url = new URL(this.options.url, globalThis.location?.href);
      url.searchParams.set("after", String(this.lastEventId));
      const response = await this.fetch(url, {
        headers: { Accept: "text/event-stream", "Last-Event-ID": String(this.lastEventId) },
        credentials: "same-origin",
        cache: "no-store",
        signal: controller.signal,
      });
      if (response.status === 401 || response.status === 403) {
        unauthorised = true;
      } else {
        if (!response.ok || !response.body) {
          throw new Error(`live stream answered ${response.status}`);
        }
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          const parsed = parseEventStream(buffer);
          buffer = parsed.rest;
          for (const raw of parsed.events) this.dispatch(raw);
        }
      }
    } catch {
      // Network failure, abort by the watchdog, or a malformed answer: reconnect below.
    } finally {
      this.clearTimer(this.watchdog);
      if (this.controller === controller) this.controller = null;
    }
    if (this.stopped) return;
    if (unauthorised) {
      // Signed out (elsewhere): nothing to listen to until the page changes.
      this.stopped = true;
      this.options.onStatus("stopped");
      return;
    }
    const delay =
      RECONNECT_DELAYS_MS[Math.min(this.attempt, RECONNECT_DELAYS_MS.length - 1)] ?? 10_000;
    this.attempt++;
    this.options.onStatus("reconnecting");
    this.retry = this.setTimer(() => void this.connect(), delay);
  }

  private dispatch(raw: { id: string | null; event: string; data: string }): void {
    // Anything at all proves the connection alive until the next heartbeat is due.
    this.armWatchdog(HEARTBEAT_MS + SILENCE_TIMEOUT_MS);
    if (!KNOWN.has(raw.event)) return;
    let data: unknown;
    try {
      data = JSON.parse(raw.data);
    } catch {
      return;
    }
    if (raw.event === "ready") {
      this.attempt = 0;
      this.options.onStatus("open");
    }
    if (raw.id !== null && /^\d+$/.test(raw.id)) {
      const id = Number(raw.id);
      // Never shown twice: an event at or before what we have is a repeat.
      if (id <= this.lastEventId) return;
      this.lastEventId = id;
    }
    this.options.onEvent({ type: raw.event, data } as LiveEvent);
  }
}
