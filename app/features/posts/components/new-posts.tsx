import { useEffect, useRef, useState } from "react";
import { useFetcher, useRevalidator } from "react-router";
import { Icon } from "~/components/ui/icon";
import { useLiveEvents } from "~/features/realtime";
import type { FeedTab } from "../feed.server";
import type { PostCardData } from "../post-cards.server";

/**
 * "N new posts": counts posts that arrive live for the tab being read, without touching the
 * list (so nothing moves under the reader), and on request loads them and puts them on top.
 */
export function useLiveNewPosts(options: {
  tab: FeedTab;
  enabled: boolean;
  firstPage: PostCardData[];
  pageUrl: string;
}) {
  const { tab, enabled, firstPage, pageUrl } = options;
  const [pending, setPending] = useState<string[]>([]);
  const [leading, setLeading] = useState<PostCardData[]>([]);
  const fetcher = useFetcher<{ page: { posts: PostCardData[] } }>();
  const revalidator = useRevalidator();
  const firstKey = firstPage.map((p) => p.id).join(",");
  const shown = useRef(new Set<string>());
  shown.current = new Set([...leading, ...firstPage].map((p) => p.id));

  // Another tab, or a reloaded first page, starts counting afresh.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the tab or the first page changes
  useEffect(() => {
    // Kept when already empty (as on mount): no render of the whole feed for nothing.
    setPending((current) => (current.length === 0 ? current : []));
    setLeading((current) => (current.length === 0 ? current : []));
  }, [tab, firstKey]);

  useLiveEvents((event) => {
    if (!enabled || event.type !== "post") return;
    const reaches = tab === "following" ? event.data.following : event.data.everyone;
    if (!reaches || shown.current.has(event.data.postId)) return;
    setPending((ids) => (ids.includes(event.data.postId) ? ids : [...ids, event.data.postId]));
  });

  const waiting = useRef(false);
  useEffect(() => {
    if (!waiting.current || fetcher.state !== "idle" || !fetcher.data) return;
    waiting.current = false;
    const loaded = fetcher.data.page.posts;
    const fresh = loaded.filter((p) => !shown.current.has(p.id));
    setPending([]);
    if (fresh.length === loaded.length && loaded.length > 0) {
      // More arrived than one page holds: a gap would open, so load the feed afresh.
      revalidator.revalidate();
      return;
    }
    setLeading((current) => [...fresh, ...current]);
  }, [fetcher.state, fetcher.data, revalidator]);

  return {
    count: pending.length,
    leading,
    isLoading: fetcher.state !== "idle",
    reveal: () => {
      waiting.current = true;
      fetcher.load(pageUrl);
    },
  };
}

/** The notice above the feed; sticks below the header while there is something to show. */
export function NewPostsNotice({
  count,
  isLoading,
  onReveal,
}: {
  count: number;
  isLoading: boolean;
  onReveal: () => void;
}) {
  const label = `${count} new ${count === 1 ? "post" : "posts"}`;
  return (
    <>
      <p className="sr-only" aria-live="polite">
        {count > 0 ? `${label} in your feed` : ""}
      </p>
      {count > 0 ? (
        <div className="pointer-events-none sticky top-20 z-20 -mb-2 flex justify-center pb-2">
          <button
            type="button"
            onClick={onReveal}
            disabled={isLoading}
            className="pointer-events-auto inline-flex items-center gap-2 rounded-full bg-primary px-4 py-2 text-sm font-semibold text-primary-foreground shadow-lg hover:bg-primary-hover focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
          >
            {isLoading ? (
              <Icon name="loader-circle" className="size-4 animate-spin" />
            ) : (
              <Icon name="arrow-up" className="size-4" />
            )}
            Show {label}
          </button>
        </div>
      ) : null}
    </>
  );
}
