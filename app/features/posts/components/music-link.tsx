import { useEffect, useState } from "react";
import { Icon } from "~/components/ui/icon";
import { recognizeLink } from "../links";

/**
 * The post's streaming link: that service's player in a sandboxed frame when it has one for
 * this URL, a clean card when it does not, a plain link for services we do not know.
 */
export function MusicLink({ url, title }: { url: string; title: string }) {
  const link = recognizeLink(url);
  // The player frame is added once the page runs: the server sends its same-size box only
  // (an embed is ~500 bytes on every post card, and the frame loads lazily anyway).
  const [hasPlayer, setHasPlayer] = useState(false);
  useEffect(() => setHasPlayer(true), []);
  if (!link) {
    return (
      <a
        href={url}
        rel="noopener noreferrer nofollow ugc"
        target="_blank"
        className="inline-flex max-w-full items-center gap-1.5 break-all text-sm font-medium text-primary underline underline-offset-2"
      >
        <Icon name="external-link" className="size-4 shrink-0" />
        {url}
      </a>
    );
  }
  if (link.embedUrl) {
    const isVideo = link.embedHeight === null;
    return (
      <div className="music-embed">
        {hasPlayer ? (
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
        ) : (
          <div style={isVideo ? { aspectRatio: "16 / 9" } : { height: link.embedHeight ?? 152 }} />
        )}
        <a
          href={link.url}
          rel="noopener noreferrer nofollow"
          target="_blank"
          className="music-embed-open"
        >
          {`Open in ${link.serviceName}`}
          <Icon name="external-link" className="size-3" />
        </a>
      </div>
    );
  }
  return (
    <a href={link.url} rel="noopener noreferrer nofollow" target="_blank" className="music-card">
      <span className="min-w-0">
        <span className="music-card-service">{link.serviceName}</span>
        <span className="block truncate font-medium">{`Listen to “${title}”`}</span>
      </span>
      <span className="music-card-open">
        Open
        <Icon name="external-link" className="size-4" />
      </span>
    </a>
  );
}
