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

describe("ReplyMarkdown, the markdown an assistant writes", () => {
  it("renders emphasis, code, escapes and leaves stray markers as text", () => {
    const html = render(
      "*one* and _two_ and __three__, `a <b>` and \\*not\\*; snake_case_name, 2 * 3 * 4, a ** b and **unclosed",
    );
    expect(html).toContain("<em>one</em>");
    expect(html).toContain("<em>two</em>");
    expect(html).toContain("<strong>three</strong>");
    expect(html).toContain('<code class="rounded bg-muted px-1 text-sm">a &lt;b&gt;</code>');
    expect(html).toContain("*not*");
    expect(html).toContain("snake_case_name");
    expect(html).toContain("2 * 3 * 4");
    expect(html).toContain("a ** b and **unclosed");
  });

  it("nests emphasis and links", () => {
    const html = render("**Top: [Björk](/search?q=Bj%C3%B6rk) and *more***");
    expect(html).toContain('<strong>Top: <a class="font-medium text-primary underline"');
    expect(html).toContain('href="/search?q=Bj%C3%B6rk"');
    expect(html).toContain("<em>more</em></strong>");
  });

  it("renders bullet, numbered and nested lists, with the numbering's start", () => {
    const html = render(
      "Your week:\n\n1. **Radiohead** — 12 plays\n2. Björk\n   - *Homogenic*\n   - Vespertine\n3. Low\n\n- a\n- b\n\n4) later",
    );
    expect(html).toContain('<p class="my-1">Your week:</p>');
    expect(html).toMatch(
      /<ol class="[^"]*"><li><strong>Radiohead<\/strong> — 12 plays<\/li><li>Björk<ul/,
    );
    expect(html).toContain(
      "<li><em>Homogenic</em></li><li>Vespertine</li></ul></li><li>Low</li></ol>",
    );
    expect(html).toMatch(/<ul class="[^"]*"><li>a<\/li><li>b<\/li><\/ul>/);
    expect(html).toMatch(/<ol start="4" class="[^"]*"><li>later<\/li><\/ol>/);
  });

  it("keeps code blocks as text, fenced or indented", () => {
    const html = render(
      "```js\nconst a = 1 < 2 && **not bold**;\n```\n\n    indented <b>\n\nafter",
    );
    expect(html).toContain("<pre");
    expect(html).toContain("<code>const a = 1 &lt; 2 &amp;&amp; **not bold**;</code>");
    expect(html).toContain("<code>indented &lt;b&gt;</code>");
    expect(html).toContain('<p class="my-1">after</p>');
  });

  it("renders quotes, images as their alt text, links with parentheses and line breaks", () => {
    const html = render(
      "> quoted **line**\n\n![cover art](https://example.com/a.png) [wiki](https://en.wikipedia.org/wiki/OK_(band))\nnext  \nhard",
    );
    expect(html).toMatch(
      /<blockquote[^>]*><p class="my-1">quoted <strong>line<\/strong><\/p><\/blockquote>/,
    );
    expect(html).not.toContain("<img");
    expect(html).toContain("<span>cover art</span>");
    expect(html).toContain('href="https://en.wikipedia.org/wiki/OK_(band)"');
    expect(html).toContain("next<br/>hard");
  });

  it("turns an unsafe link into its text, and shows a broken link as typed", () => {
    const html = render("[click](javascript:alert(1)) and [half](/x and [no target]");
    expect(html).toContain("<span>click</span>");
    expect(html).not.toContain("javascript:");
    expect(html).toContain("[half](/x and [no target]");
  });
});

describe("ReplyMarkdown on any text", () => {
  it("renders every mix of markdown's markers without throwing, and never as HTML", () => {
    const pieces = ["*", "**", "_", "__", "`", "```", "[", "]", "(", ")", "!", "\\", "\n", "\n\n"];
    pieces.push(" ", "    ", "\t", "-", "+", "1.", "2)", "#", ">", "a", "/p", "http://x.y");
    pieces.push("<b>", "&", "é", "💿");
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 2000; n++) {
      let text = "";
      for (let i = Math.floor(next() * 60); i > 0; i--) {
        text += pieces[Math.floor(next() * pieces.length)];
      }
      const html = render(text);
      expect(html, JSON.stringify(text)).not.toContain("<b>");
    }
  });

  it("shows nesting thousands deep as text instead of exhausting the server's stack", () => {
    for (const text of [
      `${"- ".repeat(3000)}deep`,
      `${">".repeat(3000)} deep`,
      `${"  - ".repeat(500)}deep`,
      `${"**a ".repeat(2000)}deep`,
      `${"[".repeat(3000)}deep](/x)`,
    ]) {
      expect(render(text)).toContain("deep");
    }
  });
});
