import { ExternalLink } from "lucide-react";
import { recognizeLink } from "../links";

/**
 * The post's streaming link: that service's player in a sandboxed frame when it has one for
 * this URL, a clean card when it does not, a plain link for services we do not know.
 */
export function MusicLink({ url, title }: { url: string; title: string }) {
  const link = recognizeLink(url);
  if (!link) {
    return (
      <a
        href={url}
        rel="noopener noreferrer nofollow ugc"
        target="_blank"
        className="inline-flex max-w-full items-center gap-1.5 break-all text-sm font-medium text-primary underline underline-offset-2"
      >
        <ExternalLink aria-hidden="true" className="size-4 shrink-0" />
        {url}
      </a>
    );
  }
  if (link.embedUrl) {
    const isVideo = link.embedHeight === null;
    return (
      <div className="overflow-hidden rounded-xl border border-border bg-muted">
        <iframe
          src={link.embedUrl}
          title={`${link.serviceName} player: ${title}`}
          sandbox="allow-scripts allow-same-origin allow-popups allow-presentation"
          allow="autoplay; clipboard-write; encrypted-media; fullscreen; picture-in-picture"
          loading="lazy"
          referrerPolicy="strict-origin-when-cross-origin"
          className="block w-full border-0"
          style={isVideo ? { aspectRatio: "16 / 9" } : { height: link.embedHeight ?? 152 }}
        />
        <a
          href={link.url}
          rel="noopener noreferrer nofollow"
          target="_blank"
          className="flex items-center justify-end gap-1 px-3 py-1.5 text-xs font-medium text-muted-foreground hover:text-foreground"
        >
          Open in {link.serviceName}
          <ExternalLink aria-hidden="true" className="size-3" />
        </a>
      </div>
    );
  }
  return (
    <a
      href={link.url}
      rel="noopener noreferrer nofollow"
      target="_blank"
      className="flex items-center justify-between gap-3 rounded-xl border border-border bg-muted px-4 py-3 hover:border-primary"
    >
      <span className="min-w-0">
        <span className="block text-xs font-semibold uppercase tracking-wide text-muted-foreground">
          {link.serviceName}
        </span>
        <span className="block truncate font-medium">Listen to “{title}”</span>
      </span>
      <span className="inline-flex shrink-0 items-center gap-1 text-sm font-medium text-primary">
        Open
        <ExternalLink aria-hidden="true" className="size-4" />
      </span>
    </a>
  );
}
