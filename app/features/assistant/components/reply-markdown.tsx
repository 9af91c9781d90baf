import { Fragment, type ReactNode } from "react";
import { Link } from "react-router";

/**
 * Where a link in a reply may go: a path of this app, or an http(s) address. Anything else
 * (javascript:, data:, protocol-relative //host) loses its link.
 */
export function safeReplyHref(url: string): string | null {
  const href = url.trim();
  if (href.startsWith("/") && !href.startsWith("//") && !href.startsWith("/\\")) return href;
  if (/^https?:\/\//i.test(href)) {
    try {
      return new URL(href).toString();
    } catch {
      return null;
    }
  }
  return null;
}

/*
 * The markdown an assistant writes, rendered as React elements — never as HTML: markup in a
 * reply is text, whatever it says. Blocks: paragraphs, headings (shown as bold paragraphs, so a
 * reply stays out of the page's outline), bullet and numbered lists (nested by indentation),
 * block quotes, fenced and indented code. Inline: `code`, **strong**, *emphasis* (and the `_`
 * forms), [links](url) limited by safeReplyHref, images as their alt text, backslash escapes.
 * Written for this (react-markdown with its parser was 40 KB of gzip on the assistant's page,
 * more than the whole page may add); what it does not know shows as the text it is.
 */

/** A block of a reply; `at` is its first line among its siblings' lines (its React key). */
type Block = { at: number } & (
  | { kind: "paragraph"; text: string }
  | { kind: "heading"; text: string }
  | { kind: "code"; text: string }
  | { kind: "quote"; blocks: Block[] }
  | { kind: "list"; ordered: boolean; start: number; items: { at: number; blocks: Block[] }[] }
);

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)(.*?)(?:[ \t]+#+)?[ \t]*$/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)/;
const QUOTE = /^ {0,3}> ?/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const blank = (line: string) => line.trim() === "";

/** Where a new block starts, ending a paragraph. */
function startsBlock(line: string): boolean {
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    QUOTE.test(line) ||
    RULE.test(line) ||
    LIST_ITEM.test(line)
  );
}

/**
 * How deep lists, quotes, emphasis and links may nest; deeper is shown as text. A reply is
 * rendered on the server, and "- - - - …" nested thousands deep must not exhaust its stack.
 */
const MAX_NESTING = 12;
/** How far a link's label may reach for its closing bracket. */
const MAX_LABEL = 1000;

function parseBlocks(lines: string[], depth = 0): Block[] {
  if (depth > MAX_NESTING) {
    const text = lines.join("\n").trim();
    return text ? [{ at: 0, kind: "paragraph", text }] : [];
  }
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    const at = i;
    if (blank(line) || RULE.test(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] as string;
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] as string).trimStart().startsWith(marker)) {
        body.push(lines[i] as string);
        i++;
      }
      i++; // the closing fence (or the end of the reply)
      blocks.push({ at, kind: "code", text: body.join("\n") });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ at, kind: "heading", text: heading[1] ?? "" });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] as string)) {
        body.push((lines[i] as string).replace(QUOTE, ""));
        i++;
      }
      blocks.push({ at, kind: "quote", blocks: parseBlocks(body, depth + 1) });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2] as string);
      const list: Block & { kind: "list" } = {
        at,
        kind: "list",
        ordered,
        start: ordered ? Number.parseInt(item[2] as string, 10) : 1,
        items: [],
      };
      while (i < lines.length) {
        const current = LIST_ITEM.exec(lines[i] as string);
        if (!current || /\d/.test(current[2] as string) !== ordered) break;
        // The item's content column: what follows its marker; continuation lines indented at
        // least that far (or lazily, right after text) belong to it.
        const indent = current[0].length || (current[1] as string).length + 2;
        const itemAt = i;
        const body = [(lines[i] as string).slice(current[0].length)];
        i++;
        while (i < lines.length) {
          const next = lines[i] as string;
          const nextIndent = next.length - next.trimStart().length;
          if (blank(next)) {
            const following = lines[i + 1];
            if (
              following === undefined ||
              following.length - following.trimStart().length < indent
            ) {
              break;
            }
            body.push("");
          } else if (nextIndent >= indent) {
            body.push(next.slice(Math.min(indent, nextIndent)));
          } else if (!startsBlock(next) && !blank(body[body.length - 1] as string)) {
            body.push(next.trim());
          } else {
            break;
          }
          i++;
        }
        list.items.push({ at: itemAt, blocks: parseBlocks(body, depth + 1) });
        while (i < lines.length && blank(lines[i] as string) && LIST_ITEM.test(lines[i + 1] ?? ""))
          i++;
      }
      blocks.push(list);
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (
        i < lines.length &&
        (/^( {4}|\t)/.test(lines[i] as string) || blank(lines[i] as string))
      ) {
        body.push((lines[i] as string).replace(/^( {4}|\t)/, ""));
        i++;
      }
      blocks.push({ at, kind: "code", text: body.join("\n").replace(/\n+$/, "") });
      continue;
    }
    // Lines keep their trailing spaces: two before a line break make a hard break.
    const body = [line.trimStart()];
    i++;
    while (i < lines.length && !blank(lines[i] as string) && !startsBlock(lines[i] as string)) {
      body.push((lines[i] as string).trimStart());
      i++;
    }
    blocks.push({ at, kind: "paragraph", text: body.join("\n").trimEnd() });
  }
  return blocks;
}

const ESCAPABLE = /\\([!-/:-@[-`{-~])/g;

/** The first `[text](url)` or `![alt](url)` starting at `from`, with balanced brackets. */
function linkAt(text: string, from: number): { label: string; url: string; end: number } | null {
  let depth = 0;
  let close = -1;
  for (let j = from; j < Math.min(text.length, from + MAX_LABEL); j++) {
    const c = text[j];
    if (c === "\\") {
      j++;
    } else if (c === "[") {
      depth++;
    } else if (c === "]") {
      depth--;
      if (depth === 0) {
        close = j;
        break;
      }
    }
  }
  if (close === -1 || text[close + 1] !== "(") return null;
  const target =
    /^\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/.exec(
      text.slice(close + 1),
    );
  if (!target) return null;
  const url = (target[1] as string).replace(/^<(.*)>$/, "$1");
  return { label: text.slice(from + 1, close), url, end: close + 1 + target[0].length };
}

function ReplyLink({ url, children }: { url: string; children: ReactNode }) {
  const safe = safeReplyHref(url.replace(ESCAPABLE, "$1"));
  if (!safe) return <span>{children}</span>;
  if (safe.startsWith("/")) {
    return (
      <Link to={safe} prefetch="intent" className="font-medium text-primary underline">
        {children}
      </Link>
    );
  }
  return (
    <a
      href={safe}
      rel="noopener noreferrer nofollow"
      target="_blank"
      className="font-medium text-primary underline"
    >
      {children}
    </a>
  );
}

/** Inline markdown as React nodes: code, links, images (their alt), strong, emphasis, escapes. */
function inline(text: string, depth = 0): ReactNode[] {
  if (depth > MAX_NESTING) return [text];
  const out: ReactNode[] = [];
  // A marker run that found no closer: none further on can find one either (a closer does not
  // depend on its opener), so later ones are text without searching again.
  const unclosed = new Set<string>();
  let plain = "";
  const flush = () => {
    if (plain) out.push(plain);
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1] as string)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "\\" && text[i + 1] === "\n") {
      flush();
      out.push(<br key={out.length} />);
      i += 2;
      continue;
    }
    if (c === "`") {
      const ticks = /^`+/.exec(text.slice(i))?.[0] as string;
      const close = text.indexOf(ticks, i + ticks.length);
      if (close !== -1) {
        flush();
        let code = text.slice(i + ticks.length, close).replace(/\n/g, " ");
        if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
        out.push(
          <code key={out.length} className="rounded bg-muted px-1 text-sm">
            {code}
          </code>,
        );
        i = close + ticks.length;
        continue;
      }
      plain += ticks;
      i += ticks.length;
      continue;
    }
    if (c === "[" || (c === "!" && text[i + 1] === "[")) {
      const image = c === "!";
      const link = linkAt(text, image ? i + 1 : i);
      if (link) {
        flush();
        if (image) {
          out.push(<span key={out.length}>{link.label.replace(ESCAPABLE, "$1")}</span>);
        } else {
          out.push(
            <ReplyLink key={out.length} url={link.url}>
              {inline(link.label, depth + 1)}
            </ReplyLink>,
          );
        }
        i = link.end;
        continue;
      }
    }
    if (c === "*" || c === "_") {
      const run = c === text[i + 1] ? c + c : c;
      const after = text[i + run.length];
      const before = text[i - 1];
      // An opening run is followed by a non-space; `_` inside a word (snake_case) is text.
      const opens =
        after !== undefined &&
        !/\s/.test(after) &&
        !(c === "_" && before !== undefined && /[\p{L}\p{N}]/u.test(before));
      if (opens && !unclosed.has(run)) {
        let close = -1;
        for (let j = i + run.length + 1; j <= text.length - run.length; j++) {
          if (text[j - 1] === "\\") continue;
          if (
            text.startsWith(run, j) &&
            !/\s/.test(text[j - 1] as string) &&
            text[j + run.length] !== c &&
            !(c === "_" && /[\p{L}\p{N}]/u.test(text[j + run.length] ?? ""))
          ) {
            close = j;
            break;
          }
        }
        if (close === -1) unclosed.add(run);
        else {
          flush();
          const children = inline(text.slice(i + run.length, close), depth + 1);
          out.push(
            run.length === 2 ? (
              <strong key={out.length}>{children}</strong>
            ) : (
              <em key={out.length}>{children}</em>
            ),
          );
          i = close + run.length;
          continue;
        }
      }
      plain += run;
      i += run.length;
      continue;
    }
    if (c === "\n") {
      // Two spaces before a line break are a hard break; otherwise a space-like soft break.
      if (plain.endsWith("  ")) {
        plain = plain.trimEnd();
        flush();
        out.push(<br key={out.length} />);
      } else {
        plain += "\n";
      }
      i++;
      continue;
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

function renderBlocks(blocks: Block[], tight = false): ReactNode[] {
  return blocks.map((block) => {
    const index = block.at;
    switch (block.kind) {
      case "paragraph":
        return tight ? (
          <Fragment key={index}>{inline(block.text)}</Fragment>
        ) : (
          <p key={index} className="my-1">
            {inline(block.text)}
          </p>
        );
      case "heading":
        return (
          <p key={index} className="font-semibold">
            {inline(block.text)}
          </p>
        );
      case "code":
        return (
          <pre key={index} className="overflow-x-auto rounded bg-muted p-2 text-sm">
            <code>{block.text}</code>
          </pre>
        );
      case "quote":
        return (
          <blockquote key={index} className="my-1 border-l-2 border-border pl-3">
            {renderBlocks(block.blocks)}
          </blockquote>
        );
      case "list": {
        // An item's text shows without paragraph margins (a "tight" list), unless the item
        // holds several paragraphs.
        const items = block.items.map((item) => (
          <li key={item.at}>
            {renderBlocks(
              item.blocks,
              item.blocks.filter((b) => b.kind === "paragraph").length <= 1,
            )}
          </li>
        ));
        const List = block.ordered ? "ol" : "ul";
        return (
          <List
            key={index}
            start={block.start === 1 ? undefined : block.start}
            className={`my-1 ${block.ordered ? "list-decimal" : "list-disc"} space-y-1 pl-5`}
          >
            {items}
          </List>
        );
      }
      default:
        return null;
    }
  });
}

/**
 * A reply as markdown rendered to React elements (no raw HTML, which shows as text), with links
 * limited to the app's own paths and http(s).
 */
export function ReplyMarkdown({ text }: { text: string }) {
  return <>{renderBlocks(parseBlocks(text.replace(/\r\n?/g, "\n").split("\n")))}</>;
}
