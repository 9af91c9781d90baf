import { describe, expect, it } from "vitest";
import { UUID_PATTERN } from "~/core/ids";
import {
  FAILED_MESSAGE,
  isNetworkError,
  isNetworkFailure,
  keepOnNetworkFailure,
  networkFailure,
  newClientId,
  nextSendStep,
  OFFLINE_MESSAGE,
  RETRY_DELAYS_MS,
} from "./resilient-send";

describe("resilient sends", () => {
  it("tells the browser failing to reach the server from an answer or a bug", () => {
    expect(isNetworkError(new TypeError("Failed to fetch"), true)).toBe(true);
    expect(
      isNetworkError(new TypeError("NetworkError when attempting to fetch resource."), true),
    ).toBe(true);
    expect(isNetworkError(new TypeError("Load failed"), true)).toBe(true);
    // Offline, any TypeError from a fetch is the network's.
    expect(isNetworkError(new TypeError("something odd"), false)).toBe(true);
    expect(isNetworkError(new TypeError("x is not a function"), true)).toBe(false);
    expect(isNetworkError(new Error("Unexpected token < in JSON"), true)).toBe(false);
    const aborted = new Error("The user aborted a request: failed to fetch");
    aborted.name = "AbortError";
    expect(isNetworkError(aborted, true)).toBe(false);
    expect(isNetworkError("Failed to fetch", true)).toBe(false);
  });

  it("says offline or couldn't send depending on the connection", () => {
    expect(networkFailure(false)).toEqual({ ok: false, network: true, message: OFFLINE_MESSAGE });
    expect(networkFailure(true).message).toBe(FAILED_MESSAGE);
    expect(isNetworkFailure(networkFailure(true))).toBe(true);
    expect(isNetworkFailure({ ok: false, message: "Refused", fieldErrors: {} })).toBe(false);
    expect(isNetworkFailure({ ok: true, network: true })).toBe(false);
    expect(isNetworkFailure(undefined)).toBe(false);
  });

  it("waits for the connection offline, retries three times online, then offers Retry", () => {
    expect(nextSendStep(1, false)).toEqual({ kind: "wait-online" });
    expect(nextSendStep(7, false)).toEqual({ kind: "wait-online" });
    expect(RETRY_DELAYS_MS).toHaveLength(3);
    expect([1, 2, 3].map((n) => nextSendStep(n, true))).toEqual([
      { kind: "retry", delayMs: 1000 },
      { kind: "retry", delayMs: 2000 },
      { kind: "retry", delayMs: 5000 },
    ]);
    expect(nextSendStep(4, true)).toEqual({ kind: "give-up" });
  });

  it("answers a network failure as data and lets every other error through", async () => {
    await expect(keepOnNetworkFailure(async () => ({ ok: true }))).resolves.toEqual({ ok: true });
    await expect(
      keepOnNetworkFailure(async () => {
        throw new TypeError("Failed to fetch");
      }),
    ).resolves.toMatchObject({ ok: false, network: true });
    const redirect = new Response(null, { status: 302 });
    await expect(
      keepOnNetworkFailure(async () => {
        throw redirect;
      }),
    ).rejects.toBe(redirect);
    await expect(
      keepOnNetworkFailure(async () => {
        throw new RangeError("bug");
      }),
    ).rejects.toThrow("bug");
  });

  it("chooses ids the server takes as a row's uuid, never the same twice", () => {
    const ids = new Set(Array.from({ length: 200 }, () => newClientId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(UUID_PATTERN);
  });
});
