import { Icon } from "~/components/ui/icon";
import { FollowSuggestions } from "~/features/people";
import type { Discovery } from "../discovery.server";
import { TrendingArtistList } from "./trending-artists";

/**
 * Under an empty page: who to follow and the artists this Soundtrail is posting about, so a
 * new account sees what a busy instance looks like. Nothing when there is nothing to show.
 */
export function DiscoverPanel({ discovery, viewerId }: { discovery: Discovery; viewerId: string }) {
  const { suggestions, trendingArtists } = discovery;
  if (suggestions.length === 0 && trendingArtists.length === 0) return null;
  return (
    <div className="flex flex-col gap-4">
      <FollowSuggestions suggestions={suggestions} viewerId={viewerId} title="Who to follow" />
      {trendingArtists.length > 0 ? (
        <section
          aria-labelledby="trending-artists-heading"
          className="rounded-xl border border-border bg-card p-4 shadow-sm sm:p-5"
        >
          <h2
            id="trending-artists-heading"
            className="flex items-center gap-2 text-lg font-semibold"
          >
            <Icon name="flame" className="size-5 text-primary" />
            Trending on this Soundtrail
          </h2>
          <p className="mb-3 text-sm text-muted-foreground">
            The artists people posted about this week.
          </p>
          <TrendingArtistList artists={trendingArtists} />
        </section>
      ) : null}
    </div>
  );
}
