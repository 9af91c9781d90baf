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

/**
 * The document's `<head>` links, lighter and out of the first paint's way (issue 17 items 1
 * and 6): no nonce on links (see `rewriteHeadLink`), and React Router's `modulepreload` links
 * (hoisted into `<head>` by React) at `fetchpriority="low"`. The page is rendered on the server:
 * its first paint needs the HTML and the stylesheet, not the ~30 modules that hydrate it. At
 * their default high priority they competed with the stylesheet on a slow connection, and
 * Lighthouse counted each as blocking the first paint. They still load at once, in parallel;
 * the inline module script waits for them as before.
 *
 * Only the `<head>` is held back (a few KB, written with the shell); the rest streams through.
 */
export function headLinks(): Transform {
  const decoder = new StringDecoder("utf8");
  let head = "";
  let passing = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (passing) {
        callback(null, chunk);
        return;
      }
      head += decoder.write(chunk);
      const end = head.indexOf("</head>");
      if (end === -1) {
        callback();
        return;
      }
      passing = true;
      const out = head.slice(0, end).replace(LINK_TAG, rewriteHeadLink) + head.slice(end);
      head = "";
      callback(null, Buffer.from(out));
    },
    flush(callback) {
      const rest = head + decoder.end();
      callback(null, rest ? Buffer.from(rest) : undefined);
    },
  });
}
