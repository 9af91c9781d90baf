import { Link } from "react-router";
import type { JourneySummary } from "../journey-page.server";
import { formatCount } from "./format";
import { JourneyEmpty, JourneyHiddenNotice, TasteMatchPanel } from "./journey-parts";

/** The profile's Journey section: the last 30 days in brief, the taste match, the full page link. */
export function JourneySummarySection({
  summary,
  isSignedIn,
}: {
  summary: JourneySummary;
  isSignedIn: boolean;
}) {
  const { owner } = summary;
  const fullPath = `/u/${owner.username}/journey`;
  const isOwner = summary.state !== "hidden" && summary.isOwner;
  return (
    <section
      aria-labelledby="journey-heading"
      className="rounded-xl border border-border bg-card p-5 shadow-sm"
    >
      <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="journey-heading" className="text-lg font-semibold">
          {isOwner ? "Your journey" : "Journey"}
        </h2>
        {summary.state === "shown" ? (
          <Link to={fullPath} className="text-sm font-medium text-primary hover:underline">
            See the full journey
          </Link>
        ) : null}
      </div>
      {summary.state === "hidden" ? (
        <JourneyHiddenNotice
          name={owner.displayName}
          audience={summary.audience}
          isSignedIn={isSignedIn}
        />
      ) : summary.state === "empty" ? (
        <JourneyEmpty name={owner.displayName} isOwner={summary.isOwner} />
      ) : (
        <div className="flex flex-col gap-4">
          <div>
            <h3 className="text-sm font-semibold">Top artists of the last 30 days</h3>
            {summary.topArtists.length === 0 ? (
              <p className="text-sm text-muted-foreground">
                No plays in the last 30 days.{" "}
                <Link to={`${fullPath}?period=all`} className="text-primary hover:underline">
                  See all time
                </Link>
                .
              </p>
            ) : (
              <>
                <ol
                  aria-label="Top artists of the last 30 days"
                  className="mt-2 flex flex-wrap gap-2"
                >
                  {summary.topArtists.map((artist) => (
                    <li
                      key={artist.key}
                      className="rounded-full bg-accent px-3 py-1 text-sm break-all text-accent-foreground"
                    >
                      {artist.name}{" "}
                      <span className="text-xs opacity-80">
                        ({formatCount(artist.plays)} {artist.plays === 1 ? "play" : "plays"})
                      </span>
                    </li>
                  ))}
                </ol>
                <p className="mt-2 text-sm text-muted-foreground">
                  {formatCount(summary.plays)} {summary.plays === 1 ? "play" : "plays"} in the last
                  30 days.
                </p>
              </>
            )}
          </div>
          {summary.taste ? (
            <TasteMatchPanel taste={summary.taste} name={owner.displayName} />
          ) : null}
        </div>
      )}
    </section>
  );
}
