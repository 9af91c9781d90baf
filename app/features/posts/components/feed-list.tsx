import type { ReactNode } from "react";
import { Link } from "react-router";
import { buttonClasses } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { usePagedList } from "~/lib/use-paged-list";
import type { PostCardData } from "../post-cards.server";
import { PostCard } from "./post-card";
import { PostSkeleton } from "./post-skeleton";

/**
 * A list of posts that grows as you scroll (the next page loads when the end comes into
 * view), with a real "Load more" link that also works without JavaScript and by keyboard.
 */
export function FeedList({
  posts,
  nextCursor,
  viewerId,
  pageUrl,
  showFollow = false,
  empty,
  label,
  leading = [],
}: {
  /** Newer posts shown above the first page (live "new posts" the person asked to see). */
  leading?: PostCardData[];
  posts: PostCardData[];
  nextCursor: string | null;
  viewerId: string | null;
  /** The URL of the next page for a cursor, e.g. `/feed?tab=everyone&cursor=…`. */
  pageUrl: (cursor: string) => string;
  showFollow?: boolean;
  empty: ReactNode;
  label: string;
}) {
  const firstPage = [...leading, ...posts];
  const {
    items: all,
    cursor,
    loadMore,
    sentinel,
    isLoading,
  } = usePagedList<PostCardData>({
    first: firstPage,
    nextCursor,
    pageUrl,
    itemsOf: (data) => {
      const page = (data as { page?: { posts: PostCardData[]; nextCursor: string | null } }).page;
      return page ? { items: page.posts, nextCursor: page.nextCursor } : null;
    },
    // A different first page (another tab, a new post of one's own) starts the list again;
    // fresh counts on the same posts, or new posts shown on top, do not.
    resetKey: posts.map((p) => p.id).join(","),
  });
  if (all.length === 0) return <>{empty}</>;

  return (
    <div>
      <ul aria-label={label} className="flex flex-col gap-4">
        {all.map((post, index) => (
          <li key={post.id}>
            <PostCard
              post={post}
              viewerId={viewerId}
              showFollow={showFollow}
              discover={index === 0}
            />
          </li>
        ))}
      </ul>
      {isLoading ? (
        <div className="mt-4 flex flex-col gap-4" aria-hidden="true">
          <PostSkeleton />
          <PostSkeleton />
        </div>
      ) : null}
      <div ref={sentinel} className="mt-6 flex justify-center">
        {cursor ? (
          <Link
            to={pageUrl(cursor)}
            // The next page of this page's own route: nothing to discover.
            discover="none"
            preventScrollReset
            className={buttonClasses("secondary")}
            onClick={(event) => {
              event.preventDefault();
              loadMore();
            }}
            aria-busy={isLoading || undefined}
          >
            {isLoading ? <Icon name="loader-circle" className="size-4 animate-spin" /> : null}
            {isLoading ? "Loading more posts…" : "Load more"}
          </Link>
        ) : (
          <p className="text-sm text-muted-foreground">You're all caught up.</p>
        )}
      </div>
      <p className="sr-only" aria-live="polite">
        {isLoading ? "Loading more posts" : ""}
      </p>
    </div>
  );
}
