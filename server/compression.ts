import { constants, createBrotliCompress, createGzip, type Gzip } from "node:zlib";

/*
 * Compression on the wire for what the app renders (ARCHITECTURE §9): HTML documents, `.data`
 * responses (React Router's `text/x-script`), JSON and text, compressed as they stream. Static
 * files never come here: server/static.ts serves their precompressed `.br`/`.gz` variants.
 */

export type Encoding = "br" | "gzip";

/** Bodies known to be smaller than this go out as they are: the headers would cost more. */
export const MIN_COMPRESS_BYTES = 1024;

/**
 * Media types worth compressing. Never `text/event-stream`: a live stream must not buffer. Not
 * `text/plain` either: here that is the server's own short refusals and errors, which the
 * compressor would only delay.
 */
const COMPRESSIBLE =
  /^(?:text\/(?:html|css|javascript|x-script|xml|csv)|application\/(?:json|javascript|xml|manifest\+json|[\w.+-]+\+json)|image\/svg\+xml)$/;

function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Whether a response of this type may vary by Accept-Encoding (so caches must key on it). */
export function isCompressibleType(contentType: string | null): boolean {
  const type = mediaType(contentType);
  return type !== "text/event-stream" && COMPRESSIBLE.test(type);
}

/**
 * The encoding to use for an `Accept-Encoding` header: brotli when accepted, else gzip, else
 * none. Honours `q=0` (and `*`), e.g. `br;q=0, gzip` gets gzip and `identity` gets nothing.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [token, ...params] = part.trim().split(";");
    if (!token) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split("=");
      if (key === "q") q = Number(value);
    }
    weights.set(token.trim(), Number.isFinite(q) ? q : 0);
  }
  const weight = (name: string) => weights.get(name) ?? weights.get("*") ?? 0;
  if (weight("br") > 0) return "br";
  if (weight("gzip") > 0) return "gzip";
  return null;
}

/** Adds `Accept-Encoding` to a Vary header value (kept as it is when already there or `*`). */
export function varyWithEncoding(vary: string | null): string {
  if (!vary) return "Accept-Encoding";
  const names = vary.split(",").map((v) => v.trim().toLowerCase());
  if (names.includes("*") || names.includes("accept-encoding")) return vary;
  return `${vary}, Accept-Encoding`;
}

/**
 * The encoding for this response, or null to send it as it is: only a body of a compressible
 * type, not already encoded, not marked `no-transform`, not known to be tiny, and only when the
 * client accepts brotli or gzip. HEAD, 204 and 304 have no body to compress.
 */
export function encodingFor(
  method: string,
  acceptEncoding: string | undefined,
  response: Response,
): Encoding | null {
  if (!response.body || method === "HEAD") return null;
  if (response.status === 204 || response.status === 304 || response.status < 200) return null;
  const headers = response.headers;
  if (headers.has("Content-Encoding")) return null;
  if (!isCompressibleType(headers.get("Content-Type"))) return null;
  if (/\bno-transform\b/i.test(headers.get("Cache-Control") ?? "")) return null;
  const length = headers.get("Content-Length");
  if (length !== null && Number(length) < MIN_COMPRESS_BYTES) return null;
  return negotiateEncoding(acceptEncoding);
}

/**
 * A streaming compressor. Brotli at quality 4 (the usual choice for dynamic pages: most of
 * quality 11's gain at a fraction of its CPU) and gzip at level 6. The caller flushes it
 * (`flush()`) whenever the body it reads pauses, so nothing waits in the compressor.
 */
export function createEncoder(encoding: Encoding): Gzip | ReturnType<typeof createBrotliCompress> {
  return encoding === "br"
    ? createBrotliCompress({
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 4,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : createGzip({ level: 6 });
}
