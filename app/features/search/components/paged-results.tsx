import type { ReactNode } from "react";
import { Link } from "react-router";
import { buttonClasses } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { usePagedList } from "~/lib/use-paged-list";
import type { SearchPage } from "../search.server";

/**
 * A result list with keyset "Load more": a real link to the next page (works without
 * JavaScript), which with JavaScript appends the next page in place.
 */
export function PagedResults<T extends { id: string }>({
  page,
  pageUrl,
  label,
  renderItem,
  listClassName = "flex flex-col gap-3",
  itemNoun = "results",
}: {
  page: SearchPage<T>;
  pageUrl: (cursor: string) => string;
  label: string;
  renderItem: (item: T) => ReactNode;
  listClassName?: string;
  itemNoun?: string;
}) {
  const { items, cursor, loadMore, isLoading } = usePagedList<T>({
    first: page.items,
    nextCursor: page.nextCursor,
    pageUrl,
    itemsOf: (data) => (data as { page?: SearchPage<T> }).page ?? null,
    resetKey: `${pageUrl("")}|${page.items.map((i) => i.id).join(",")}`,
  });
  return (
    <div>
      <ul aria-label={label} className={listClassName}>
        {items.map((item) => (
          <li key={item.id}>{renderItem(item)}</li>
        ))}
      </ul>
      {cursor ? (
        <div className="mt-6 flex justify-center">
          <Link
            to={pageUrl(cursor)}
            preventScrollReset
            className={buttonClasses("secondary")}
            onClick={(event) => {
              event.preventDefault();
              loadMore();
            }}
            aria-busy={isLoading || undefined}
          >
            {isLoading ? <Icon name="loader-circle" className="size-4 animate-spin" /> : null}
            {isLoading ? `Loading more ${itemNoun}…` : "Load more"}
          </Link>
        </div>
      ) : null}
      <p className="sr-only" aria-live="polite">
        {isLoading ? `Loading more ${itemNoun}` : ""}
      </p>
    </div>
  );
}
