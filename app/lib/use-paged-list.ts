import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";

/**
 * Infinite scroll over keyset pages: the first page comes from the route's loader, further
 * pages from `pageUrl(cursor)` (a loader answering `{ page: { <key>: T[], nextCursor } }`).
 * The next page loads when `sentinel` comes near the viewport, or on `loadMore()` (the
 * "Load more" link, which also works without JavaScript). Items are de-duplicated by id,
 * the first occurrence winning. The extra pages start over when `resetKey` changes.
 */
export function usePagedList<T extends { id: string }>(options: {
  first: T[];
  nextCursor: string | null;
  pageUrl: (cursor: string) => string;
  itemsOf: (data: unknown) => { items: T[]; nextCursor: string | null } | null;
  resetKey: string;
}) {
  const fetcher = useFetcher();
  const [more, setMore] = useState<T[]>([]);
  const [cursor, setCursor] = useState(options.nextCursor);
  const sentinel = useRef<HTMLDivElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: start over only when the list itself changes
  useEffect(() => {
    // The same empty list on mount: no second render of every item right after hydration.
    setMore((current) => (current.length === 0 ? current : []));
    setCursor(options.nextCursor);
  }, [options.resetKey]);

  const itemsOf = useRef(options.itemsOf);
  itemsOf.current = options.itemsOf;
  useEffect(() => {
    const page = fetcher.data === undefined ? null : itemsOf.current(fetcher.data);
    if (fetcher.state !== "idle" || !page) return;
    setMore((current) => [...current, ...page.items]);
    setCursor(page.nextCursor);
  }, [fetcher.state, fetcher.data]);

  const loadMore = () => {
    if (cursor && fetcher.state === "idle") fetcher.load(options.pageUrl(cursor));
  };
  const loadMoreRef = useRef(loadMore);
  loadMoreRef.current = loadMore;

  useEffect(() => {
    const node = sentinel.current;
    if (!node || !cursor || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) loadMoreRef.current();
      },
      { rootMargin: "600px 0px" },
    );
    observer.observe(node);
    return () => observer.disconnect();
  }, [cursor]);

  const seen = new Set<string>();
  const items = [...options.first, ...more].filter((item) => {
    if (seen.has(item.id)) return false;
    seen.add(item.id);
    return true;
  });
  return { items, cursor, loadMore, sentinel, isLoading: fetcher.state !== "idle" };
}
