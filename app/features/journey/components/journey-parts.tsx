import { Link } from "react-router";
import { EmptyState } from "~/components/ui/empty-state";
import type { JourneyAudience } from "~/db/schema/listens";
import type { TasteMatch } from "../taste.server";

/** Why the viewer sees no journey, without saying more than the owner's audience choice. */
export function JourneyHiddenNotice({
  name,
  audience,
  isSignedIn,
}: {
  name: string;
  audience: JourneyAudience;
  isSignedIn: boolean;
}) {
  const text =
    audience === "followers"
      ? `${name} shares their journey with followers only.`
      : audience === "only_me"
        ? `${name} keeps their journey private.`
        : `${name}'s journey is not available to you.`;
  return (
    <div role="status" className="rounded-lg border border-border bg-muted p-4 text-sm">
      <p className="font-medium">{text}</p>
      {audience === "followers" ? (
        <p className="mt-1 text-muted-foreground">
          {isSignedIn
            ? "Once they accept you as a follower, you will see it here."
            : "Sign in and follow them to see it."}
        </p>
      ) : null}
    </div>
  );
}

/** No plays yet: how to get them in (the owner), or that there is nothing yet (others). */
export function JourneyEmpty({ name, isOwner }: { name: string; isOwner: boolean }) {
  if (!isOwner) {
    return (
      <EmptyState icon="audio-waveform" title="No listening history yet">
        {name} has not brought in any plays yet.
      </EmptyState>
    );
  }
  return (
    <EmptyState icon="audio-waveform" title="Your journey starts with your plays">
      <p>
        Import the listening history you downloaded from Spotify, Last.fm or ListenBrainz in{" "}
        <Link to="/settings/listening" className="font-medium text-primary underline">
          Settings › Listening history
        </Link>
        , or connect a player that scrobbles (Navidrome, Jellyfin, Pano Scrobbler…) in{" "}
        <Link to="/settings/scrobbling" className="font-medium text-primary underline">
          Settings › Scrobbling
        </Link>
        . Your top artists, charts and streaks show up here.
      </p>
    </EmptyState>
  );
}

export const TASTE_SENTENCE =
  "How alike your top 50 artists of the last 12 months are, weighted by each artist's share of your plays (cosine similarity): 100% is the same artists in the same proportions, 0% none in common.";

const percent = (share: number) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;

/** The taste match with its explanation: the formula, the shared artists and the differences. */
export function TasteMatchPanel({
  taste,
  name,
  level = 3,
}: {
  taste: TasteMatch;
  name: string;
  /** The heading level of its title (its lists get the next one). */
  level?: 2 | 3;
}) {
  const Title = level === 2 ? "h2" : "h3";
  const Sub = level === 2 ? "h3" : "h4";
  if (taste.yourPlays === 0 || taste.theirPlays === 0) {
    return (
      <section aria-labelledby="taste-heading" className="rounded-lg border border-border p-4">
        <Title id="taste-heading" className="font-semibold">
          Taste match
        </Title>
        <p className="mt-1 text-sm text-muted-foreground">
          {taste.yourPlays === 0
            ? "Bring in your own plays to see how your taste matches."
            : `${name} has no plays in the last 12 months to compare with.`}
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="taste-heading" className="rounded-lg border border-border p-4">
      <Title id="taste-heading" className="font-semibold">
        Taste match: <span className="text-primary">{taste.percent}%</span>
      </Title>
      <p className="mt-1 text-sm text-muted-foreground">{TASTE_SENTENCE}</p>
      <div className="mt-3 grid gap-4 sm:grid-cols-2">
        <div>
          <Sub className="text-sm font-semibold">You both play</Sub>
          {taste.shared.length === 0 ? (
            <p className="text-sm text-muted-foreground">No artist in common yet.</p>
          ) : (
            <ul className="mt-1 text-sm">
              {taste.shared.map((a) => (
                <li key={a.name} className="break-words">
                  {a.name}{" "}
                  <span className="text-muted-foreground">
                    (adds {Math.round(a.contribution * 100)} points; {percent(a.yourShare)} of
                    yours, {percent(a.theirShare)} of theirs)
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <Sub className="text-sm font-semibold">Where you differ</Sub>
          {taste.differences.length === 0 ? (
            <p className="text-sm text-muted-foreground">You play all their top artists too.</p>
          ) : (
            <ul className="mt-1 text-sm">
              {taste.differences.map((a) => (
                <li key={a.name} className="break-words">
                  {a.name}{" "}
                  <span className="text-muted-foreground">
                    ({percent(a.theirShare)} of theirs,{" "}
                    {a.yourShare === 0 ? "you never play them" : `${percent(a.yourShare)} of yours`}
                    )
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </section>
  );
}
