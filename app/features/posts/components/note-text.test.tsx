import { renderToString } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { NoteText } from "./note-text";

function render(text: string): string {
  return renderToString(
    <MemoryRouter>
      <NoteText text={text} />
    </MemoryRouter>,
  );
}

describe("NoteText", () => {
  it("shows markup typed by a user as text", () => {
    const html = render(`hi <img src=x onerror=alert(1)> <script>alert(2)</script>`);
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("links URLs (new tab, no referrer), mentions and tags", () => {
    const html = render("by @ana_rivera #shoegaze https://example.com/a?b=1&c=2");
    expect(html).toContain('href="/u/ana_rivera"');
    expect(html).toContain('href="/search?q=%23shoegaze&amp;type=tags"');
    expect(html).toContain('href="https://example.com/a?b=1&amp;c=2"');
    // noreferrer implies noopener (HTML's link types), so the attribute does not repeat it.
    expect(html).toContain('rel="noreferrer nofollow ugc"');
  });

  it("never links a javascript: URL", () => {
    expect(render("javascript:alert(1)")).not.toContain("href");
  });
});
