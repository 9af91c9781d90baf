import { renderToString } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { ReplyMarkdown, safeReplyHref } from "./reply-markdown";

function render(text: string): string {
  return renderToString(
    <MemoryRouter>
      <ReplyMarkdown text={text} />
    </MemoryRouter>,
  );
}

describe("ReplyMarkdown", () => {
  it("renders simple formatting and app links", () => {
    const html = render(
      "**Your top artist** is [Radiohead](/search?q=Radiohead).\n\n- [a post](/post/1)",
    );
    expect(html).toContain("<strong>Your top artist</strong>");
    expect(html).toContain('href="/search?q=Radiohead"');
    expect(html).toContain('href="/post/1"');
    expect(html).toContain("<li>");
  });

  it("never renders raw HTML: markup in a reply is text", () => {
    const html = render("hi <img src=x onerror=alert(1)> <script>alert(2)</script>");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script");
  });

  it("drops links that are not app paths or http(s)", () => {
    const html = render(
      "[js](javascript:alert(1)) [data](data:text/html,hi) [other](//evil.example/x) [ok](https://example.com/a)",
    );
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("data:text");
    expect(html).not.toContain('href="//evil.example');
    expect(html).toContain('href="https://example.com/a"');
    expect(html).toContain('rel="noopener noreferrer nofollow"');
  });

  it("keeps a reply's headings out of the page outline", () => {
    expect(render("# Big\n\n## Bigger")).not.toMatch(/<h[1-6]/);
  });

  it("allows only same-app paths and http(s) addresses", () => {
    expect(safeReplyHref("/u/ana")).toBe("/u/ana");
    expect(safeReplyHref("http://example.com")).toBe("http://example.com/");
    expect(safeReplyHref("//example.com")).toBeNull();
    expect(safeReplyHref("/\\example.com")).toBeNull();
    expect(safeReplyHref("JavaScript:alert(1)")).toBeNull();
    expect(safeReplyHref("mailto:a@b.c")).toBeNull();
  });
});
