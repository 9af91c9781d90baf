import { Form, Link, useFetcher } from "react-router";
import { type FetcherOutcome, useFetcherOutcome } from "~/components/hooks/use-fetcher-outcome";
import { Icon } from "~/components/ui/icon";
import { RelativeTime } from "~/components/ui/relative-time";
import type { LovedTrack, RecentListen, RecentListens } from "../listenbrainz/recent.server";
import { NowPlaying } from "../now-playing";
import type { NowPlayingTrack } from "../now-playing.server";

type ListenOutcome = FetcherOutcome<{ isLoved?: boolean; deleted?: number }>;

function ListenRow({
  listen,
  ownerId,
  isOwner,
  isSignedIn,
}: {
  listen: RecentListen;
  ownerId: string;
  isOwner: boolean;
  isSignedIn: boolean;
}) {
  const key = `listen-${listen.ts}-${listen.msid}`;
  const love = useFetcher<ListenOutcome>({ key: `${key}-love` });
  const remove = useFetcher<ListenOutcome>({ key: `${key}-delete` });
  useFetcherOutcome(love, "Could not update your love");
  useFetcherOutcome(remove, "Could not delete this listen");
  const pending = love.formData?.get("intent");
  const isLoved = pending === "love" ? true : pending === "unlove" ? false : listen.score === 1;
  const title = `${listen.trackName} by ${listen.artistName}`;
  const fields = (
    <>
      <input type="hidden" name="ownerId" value={ownerId} />
      <input type="hidden" name="ts" value={listen.ts} />
      <input type="hidden" name="msid" value={listen.msid} />
    </>
  );
  if (remove.state !== "idle") return null;
  return (
    <li className="flex items-center gap-3 py-2" aria-label={title}>
      <p className="min-w-0 flex-1 text-sm">
        <span className="font-medium break-words">{listen.trackName}</span>
        <span className="text-muted-foreground"> · </span>
        <span className="break-words">{listen.artistName}</span>
        <RelativeTime iso={listen.listenedAt} className="block text-xs text-muted-foreground" />
      </p>
      {isSignedIn ? (
        <Form
          method="post"
          action="/api/listens"
          navigate={false}
          fetcherKey={`${key}-love`}
          discover="none"
        >
          {fields}
          <button
            type="submit"
            name="intent"
            value={isLoved ? "unlove" : "love"}
            aria-pressed={isLoved}
            aria-label={`Love ${title}`}
            className="rounded-full p-2 hover:bg-accent"
          >
            <Icon
              name="heart"
              className={`size-4 ${isLoved ? "fill-current text-red-600 dark:text-red-400" : ""}`}
            />
          </button>
        </Form>
      ) : null}
      {isOwner ? (
        <Form
          method="post"
          action="/api/listens"
          navigate={false}
          fetcherKey={`${key}-delete`}
          discover="none"
        >
          {fields}
          <button
            type="submit"
            name="intent"
            value="delete"
            aria-label={`Delete this listen of ${title}`}
            className="rounded-full p-2 text-muted-foreground hover:bg-accent"
          >
            <Icon name="trash" className="size-4" />
          </button>
        </Form>
      ) : null}
    </li>
  );
}

/**
 * A person's recent listens (what their players sent and their imports brought), newest first,
 * a page at a time, with a heart for the viewer's own love of each recording and, for the
 * owner, a delete button. Nothing when the viewer may not see the journey.
 */
export function RecentListensSection({
  listens,
  loved,
  ownerId,
  isSignedIn,
  basePath,
  nowPlaying,
  query,
}: {
  listens: RecentListens | null;
  /** "Now playing", shown on top (the journey page; the profile shows it in its header). */
  nowPlaying?: NowPlayingTrack | null;
  /** The page's other query parameters, kept when going to older listens. */
  query?: Record<string, string>;
  /** The person's latest loved tracks (null or empty: none shown). */
  loved?: LovedTrack[] | null;
  ownerId: string;
  isSignedIn: boolean;
  /** The profile's path, where older pages live (`?listens=…`). */
  basePath: string;
}) {
  if (!listens) return null;
  return (
    <section
      aria-labelledby="recent-listens-heading"
      className="rounded-xl border border-border bg-card p-5 shadow-sm"
    >
      <h2 id="recent-listens-heading" className="mb-2 text-lg font-semibold">
        Recent listens
      </h2>
      {nowPlaying ? (
        <div className="-mt-2 mb-2">
          <NowPlaying track={nowPlaying} />
        </div>
      ) : null}
      {listens.items.length === 0 ? (
        <p className="text-sm text-muted-foreground">
          {listens.isOwner ? (
            <>
              No listens yet. Connect a player in{" "}
              <Link
                to="/settings/scrobbling"
                className="font-medium text-primary underline underline-offset-2"
              >
                Settings → Connected players
              </Link>
              .
            </>
          ) : (
            "No listens yet."
          )}
        </p>
      ) : (
        <ul aria-label="Recent listens" className="divide-y divide-border">
          {listens.items.map((listen) => (
            <ListenRow
              key={`${listen.ts}-${listen.msid}`}
              listen={listen}
              ownerId={ownerId}
              isOwner={listens.isOwner}
              isSignedIn={isSignedIn}
            />
          ))}
        </ul>
      )}
      {loved && loved.length > 0 ? (
        <>
          <h3 className="mt-4 mb-1 text-sm font-semibold">
            {listens.isOwner ? "Tracks you love" : "Loved tracks"}
          </h3>
          <ul aria-label="Loved tracks" className="flex flex-col gap-1 text-sm">
            {loved.map((track) => (
              <li key={`${track.artistName}/${track.trackName}/${track.lovedAt}`}>
                <Icon name="heart" className="mr-1 inline size-3.5 text-primary" />
                <span className="font-medium break-words">{track.trackName}</span>
                <span className="text-muted-foreground"> · </span>
                <span className="break-words">{track.artistName}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {listens.nextCursor ? (
        <Form method="get" action={basePath} className="mt-2">
          {Object.entries(query ?? {}).map(([name, value]) =>
            name === "listens" ? null : (
              <input key={name} type="hidden" name={name} value={value} />
            ),
          )}
          <button
            type="submit"
            name="listens"
            value={listens.nextCursor}
            className="text-sm font-medium text-primary hover:underline"
          >
            Older listens
          </button>
        </Form>
      ) : null}
    </section>
  );
}
