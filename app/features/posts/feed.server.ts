import { type PostPage, selectPostCards } from "./post-cards.server";

export const FEED_TABS = ["following", "everyone"] as const;
export type FeedTab = (typeof FEED_TABS)[number];

export function parseFeedTab(value: string | null | undefined, isSignedIn: boolean): FeedTab {
  if (!isSignedIn) return "everyone";
  return value === "everyone" ? "everyone" : "following";
}

/**
 * One page of the feed. "Following" reads the viewer's stored home timeline (one indexed range
 * read); "Everyone" reads public posts. Signed-out visitors always get "Everyone".
 * Costs exactly one SQL statement whatever the page size.
 */
export function listFeed(options: {
  viewerId: string | null;
  tab: FeedTab;
  cursor?: string | null;
  limit?: number;
}): Promise<PostPage> {
  const { viewerId } = options;
  const source =
    viewerId && options.tab === "following"
      ? ({ kind: "timeline", userId: viewerId } as const)
      : ({ kind: "public" } as const);
  return selectPostCards({ viewerId, source, cursor: options.cursor, limit: options.limit });
}

/** The posts of one person's profile the viewer may see, newest first. One statement. */
export function listProfilePosts(options: {
  viewerId: string | null;
  authorId: string;
  cursor?: string | null;
  limit?: number;
}): Promise<PostPage> {
  return selectPostCards({
    viewerId: options.viewerId,
    source: { kind: "author", authorId: options.authorId },
    cursor: options.cursor,
    limit: options.limit,
  });
}
