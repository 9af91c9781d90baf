import { coverUrl } from "../cover";

/**
 * Artwork for an artist (and a title), decorative: the names are always written next to it.
 * The music's own artwork when we have it (`src`, stored locally), else the generated cover:
 * the same picture wherever the same music shows.
 */
export function Cover({
  artist,
  title,
  src,
  size = 48,
  className,
}: {
  artist: string;
  title?: string | null;
  src?: string | null;
  size?: number;
  className?: string;
}) {
  return (
    <img
      src={src || coverUrl(artist, title)}
      alt=""
      width={size}
      height={size}
      loading="lazy"
      className={className}
    />
  );
}
