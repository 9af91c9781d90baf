import { createReadStream, type Stats } from "node:fs";
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".map": "application/json; charset=utf-8",
};

const COMPRESSIBLE = new Set([
  ".js",
  ".mjs",
  ".css",
  ".json",
  ".svg",
  ".webmanifest",
  ".txt",
  ".map",
  ".html",
]);

/**
 * Static HTML (the offline page) has no scripts: a policy that allows none, and only its own
 * inline styles and images.
 */
const STATIC_HTML_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

async function statFile(file: string): Promise<Stats | null> {
  try {
    const s = await stat(file);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/** Picks the precompressed variant the client accepts: brotli, then gzip. */
export function pickEncoding(acceptEncoding: string | undefined): ("br" | "gzip")[] {
  const accept = (acceptEncoding ?? "").toLowerCase();
  const out: ("br" | "gzip")[] = [];
  if (/\bbr\b/.test(accept)) out.push("br");
  if (/\bgzip\b/.test(accept)) out.push("gzip");
  return out;
}

/**
 * Serves a file from `root` when the URL names one. Hashed files under /assets/ are cached
 * for a year as immutable; everything else for an hour (spec §9). Returns false to fall through.
 */
export async function serveStatic(
  req: IncomingMessage,
  res: ServerResponse,
  root: string,
  pathname: string,
  extraHeaders: Record<string, string> = {},
): Promise<boolean> {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  if (decoded.includes("\0")) return false;
  const file = path.join(root, path.normalize(decoded));
  if (!file.startsWith(root + path.sep)) return false;
  const ext = path.extname(file);
  const type = TYPES[ext];
  if (!type) return false;
  const fileStat = await statFile(file);
  if (!fileStat) return false;

  let servedFile = file;
  let servedStat = fileStat;
  let encoding: string | undefined;
  if (COMPRESSIBLE.has(ext)) {
    for (const candidate of pickEncoding(req.headers["accept-encoding"])) {
      const variant = `${file}.${candidate === "br" ? "br" : "gz"}`;
      const variantStat = await statFile(variant);
      if (variantStat) {
        servedFile = variant;
        servedStat = variantStat;
        encoding = candidate;
        break;
      }
    }
  }

  const isHashedAsset = decoded.startsWith("/assets/");
  // The build id and the service worker must be asked for again, so a new build is seen at once.
  const isVersionFile = decoded === "/version.json" || decoded === "/sw.js";
  for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
  res.setHeader("Content-Type", type);
  if (ext === ".html") res.setHeader("Content-Security-Policy", STATIC_HTML_CSP);
  res.setHeader("Content-Length", servedStat.size);
  res.setHeader(
    "Cache-Control",
    isVersionFile
      ? "no-cache"
      : isHashedAsset
        ? "public, max-age=31536000, immutable"
        : "public, max-age=3600",
  );
  res.setHeader("Last-Modified", fileStat.mtime.toUTCString());
  if (COMPRESSIBLE.has(ext)) res.setHeader("Vary", "Accept-Encoding");
  if (encoding) res.setHeader("Content-Encoding", encoding);
  res.statusCode = 200;
  if (req.method === "HEAD") {
    res.end();
    return true;
  }
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(servedFile);
    stream.on("error", reject);
    res.on("close", resolve);
    stream.pipe(res);
  });
  return true;
}
