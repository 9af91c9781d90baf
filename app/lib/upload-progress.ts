/**
 * Large form uploads with progress. `fetch` reports nothing while a body is sent, so a route's
 * clientAction hands its multipart request to `sendWithUploadProgress`: the same request goes to
 * the same server action over XMLHttpRequest (React Router's single-fetch `.data` address, the
 * one `serverAction()` would use), the browser's upload progress events feed a small store that
 * the form reads with `useUploadProgress`, and the answer is decoded as React Router decodes it:
 * a redirect stays a redirect (with its toast cookie), a refusal stays action data with its
 * status, a thrown error stays an error. Without JavaScript the form posts as it always did.
 */
import { useSyncExternalStore } from "react";
import { data, redirect, UNSAFE_decodeViaTurboStream } from "react-router";

export interface UploadProgress {
  /** Bytes of the request body sent so far. */
  loaded: number;
  /** Bytes of the whole request body. */
  total: number;
  /** True once the last byte is sent: the server is reading the files now. */
  sent: boolean;
}

let current: UploadProgress | null = null;
const listeners = new Set<() => void>();

function publish(next: UploadProgress | null) {
  current = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** The upload under way (null when none, or before the first progress event). */
export function useUploadProgress(): UploadProgress | null {
  return useSyncExternalStore(
    subscribe,
    () => current,
    () => null,
  );
}

/** Whole percent sent, 0–100. */
export function uploadPercent(progress: UploadProgress): number {
  if (progress.total <= 0) return progress.sent ? 100 : 0;
  return Math.min(100, Math.floor((progress.loaded / progress.total) * 100));
}

/** The single-fetch address React Router posts an action to (see its `singleFetchUrl`). */
function dataUrl(requestUrl: string): string {
  const url = new URL(requestUrl, window.location.origin);
  url.pathname = url.pathname === "/" ? "/_root.data" : `${url.pathname.replace(/\/$/, "")}.data`;
  return url.href;
}

interface XhrAnswer {
  status: number;
  statusText: string;
  headers: (name: string) => string | null;
  body: ArrayBuffer;
}

function send(url: string, body: FormData, signal: AbortSignal): Promise<XhrAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.responseType = "arraybuffer";
    xhr.upload.addEventListener("progress", (event) => {
      publish({
        loaded: event.loaded,
        total: event.lengthComputable ? event.total : 0,
        sent: false,
      });
    });
    xhr.upload.addEventListener("load", () => {
      publish({ loaded: current?.total ?? 0, total: current?.total ?? 0, sent: true });
    });
    xhr.addEventListener("load", () =>
      resolve({
        status: xhr.status,
        statusText: xhr.statusText,
        headers: (name) => xhr.getResponseHeader(name),
        body: xhr.response as ArrayBuffer,
      }),
    );
    // As fetch does: a network failure is a TypeError, an abort an AbortError.
    xhr.addEventListener("error", () => reject(new TypeError("Failed to fetch")));
    xhr.addEventListener("abort", () =>
      reject(new DOMException("The upload was cancelled.", "AbortError")),
    );
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

/**
 * Sends a route's form request to its server action with upload progress, and returns what
 * `serverAction()` would have: the action's data (with its status), or a redirect.
 */
export async function sendWithUploadProgress(request: Request): Promise<unknown> {
  const body = await request.formData();
  publish({ loaded: 0, total: 0, sent: false });
  try {
    const res = await send(dataUrl(request.url), body, request.signal);
    if (res.status >= 400 && !res.headers("X-Remix-Response")) {
      throw new Response(new TextDecoder().decode(res.body), {
        status: res.status,
        statusText: res.statusText,
      });
    }
    const redirectTo = res.headers("X-Remix-Redirect");
    if (res.status === 204 && redirectTo) {
      return redirect(redirectTo, Number(res.headers("X-Remix-Status") || "302"));
    }
    if (res.status === 204 || res.status === 205 || res.status === 304) return data(undefined);
    const decoded = await UNSAFE_decodeViaTurboStream(
      new Response(res.body).body as ReadableStream<Uint8Array>,
      window,
    );
    const value = decoded.value as
      | { redirect: string; status: number; replace?: boolean }
      | { data: unknown }
      | { error: unknown };
    if ("redirect" in value) {
      return redirect(value.redirect, value.status);
    }
    if ("error" in value) throw value.error;
    return data(value.data, res.status);
  } finally {
    publish(null);
  }
}
