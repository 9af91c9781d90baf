import { Icon } from "~/components/ui/icon";
import type { NowPlayingTrack } from "./now-playing.server";

/**
 * "Now playing" on a profile: the track the person's player reported, as plain text. The
 * loader leaves it out (null) for anyone who may not see it.
 */
export function NowPlaying({ track }: { track: NowPlayingTrack | null | undefined }) {
  if (!track) return null;
  return (
    <section
      aria-label="Now playing"
      className="mt-4 flex items-center gap-3 rounded-lg border border-border bg-muted px-3 py-2"
    >
      <Icon name="audio-waveform" className="size-5 shrink-0 text-primary" />
      <p className="min-w-0 text-sm">
        <span className="block text-xs font-semibold tracking-wide text-muted-foreground uppercase">
          Now playing
        </span>
        <span className="font-medium break-words">{track.trackName}</span>
        <span className="text-muted-foreground"> · </span>
        <span className="break-words">{track.artistName}</span>
        {track.releaseName ? (
          <span className="block text-xs text-muted-foreground break-words">
            from {track.releaseName}
          </span>
        ) : null}
      </p>
    </section>
  );
}
