/** Escapes text for safe inclusion in HTML. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

export interface EmailContent {
  /** Shown as the heading. */
  title: string;
  /** Paragraphs of plain text. */
  paragraphs: string[];
  action?: { label: string; url: string };
  /** A closing line in small print (why they got this mail). */
  footer?: string;
}

/** Renders a transactional mail in the product's look, as HTML and plain text. */
export function renderEmail(content: EmailContent): { html: string; text: string } {
  const paragraphs = content.paragraphs
    .map((p) => `<p style="margin:0 0 16px;line-height:1.5">${escapeHtml(p)}</p>`)
    .join("");
  const action = content.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="background:#15803d;color:#ffffff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600;display:inline-block">${escapeHtml(content.action.label)}</a></p><p style="margin:0 0 16px;font-size:13px;color:#4b5563">Or open this link: ${escapeHtml(content.action.url)}</p>`
    : "";
  const footer = content.footer
    ? `<p style="margin:24px 0 0;font-size:12px;color:#6b7280">${escapeHtml(content.footer)}</p>`
    : "";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.title)}</title></head><body style="margin:0;background:#f3f4f6;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#111827"><div style="max-width:560px;margin:0 auto;padding:32px 16px"><p style="margin:0 0 24px;font-weight:800;font-size:18px;color:#15803d">Soundtrail</p><div style="background:#ffffff;border:1px solid #e5e7eb;border-radius:12px;padding:32px"><h1 style="margin:0 0 16px;font-size:22px">${escapeHtml(content.title)}</h1>${paragraphs}${action}</div>${footer}</div></body></html>`;
  const text = [
    content.title,
    "",
    ...content.paragraphs.flatMap((p) => [p, ""]),
    ...(content.action ? [`${content.action.label}: ${content.action.url}`, ""] : []),
    ...(content.footer ? ["--", content.footer] : []),
    "— Soundtrail",
  ].join("\n");
  return { html, text };
}
