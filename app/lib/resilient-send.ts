/**
 * Resilient sends (ADR 037): a mutation that fails because the network did keeps what was
 * typed and what it shows, says so in place, and goes again by itself. Only sends that are safe
 * to repeat are repeated: a like, an unlike or a follow names the state it wants (sending it
 * twice changes nothing), and a post or a comment carries the id its author's browser chose, on
 * which the server finds the first one instead of adding a second.
 */

/** What a send answers when the network failed: no answer from the server at all. */
export interface NetworkFailure {
  ok: false;
  network: true;
  message: string;
}

export const OFFLINE_MESSAGE = "You're offline — we'll send it when you're back";
export const FAILED_MESSAGE = "Couldn't send";
/** The same, said by a settings form: what it does is save. */
export const OFFLINE_SAVE_MESSAGE = "You're offline — we'll save it when you're back";
export const FAILED_SAVE_MESSAGE = "Couldn't save";

/**
 * Pauses before the automatic retries of a send that failed while the browser believed it was
 * online: the spec retries a request up to 3 times on a network failure, and its reconnect
 * backoff is 1, 2, 5 (then 10) seconds.
 */
export const RETRY_DELAYS_MS = [1000, 2000, 5000] as const;

const NETWORK_MESSAGE =
  /failed to fetch|networkerror|network error|load failed|network request failed|err_internet_disconnected|fetch failed/i;

function browserIsOnline(): boolean {
  return typeof navigator === "undefined" || navigator.onLine !== false;
}

/**
 * True when `error` is the browser failing to reach the server (no answer), not an answer the
 * server gave or a bug: fetch rejects with a TypeError then, whose wording differs by browser.
 */
export function isNetworkError(error: unknown, isOnline = browserIsOnline()): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "AbortError") return false;
  if (NETWORK_MESSAGE.test(error.message)) return true;
  return error instanceof TypeError && !isOnline;
}

export function networkFailure(isOnline = browserIsOnline()): NetworkFailure {
  return { ok: false, network: true, message: isOnline ? FAILED_MESSAGE : OFFLINE_MESSAGE };
}

export function isNetworkFailure(value: unknown): value is NetworkFailure {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { network?: unknown }).network === true &&
    (value as { ok?: unknown }).ok === false
  );
}

/**
 * A route's `clientAction` body: the server's answer as is, or a NetworkFailure as the action's
 * data when the network failed (instead of an error that would replace the page).
 */
export async function keepOnNetworkFailure<T>(send: () => Promise<T>): Promise<T | NetworkFailure> {
  try {
    return await send();
  } catch (error) {
    if (isNetworkError(error)) return networkFailure();
    throw error;
  }
}

export type SendStep =
  | { kind: "wait-online" }
  | { kind: "retry"; delayMs: number }
  | { kind: "give-up" };

/**
 * What to do after the `failures`-th network failure in a row (1 for the first): offline, wait
 * for the connection; online, retry after the next pause, up to RETRY_DELAYS_MS.length times;
 * then stop and offer "Retry" (coming back online still sends it).
 */
export function nextSendStep(failures: number, isOnline: boolean): SendStep {
  if (!isOnline) return { kind: "wait-online" };
  const delayMs = RETRY_DELAYS_MS[failures - 1];
  return delayMs === undefined ? { kind: "give-up" } : { kind: "retry", delayMs };
}

/** A fresh idempotency key for a post or a comment (a v4 uuid, the row's id on the server). */
export function newClientId(): string {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") {
    return crypto.randomUUID();
  }
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
