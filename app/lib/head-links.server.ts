import { Transform } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/** A `<link …>` tag as React writes it (attributes in double quotes, no `>` inside them). */
const LINK_TAG = /<link\b[^>]*>/g;
const NONCE = / nonce="[^"]*"/;

const MODULE_PRELOAD = /^<link rel="modulepreload"[^>]* href="([^"]*)"/;

/**
 * One `<link>` of the document's head, as `headLinks` rewrites it. A `modulepreload` link is
 * taken out and its address added to `modulePreloads`: the inline module script asks for them
 * after the first paint (`afterFirstPaint`).
 */
export function rewriteHeadLink(tag: string, modulePreloads: string[]): string {
  const preload = MODULE_PRELOAD.exec(tag);
  if (preload?.[1]) {
    modulePreloads.push(preload[1].replaceAll("&amp;", "&"));
    return "";
  }
  // script-src allows 'self': the nonce matters for inline scripts only, never for a link to
  // our own files (icons, manifest, stylesheet) — 33 bytes each.
  return tag.replace(NONCE, "");
}

/** `import * as route0 from "/assets/root.js";` or `import "/assets/manifest.js";`. */
const STATIC_IMPORT = /import\s*(?:\*\s*as\s+([A-Za-z_$][\w$]*)\s+from\s*)?("[^"\\]*")\s*;?/g;

/**
 * React Router's inline module script, from its start up to the manifest: the route modules'
 * static `import`s, which the browser fetches as soon as it reads them — before the first paint,
 * which only needs the HTML and the stylesheet. On a slow connection the ~30 module requests
 * competed with the stylesheet, and Lighthouse counts every request started before the largest
 * paint as part of it (issue 17 item 6: 1.5–2 s of "render delay" on text already in the HTML).
 * Rewritten, the script waits for the first frame (not in a hidden tab, which draws none), then
 * adds the `modulepreload` links taken out of the head, so every module loads in parallel as
 * before, and imports the route modules in the same order. The rest of the script (the manifest,
 * the route module table, the entry's import) is unchanged. A script of another shape — any
 * `import` this does not recognise — is left as it was.
 */
export function afterFirstPaint(script: string, modulePreloads: readonly string[]): string {
  const rewritten = script.replace(
    STATIC_IMPORT,
    (_match, name: string | undefined, url: string) =>
      name ? `const ${name} = await import(${url});` : `await import(${url});`,
  );
  if (/\bimport\b(?!\()/.test(rewritten)) return script;
  const hrefs = JSON.stringify(modulePreloads).replaceAll("<", "\\u003c");
  return (
    `\nif (document.visibilityState !== "hidden") await new Promise((go) => requestAnimationFrame(() => setTimeout(go)));` +
    `\nfor (const href of ${hrefs}) document.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href }));` +
    rewritten
  );
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
  rewrite: (text: string, modulePreloads: readonly string[]) => string;
  /** Only its first occurrence (the manifest); else every one (the hydration data's pieces). */
  once: boolean;
}

const REWRITES: readonly Rewrite[] = [
  {
    // React Router's inline module script (`<script … type="module" async="">`) up to its
    // manifest or, without one, its route module table.
    start: 'type="module" async="">',
    end: "window.__reactRouter",
    rewrite: afterFirstPaint,
    once: true,
  },
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
 * (hoisted into `<head>` by React) moved into its inline module script, which adds them after
 * the first paint (`afterFirstPaint`). The page is rendered on the server: its first paint needs
 * the HTML and the stylesheet, not the ~30 modules that hydrate it.
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
  /** The head's `modulepreload` addresses, for React Router's module script. */
  const modulePreloads: string[] = [];
  /** The part being read (its start written, its end not seen yet). */
  let open: Rewrite | null = null;
  const longestStart = Math.max(...REWRITES.map((r) => r.start.length));
  /** Writes what `held` allows; keeps what may still change. */
  const advance = (): string => {
    let out = "";
    if (inHead) {
      const end = held.indexOf("</head>");
      if (end === -1) return out;
      out += held.slice(0, end).replace(LINK_TAG, (tag) => rewriteHeadLink(tag, modulePreloads));
      held = held.slice(end);
      inHead = false;
    }
    for (;;) {
      if (open) {
        const end = held.indexOf(open.end);
        if (end === -1) return out;
        out += open.rewrite(held.slice(0, end), modulePreloads);
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
