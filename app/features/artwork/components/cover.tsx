import { cn } from "~/lib/utils";
import { coverUrl } from "../cover";

/**
 * Generated artwork for an artist (and a title), decorative: the names are always written next
 * to it. The same picture wherever the same music shows.
 */
export function Cover({
  artist,
  title,
  size = 48,
  className,
}: {
  artist: string;
  title?: string | null;
  size?: number;
  className?: string;
}) {
  return (
    <img
      src={coverUrl(artist, title)}
      alt=""
      width={size}
      height={size}
      loading="lazy"
      decoding="async"
      className={cn("cover", className)}
    />
  );
}
