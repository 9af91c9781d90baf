/** Statuses worth one more try for an idempotent request (spec §7). */
export const RETRYABLE_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504]);
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export class FetchJsonError extends Error {
  override name = "FetchJsonError";
  constructor(
    message: string,
    public readonly status: number,
    public readonly body: unknown,
  ) {
    super(message);
  }
}

export interface FetchJsonOptions extends Omit<RequestInit, "body"> {
  /** An object is sent as JSON; anything else as is. */
  body?: unknown;
  /** Injected for tests; defaults to the global fetch. */
  fetchImpl?: typeof fetch;
  /** Pause before the retry, in ms. */
  retryDelayMs?: number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    (Object.getPrototypeOf(value) === Object.prototype || Array.isArray(value))
  );
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The browser's JSON call helper. GET/HEAD/OPTIONS are retried once on a network failure or a
 * retryable status; POST/PUT/PATCH/DELETE never are (a blind retry could apply them twice).
 * A status from 400 to 599 throws FetchJsonError with the server's message.
 */
export async function fetchJson<T = unknown>(
  url: string,
  options: FetchJsonOptions = {},
): Promise<T> {
  const { fetchImpl = fetch, retryDelayMs = 300, body, headers, ...init } = options;
  const method = (init.method ?? "GET").toUpperCase();
  const finalHeaders = new Headers(headers);
  finalHeaders.set("Accept", "application/json");
  let payload: BodyInit | undefined;
  if (isPlainObject(body)) {
    finalHeaders.set("Content-Type", "application/json");
    payload = JSON.stringify(body);
  } else if (body !== undefined && body !== null) {
    payload = body as BodyInit;
  }
  const canRetry = IDEMPOTENT_METHODS.has(method);

  for (let attempt = 0; ; attempt++) {
    const isLastAttempt = !canRetry || attempt >= 1;
    let response: Response;
    try {
      response = await fetchImpl(url, { ...init, method, headers: finalHeaders, body: payload });
    } catch (error) {
      if (isLastAttempt || init.signal?.aborted) throw error;
      await new Promise((r) => setTimeout(r, retryDelayMs));
      continue;
    }
    if (RETRYABLE_STATUSES.has(response.status) && !isLastAttempt) {
      await response.body?.cancel();
      await new Promise((r) => setTimeout(r, retryDelayMs));
      continue;
    }
    const data = await readBody(response);
    if (response.status >= 400) {
      const message =
        (isPlainObject(data) && typeof data.message === "string" && data.message) ||
        (typeof data === "string" && data.trim()) ||
        `Request failed with status ${response.status}`;
      throw new FetchJsonError(message, response.status, data);
    }
    return data as T;
  }
}
