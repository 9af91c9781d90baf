import { Transform } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/** A `<link …>` tag as React writes it (attributes in double quotes, no `>` inside them). */
const LINK_TAG = /<link\b[^>]*>/g;
const NONCE = / nonce="[^"]*"/;

/** One `<link>` of the document's head, as `headLinks` rewrites it. */
export function rewriteHeadLink(tag: string): string {
  // script-src allows 'self': the nonce matters for inline scripts only, never for a link to
  // our own files (icons, manifest, stylesheet, modules) — 33 bytes each, ~35 links a page.
  const plain = tag.replace(NONCE, "");
  return plain.startsWith('<link rel="modulepreload"')
    ? plain.replace('<link rel="modulepreload"', '<link rel="modulepreload" fetchpriority="low"')
    : plain;
}

/** Where React Router's inline route manifest starts and ends in its module script. */
const MANIFEST_START = "window.__reactRouterManifest = ";
const MANIFEST_END = ";\n  window.__reactRouterRouteModules";

/**
 * React Router inlines the matched routes' manifest as `JSON.stringify(manifest, null, 2)`:
 * ~1.4 KB of indentation on `/feed`. The same object without it (what the browser evaluates is
 * identical). Anything that does not parse is left as it was.
 */
export function compactManifest(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json));
  } catch {
    return json;
  }
}

/**
 * The document's `<head>` links, lighter and out of the first paint's way (issue 17 items 1
 * and 6): no nonce on links (see `rewriteHeadLink`), and React Router's `modulepreload` links
 * (hoisted into `<head>` by React) at `fetchpriority="low"`. The page is rendered on the server:
 * its first paint needs the HTML and the stylesheet, not the ~30 modules that hydrate it. At
 * their default high priority they competed with the stylesheet on a slow connection, and
 * Lighthouse counted each as blocking the first paint. They still load at once, in parallel;
 * the inline module script waits for them as before.
 *
 * Then the inline route manifest without its pretty-printing (`compactManifest`).
 *
 * Only the `<head>` is held back (a few KB, written with the shell), then the manifest's own
 * JSON once it starts; the rest streams through (less the last few characters of a chunk while
 * the manifest's start may straddle two chunks).
 */
export function headLinks(): Transform {
  const decoder = new StringDecoder("utf8");
  let held = "";
  let state: "head" | "seek" | "manifest" | "pass" = "head";
  /** Moves through the states as far as `held` allows; returns what may be written now. */
  const advance = (): string => {
    let out = "";
    if (state === "head") {
      const end = held.indexOf("</head>");
      if (end === -1) return out;
      out += held.slice(0, end).replace(LINK_TAG, rewriteHeadLink);
      held = held.slice(end);
      state = "seek";
    }
    if (state === "seek") {
      const start = held.indexOf(MANIFEST_START);
      if (start === -1) {
        // Keep what could be the beginning of the marker for the next chunk.
        const keep = Math.min(held.length, MANIFEST_START.length - 1);
        out += held.slice(0, held.length - keep);
        held = held.slice(held.length - keep);
        return out;
      }
      out += held.slice(0, start + MANIFEST_START.length);
      held = held.slice(start + MANIFEST_START.length);
      state = "manifest";
    }
    if (state === "manifest") {
      const end = held.indexOf(MANIFEST_END);
      if (end === -1) return out;
      out += compactManifest(held.slice(0, end));
      held = held.slice(end);
      state = "pass";
    }
    out += held;
    held = "";
    return out;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (state === "pass") {
        callback(null, chunk);
        return;
      }
      held += decoder.write(chunk);
      const out = advance();
      callback(null, out ? Buffer.from(out) : undefined);
    },
    flush(callback) {
      const rest = (state === "pass" ? "" : advance()) + held + decoder.end();
      held = "";
      callback(null, rest ? Buffer.from(rest) : undefined);
    },
  });
}
