import { Link } from "react-router";
import { Cover } from "~/features/artwork";
import { cn } from "~/lib/utils";
import { searchHref } from "../query";
import type { TrendingArtist } from "../search.server";

/** The artists most posted about this week, each a link to its posts in search. */
export function TrendingArtistList({
  artists,
  className,
}: {
  artists: TrendingArtist[];
  className?: string;
}) {
  return (
    <ul aria-label="Trending artists" className={cn("flex flex-wrap gap-2", className)}>
      {artists.map((a) => (
        <li key={a.id}>
          <Link
            to={searchHref({ type: "music", artist: a.name })}
            className="inline-flex items-center gap-1.5 rounded-full border border-border bg-card px-3 py-1.5 text-sm hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
          >
            <Cover artist={a.name} size={20} className="size-5 rounded-full" />
            <span className="font-medium">{a.name}</span>
            <span className="text-muted-foreground">
              {a.postCount} <span className="sr-only">posts</span>
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
