import { escapeHtml } from "~/features/mail";

/** The bare address of a sender like `Soundtrail <no-reply@example.org>`, lower-cased. */
export function senderAddress(from: string): string {
  const match = from.match(/<([^<>]+)>\s*$/);
  return (match?.[1] ?? from).trim().toLowerCase();
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  "#39": "'",
  apos: "'",
  nbsp: " ",
};

/** A readable plain-text version of an HTML mail (for its text/plain part). */
export function htmlToText(html: string): string {
  return html
    .replace(/<(style|script|head|title)[^>]*>[\s\S]*?<\/\1>/gi, "")
    .replace(/<a\s[^>]*href\s*=\s*"([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, label) =>
      label.replace(/<[^>]+>/g, "").trim() === href ? href : `${label} (${href})`,
    )
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|h[1-6]|li|tr|blockquote|section|article|header|footer)>/gi, "\n\n")
    .replace(/<li[^>]*>/gi, "• ")
    .replace(/<[^>]+>/g, "")
    .replace(/&(#?\w+);/g, (match, name: string) => ENTITIES[name] ?? match)
    .replace(/[ \t]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * Adds the unsubscribe notice to a bulk mail's HTML (before `</body>` when there is one) and
 * text, so every announcement carries a working link besides the List-Unsubscribe header.
 */
export function withUnsubscribeFooter(html: string, url: string): { html: string; text: string } {
  const footer = `<p style="margin:32px 0 0;font-size:12px;color:#6b7280;font-family:system-ui,sans-serif">You get this announcement because you have a Soundtrail account. <a href="${escapeHtml(url)}" style="color:#15803d">Unsubscribe from announcements</a>.</p>`;
  const closing = html.search(/<\/body\s*>/i);
  const withFooter =
    closing >= 0 ? `${html.slice(0, closing)}${footer}${html.slice(closing)}` : `${html}${footer}`;
  const text = `${htmlToText(html)}\n\n--\nYou get this announcement because you have a Soundtrail account.\nUnsubscribe from announcements: ${url}`;
  return { html: withFooter, text };
}
