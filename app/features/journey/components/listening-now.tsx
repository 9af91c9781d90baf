import { useCallback, useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { Icon } from "~/components/ui/icon";
import { Cover } from "~/features/artwork";
import { useLiveEvents } from "~/features/realtime";
import type { ListeningNowEntry } from "../listening-now.server";

/** Where the strip reloads from (a resource route; the same rule as the feed's loader). */
export const LISTENING_NOW_URL = "/api/listening-now";

/**
 * "Listening now" on the feed: friends whose player says what is playing, with its cover and
 * a link to their profile. Loads itself after the page, then reloads when the live stream says one of them started, changed or
 * stopped, and when the first shown track runs out. Hidden when nobody is playing.
 */
export function ListeningNow() {
  const [people, setPeople] = useState<ListeningNowEntry[]>([]);
  // A `fetch` of its own, not a fetcher: a fetcher is loaded again after every send on the page,
  // and offline that load fails and replaces the page with the error screen (ADR 037). A failed
  // load keeps the strip as it is; the connection coming back loads it again.
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const response = await fetch(LISTENING_NOW_URL, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!response.ok) return;
      const body = (await response.json()) as { people?: unknown };
      if (mine === latest.current && Array.isArray(body.people)) {
        setPeople(body.people as ListeningNowEntry[]);
      }
    } catch {
      // No answer: keep what is shown.
    }
  }, []);
  // Loaded once the page is up, not with the document (the feed's 60 KB budget).
  useEffect(() => {
    void reload();
    const onOnline = () => void reload();
    window.addEventListener("online", onOnline);
    return () => window.removeEventListener("online", onOnline);
  }, [reload]);
  useLiveEvents((event) => {
    if (event.type === "nowPlaying") void reload();
  });

  // A track that runs out leaves the strip without anyone saying so: reload then.
  const soonest = people.reduce(
    (min, p) => Math.min(min, Date.parse(p.expiresAt)),
    Number.POSITIVE_INFINITY,
  );
  useEffect(() => {
    if (!Number.isFinite(soonest)) return;
    const wait = Math.max(1_000, soonest - Date.now() + 500);
    const timer = setTimeout(() => void reload(), wait);
    return () => clearTimeout(timer);
  }, [soonest, reload]);

  if (people.length === 0) return null;
  return (
    <section aria-labelledby="listening-now-heading" className="mb-6">
      <h2
        id="listening-now-heading"
        className="mb-2 flex items-center gap-2 text-sm font-semibold text-muted-foreground"
      >
        <Icon name="audio-waveform" className="size-4 text-primary" />
        Listening now
      </h2>
      <ul className="flex snap-x gap-3 overflow-x-auto pb-2">
        {people.map((p) => (
          <li key={p.userId} className="w-40 shrink-0 snap-start sm:w-44">
            <Link
              to={`/u/${p.username}`}
              prefetch="intent"
              className="group flex h-full flex-col gap-2 rounded-xl border border-border bg-card p-2 hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
            >
              <span className="relative block">
                <Cover
                  artist={p.artistName}
                  title={p.releaseName ?? p.trackName}
                  size={160}
                  className="aspect-square h-auto w-full rounded-lg bg-muted object-cover"
                />
                <Avatar
                  name={p.displayName}
                  username={p.username}
                  src={p.avatarUrl}
                  size="sm"
                  className="absolute bottom-1 left-1 ring-2 ring-card"
                />
              </span>
              <span className="min-w-0 text-sm">
                <span className="block truncate font-medium">{p.displayName}</span>
                <span className="block truncate">{p.trackName}</span>
                <span className="block truncate text-xs text-muted-foreground">{p.artistName}</span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
