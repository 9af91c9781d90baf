import sanitizeHtml from "sanitize-html";

/**
 * The allow-list for HTML that arrives from other servers (a remote note's `content`): text
 * structure and links only — no script, no style, no images, no attributes but a link's
 * target — and every link `rel="nofollow noopener ugc"`, opened in a new tab. sanitize-html is
 * a maintained allow-list sanitiser; nothing else of a remote note is ever rendered as HTML.
 */
const REMOTE_HTML: sanitizeHtml.IOptions = {
  allowedTags: [
    "p",
    "br",
    "a",
    "span",
    "strong",
    "b",
    "em",
    "i",
    "u",
    "s",
    "del",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
  ],
  allowedAttributes: { a: ["href"] },
  allowedSchemes: ["http", "https"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  transformTags: {
    a: sanitizeHtml.simpleTransform("a", {
      rel: "nofollow noopener ugc",
      target: "_blank",
    }),
  },
};

/** Remote HTML reduced to the allow-list above. */
export function sanitizeRemoteHtml(html: string): string {
  return sanitizeHtml(html, {
    ...REMOTE_HTML,
    allowedAttributes: { a: ["href", "rel", "target"] },
  });
}

/**
 * Remote HTML as plain text (what our cards show: they render text, never markup): paragraphs
 * and line breaks become new lines, every tag goes, entities are decoded.
 */
export function htmlToText(html: string): string {
  const marked = html.replace(/<br\s*\/?>/gi, "\n").replace(/<\/p>\s*<p[^>]*>/gi, "\n\n");
  const text = sanitizeHtml(marked, { allowedTags: [], allowedAttributes: {} });
  return decodeEntities(text)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&");
}

/** Plain text as HTML: escaped, paragraphs and line breaks kept, URLs as links. */
export function textToHtml(text: string): string {
  const escapeText = (s: string) =>
    s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return text
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== "")
    .map(
      (paragraph) =>
        `<p>${escapeText(paragraph)
          .replace(
            /https?:\/\/[^\s<>"]+/g,
            (url) => `<a href="${url}" rel="nofollow noopener ugc" target="_blank">${url}</a>`,
          )
          .replace(/\n/g, "<br>")}</p>`,
    )
    .join("");
}
