import { useEffect, useRef, useState } from "react";
import { Icon } from "~/components/ui/icon";
import { recognizeLink } from "~/core/streaming-links";
import { cn } from "~/lib/utils";
import type { LinkPreview } from "../post-cards.server";

/** How long a player may take to load before we say so (and offer the service's page). */
const PLAYER_LOAD_MS = 15_000;

/**
 * The post's streaming link: a Play button that loads the service's player only when pressed
 * (no third-party frame until then), a clean card when the service has no player for this URL,
 * a plain link for services we do not know. "Open in …" always works, player or not.
 */
export function MusicLink({
  url,
  title,
  preview = null,
  className,
}: {
  url: string;
  title: string;
  preview?: LinkPreview | null;
  /** Added to whichever box it renders (link, card or player). */
  className?: string;
}) {
  const link = recognizeLink(url);
  // The Play button exists once the page runs: before that it could do nothing.
  const [isHydrated, setIsHydrated] = useState(false);
  useEffect(() => setIsHydrated(true), []);
  const [isPlaying, setIsPlaying] = useState(false);
  if (!link) {
    return (
      <a
        href={url}
        rel="noreferrer nofollow ugc"
        target="_blank"
        className={cn(
          "inline-flex max-w-full items-center gap-1.5 break-all text-sm font-medium text-primary underline underline-offset-2",
          className,
        )}
      >
        <Icon name="external-link" className="size-4 shrink-0" />
        {url}
      </a>
    );
  }
  const about = [preview?.title, preview?.artist].filter(Boolean).join(" · ");
  const embedUrl = preview?.embedUrl ?? link.embedUrl;
  // A player known only from the service's answer: audio-sized, except YouTube's videos.
  const height = link.embedUrl ? link.embedHeight : link.service.startsWith("youtube") ? null : 166;
  // rel: noreferrer implies noopener.
  const open = (
    <a href={link.url} rel="noreferrer nofollow" target="_blank" className="music-open">
      {/* Its icon is CSS: .music-open::after (app.css). */}
      {`Open in ${link.serviceName}`}
    </a>
  );
  if (embedUrl && isPlaying) {
    return (
      <Player
        src={embedUrl}
        title={`${link.serviceName} player: ${title}`}
        height={height}
        serviceName={link.serviceName}
        open={open}
        className={className}
      />
    );
  }
  return (
    <div className={cn("music-row", className)}>
      {embedUrl && isHydrated ? (
        <button type="button" className="music-play" onClick={() => setIsPlaying(true)}>
          {/* Its icon is CSS: .music-play::before (app.css). */}
          Play<span className="sr-only">{` “${title}” on ${link.serviceName}`}</span>
        </button>
      ) : null}
      <span className="music-about">
        <span>{link.serviceName}</span>
        {about ? <span className="music-title">{about}</span> : null}
      </span>
      {open}
    </div>
  );
}

/** The service's player, focused when it appears; says so when it does not load in time. */
function Player({
  src,
  title,
  height,
  serviceName,
  open,
  className,
}: {
  src: string;
  title: string;
  height: number | null;
  serviceName: string;
  open: React.ReactNode;
  className?: string;
}) {
  const [state, setState] = useState<"loading" | "loaded" | "failed">("loading");
  const frame = useRef<HTMLIFrameElement>(null);
  // A frame that could not load (offline, the service unreachable) still fires `load`, with
  // the browser's error page in it: "loaded" needs the frame's `load` and an answer from the
  // player's host (an opaque request that fails only when the host cannot be reached).
  const progress = useRef({ isFrameLoaded: false, isHostReachable: false });
  const settle = () => {
    if (progress.current.isFrameLoaded && progress.current.isHostReachable) {
      setState((current) => (current === "loading" ? "loaded" : current));
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per player; `settle` reads refs.
  useEffect(() => {
    frame.current?.focus();
    const timer = setTimeout(
      () => setState((current) => (current === "loading" ? "failed" : current)),
      PLAYER_LOAD_MS,
    );
    const probe = new AbortController();
    fetch(src, {
      mode: "no-cors",
      credentials: "omit",
      referrerPolicy: "no-referrer",
      signal: probe.signal,
    }).then(
      () => {
        progress.current.isHostReachable = true;
        settle();
      },
      () => {
        if (!probe.signal.aborted) setState("failed");
      },
    );
    return () => {
      clearTimeout(timer);
      probe.abort();
    };
  }, [src]);
  const isVideo = height === null;
  return (
    <div className={cn("music-embed", className)}>
      {state === "failed" ? (
        <p role="alert" className="px-3 py-3 text-sm">
          {`The ${serviceName} player did not load. Try the link below, or reload the page.`}
        </p>
      ) : (
        <iframe
          ref={frame}
          src={src}
          title={title}
          sandbox="allow-scripts allow-same-origin allow-popups allow-presentation"
          allow="autoplay; clipboard-write; encrypted-media; fullscreen; picture-in-picture"
          referrerPolicy="strict-origin-when-cross-origin"
          className="block w-full border-0"
          style={isVideo ? { aspectRatio: "16 / 9" } : { height }}
          onLoad={() => {
            progress.current.isFrameLoaded = true;
            settle();
          }}
          onError={() => setState("failed")}
        />
      )}
      <div className="music-embed-foot">
        {state === "loading" ? (
          <span className="text-xs text-muted-foreground" aria-live="polite">
            Loading the player…
          </span>
        ) : (
          <span />
        )}
        {open}
      </div>
    </div>
  );
}
