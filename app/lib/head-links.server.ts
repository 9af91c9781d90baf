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

/** What a single-quoted literal must escape: its quote and backslash, and what JSON escapes. */
const SINGLE_QUOTED_ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
  /[\\'<>&\u2028\u2029\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * React Router writes each piece of the hydration data as a double-quoted string literal,
 * `enqueue("[{\"_1\":2,…")`: the data is JSON, so every one of its quotes is escaped (~1,350
 * backslashes on `/feed`). The same string as a single-quoted literal needs none of them. `<`,
 * `>` and `&` stay escaped as React Router escapes them (nothing can close the script), and so do
 * the line separators, control characters and lone surrogates. Anything that does not parse
 * as a JSON string is left as it was.
 */
export function singleQuoted(literal: string): string {
  let value: unknown;
  try {
    value = JSON.parse(literal);
  } catch {
    return literal;
  }
  if (typeof value !== "string") return literal;
  const body = value.replace(SINGLE_QUOTED_ESCAPES, (c) =>
    c === "\\" || c === "'" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `'${body}'`;
}

/** A part of the body `headLinks` rewrites: from after `start` up to `end`. */
interface Rewrite {
  start: string;
  end: string;
  rewrite: (text: string) => string;
  /** Only its first occurrence (the manifest); else every one (the hydration data's pieces). */
  once: boolean;
}

const REWRITES: readonly Rewrite[] = [
  {
    start: "window.__reactRouterManifest = ",
    end: ";\n  window.__reactRouterRouteModules",
    rewrite: compactManifest,
    once: true,
  },
  {
    // The literal itself, quotes included: the end is its closing quote and the script's end
    // (`<` is escaped inside it, so `</script>` cannot occur earlier).
    start: "window.__reactRouterContext.streamController.enqueue(",
    end: ");</script>",
    rewrite: singleQuoted,
    once: false,
  },
];

/** The length of the longest end of `text` that begins one of the starts still looked for. */
function partialStart(text: string, pending: ReadonlySet<Rewrite>, longest: number): number {
  for (let length = Math.min(text.length, longest - 1); length > 0; length--) {
    const tail = text.slice(-length);
    for (const rewrite of pending) if (rewrite.start.startsWith(tail)) return length;
  }
  return 0;
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
 * Then React Router's inline scripts, lighter for the same browser (issue 17 item 1): the route
 * manifest without its pretty-printing (`compactManifest`) and the hydration data's pieces as
 * single-quoted literals (`singleQuoted`).
 *
 * Only the `<head>` is held back (a few KB, written with the shell), then each rewritten part
 * once it starts; the rest streams through (less the end of a chunk that could begin a part,
 * until the next chunk says whether it does).
 */
export function headLinks(): Transform {
  const decoder = new StringDecoder("utf8");
  let held = "";
  let inHead = true;
  const pending = new Set(REWRITES);
  /** The part being read (its start written, its end not seen yet). */
  let open: Rewrite | null = null;
  const longestStart = Math.max(...REWRITES.map((r) => r.start.length));
  /** Writes what `held` allows; keeps what may still change. */
  const advance = (): string => {
    let out = "";
    if (inHead) {
      const end = held.indexOf("</head>");
      if (end === -1) return out;
      out += held.slice(0, end).replace(LINK_TAG, rewriteHeadLink);
      held = held.slice(end);
      inHead = false;
    }
    for (;;) {
      if (open) {
        const end = held.indexOf(open.end);
        if (end === -1) return out;
        out += open.rewrite(held.slice(0, end));
        held = held.slice(end);
        open = null;
        continue;
      }
      let next: { rewrite: Rewrite; at: number } | null = null;
      for (const rewrite of pending) {
        const at = held.indexOf(rewrite.start);
        if (at !== -1 && (!next || at < next.at)) next = { rewrite, at };
      }
      if (!next) {
        // Keep only what could be the beginning of a start, for the next chunk: usually
        // nothing, so what React flushed (a shell waiting for deferred data) is not held back.
        const keep = partialStart(held, pending, longestStart);
        out += held.slice(0, held.length - keep);
        held = held.slice(held.length - keep);
        return out;
      }
      const after = next.at + next.rewrite.start.length;
      out += held.slice(0, after);
      held = held.slice(after);
      open = next.rewrite;
      if (next.rewrite.once) pending.delete(next.rewrite);
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      held += decoder.write(chunk);
      const out = advance();
      callback(null, out ? Buffer.from(out) : undefined);
    },
    flush(callback) {
      const rest = advance() + held + decoder.end();
      held = "";
      callback(null, rest ? Buffer.from(rest) : undefined);
    },
  });
}
