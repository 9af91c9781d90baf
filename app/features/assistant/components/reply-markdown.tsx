import Markdown, { type Components } from "react-markdown";
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

const components: Components = {
  a({ href, children }) {
    const safe = href ? safeReplyHref(href) : null;
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
  },
  // Headings of a reply stay inside the page's outline: no h1/h2 from a reply.
  h1: ({ children }) => <p className="font-semibold">{children}</p>,
  h2: ({ children }) => <p className="font-semibold">{children}</p>,
  h3: ({ children }) => <p className="font-semibold">{children}</p>,
  h4: ({ children }) => <p className="font-semibold">{children}</p>,
  h5: ({ children }) => <p className="font-semibold">{children}</p>,
  h6: ({ children }) => <p className="font-semibold">{children}</p>,
  img: ({ alt }) => <span>{alt}</span>,
  ul: ({ children }) => <ul className="my-1 list-disc space-y-1 pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="my-1 list-decimal space-y-1 pl-5">{children}</ol>,
  p: ({ children }) => <p className="my-1">{children}</p>,
  code: ({ children }) => <code className="rounded bg-muted px-1 text-sm">{children}</code>,
  pre: ({ children }) => (
    <pre className="overflow-x-auto rounded bg-muted p-2 text-sm">{children}</pre>
  ),
};

/**
 * A reply as sanitised markdown (react-markdown: no raw HTML, which shows as text), with links
 * limited to the app's own paths and http(s).
 */
export function ReplyMarkdown({ text }: { text: string }) {
  return (
    <Markdown components={components} urlTransform={(url) => safeReplyHref(url) ?? ""}>
      {text}
    </Markdown>
  );
}
