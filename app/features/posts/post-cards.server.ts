import { and, desc, eq, sql } from "drizzle-orm";
import { isUuid } from "~/core/ids";
import { shownName } from "~/core/person";
import { canSeePost } from "~/core/visibility.server";
import { type DbOrTx, getDb, rowsOf } from "~/db/client.server";
import {
  comments,
  follows,
  homeTimeline,
  linkUnfurls,
  media,
  postLikes,
  posts,
  profiles,
} from "~/db/schema";
import type { Audience, PostKind } from "./constants";

/** Posts per feed page (home, everyone, profile). */
export const FEED_PAGE_SIZE = 20;
/** Largest page any caller may ask for. */
export const MAX_PAGE_SIZE = 50;

export interface PostAuthor {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
}

/** Everything one post needs on screen, fetched together with its page. */
export interface PostCardData {
  id: string;
  kind: PostKind;
  title: string;
  artist: string | null;
  album: string | null;
  linkUrl: string | null;
  note: string;
  mood: string | null;
  audience: Audience;
  createdAt: string;
  editedAt: string | null;
  author: PostAuthor;
  image: { id: string; width: number; height: number } | null;
  /** What the link's service says about it, once fetched (see features/unfurl). */
  preview: LinkPreview | null;
  likeCount: number;
  commentCount: number;
  viewerHasLiked: boolean;
  viewerFollowsAuthor: boolean;
}

export interface LinkPreview {
  title: string | null;
  artist: string | null;
  /** The service's player as its oEmbed answer names it (on an allowed origin). */
  embedUrl: string | null;
  /** Stored artwork, `/art/<sha256>.webp`. */
  art: string | null;
}

export type PostSource =
  | { kind: "timeline"; userId: string }
  | { kind: "public" }
  | { kind: "author"; authorId: string }
  | { kind: "post"; postId: string };

export interface SelectPostCardsOptions {
  viewerId: string | null;
  source: PostSource;
  /** Opaque cursor from a previous page's `nextCursor`. */
  cursor?: string | null;
  limit?: number;
  db?: DbOrTx;
}

export interface PostPage {
  posts: PostCardData[];
  /** Pass back to get the next (older) page; null on the last page. */
  nextCursor: string | null;
}

interface Cursor {
  createdAt: string;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.createdAt}|${cursor.id}`).toString("base64url");
}

/** The position a cursor names, or null when it is not one of ours (then paging restarts). */
export function decodeCursor(raw: string | null | undefined): Cursor | null {
  if (!raw || raw.length > 200) return null;
  const text = Buffer.from(raw, "base64url").toString("utf8");
  const [createdAt, id, extra] = text.split("|");
  if (extra !== undefined || !createdAt || !isUuid(id)) return null;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(createdAt)) return null;
  if (Number.isNaN(Date.parse(createdAt))) return null;
  return { createdAt, id };
}

/** The post's own columns, selected by the inner page query. */
const postColumns = {
  id: posts.id,
  kind: posts.kind,
  title: posts.title,
  artist: posts.artist,
  album: posts.album,
  linkUrl: posts.linkUrl,
  note: posts.note,
  mood: posts.mood,
  audience: posts.audience,
  createdAt: posts.createdAt,
  editedAt: posts.editedAt,
  authorId: posts.authorId,
  mediaId: posts.mediaId,
};

/**
 * The page itself: which posts, in order, at most `limit`. Only the source's index range, the
 * cursor and the visibility rule are evaluated here, row by row until the page is full.
 */
function pageOfPosts(
  db: DbOrTx,
  viewerId: string | null,
  source: PostSource,
  cursor: Cursor | null,
  limit: number,
) {
  const visible = canSeePost(viewerId);
  if (source.kind === "timeline") {
    const after = cursor
      ? sql`(${homeTimeline.createdAt}, ${homeTimeline.postId}) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`
      : undefined;
    return db
      .select(postColumns)
      .from(homeTimeline)
      .innerJoin(posts, eq(posts.id, homeTimeline.postId))
      .where(and(eq(homeTimeline.userId, source.userId), after, visible))
      .orderBy(desc(homeTimeline.createdAt), desc(homeTimeline.postId))
      .limit(limit)
      .as("page");
  }
  const after = cursor
    ? sql`(${posts.createdAt}, ${posts.id}) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`
    : undefined;
  const scope =
    source.kind === "public"
      ? eq(posts.audience, "everyone")
      : source.kind === "author"
        ? eq(posts.authorId, source.authorId)
        : isUuid(source.postId)
          ? eq(posts.id, source.postId)
          : sql`false`;
  return (
    db
      .select(postColumns)
      .from(posts)
      .where(and(scope, after, visible))
      // Spelled as the indexes are (drizzle-kit makes `desc nulls last`): plain `desc` means
      // nulls first, which those indexes cannot serve, and PostgreSQL would sort every match.
      .orderBy(sql`${posts.createdAt} desc nulls last`, sql`${posts.id} desc nulls last`)
      .limit(limit)
      .as("page")
  );
}

type Page = ReturnType<typeof pageOfPosts>;

/**
 * What each post of the page needs on screen. Everything here is correlated to the page's rows,
 * so it runs once per post shown (index probes), never over everything the viewer ever liked or
 * everyone an author has: the planner knows the page has at most `limit` rows.
 */
function cardFields(page: Page, viewerId: string | null) {
  return {
    id: page.id,
    kind: page.kind,
    title: page.title,
    artist: page.artist,
    album: page.album,
    linkUrl: page.linkUrl,
    note: page.note,
    mood: page.mood,
    audience: page.audience,
    createdAt: page.createdAt,
    editedAt: page.editedAt,
    authorId: page.authorId,
    authorUsername: profiles.username,
    authorDisplayName: profiles.displayName,
    authorAvatarUrl: profiles.avatarUrl,
    imageId: media.id,
    imageWidth: media.width,
    imageHeight: media.height,
    previewStatus: linkUnfurls.status,
    previewTitle: linkUnfurls.title,
    previewArtist: linkUnfurls.artist,
    previewEmbedUrl: linkUnfurls.embedUrl,
    previewArt: linkUnfurls.artworkSha256,
    likeCount: sql<number>`(select count(*)::int from ${postLikes} where ${postLikes.postId} = ${page.id})`,
    commentCount: sql<number>`(select count(*)::int from ${comments} where ${comments.postId} = ${page.id})`,
    viewerHasLiked: viewerId
      ? sql<boolean>`exists (select 1 from ${postLikes} where ${postLikes.postId} = ${page.id} and ${postLikes.userId} = ${viewerId})`
      : sql<boolean>`false`,
    viewerFollowsAuthor: viewerId
      ? sql<boolean>`exists (select 1 from ${follows} where ${follows.followerId} = ${viewerId} and ${follows.followeeId} = ${page.authorId})`
      : sql<boolean>`false`,
  };
}

export type CardRow = Awaited<ReturnType<typeof queryRows>>[number];

function toCard(r: CardRow): PostCardData {
  return {
    id: r.id,
    kind: r.kind,
    title: r.title,
    artist: r.artist,
    album: r.album,
    linkUrl: r.linkUrl,
    note: r.note,
    mood: r.mood,
    audience: r.audience,
    createdAt: r.createdAt.toISOString(),
    editedAt: r.editedAt ? r.editedAt.toISOString() : null,
    author: {
      id: r.authorId,
      username: r.authorUsername,
      displayName: shownName({ displayName: r.authorDisplayName, username: r.authorUsername }),
      avatarUrl: r.authorAvatarUrl,
    },
    image:
      r.imageId && r.imageWidth && r.imageHeight
        ? { id: r.imageId, width: r.imageWidth, height: r.imageHeight }
        : null,
    preview:
      r.previewStatus === "done"
        ? {
            title: r.previewTitle,
            artist: r.previewArtist,
            embedUrl: r.previewEmbedUrl,
            art: r.previewArt ? `/art/${r.previewArt}.webp` : null,
          }
        : null,
    likeCount: Number(r.likeCount),
    commentCount: Number(r.commentCount),
    viewerHasLiked: Boolean(r.viewerHasLiked),
    viewerFollowsAuthor: Boolean(r.viewerFollowsAuthor),
  };
}

/**
 * The page as ONE statement: the inner query picks the posts (see pageOfPosts), the outer one
 * adds authors, images, counts and the viewer's relation per post. Exported for the test that
 * holds `timelineRows` to it (app/features/posts/feed-page-function.test.ts).
 */
export function queryRows(
  db: DbOrTx,
  viewerId: string | null,
  source: PostSource,
  cursor: Cursor | null,
  limit: number,
) {
  const page = pageOfPosts(db, viewerId, source, cursor, limit);
  return db
    .select(cardFields(page, viewerId))
    .from(page)
    .innerJoin(profiles, eq(profiles.userId, page.authorId))
    .leftJoin(media, eq(media.id, page.mediaId))
    .leftJoin(linkUnfurls, eq(linkUnfurls.url, page.linkUrl))
    .orderBy(desc(page.createdAt), desc(page.id));
}

/** A row of `feed_timeline_page` as `json_agg` writes it: its column names, JSON values. */
interface TimelineJsonRow {
  id: CardRow["id"];
  kind: CardRow["kind"];
  title: CardRow["title"];
  artist: CardRow["artist"];
  album: CardRow["album"];
  link_url: CardRow["linkUrl"];
  note: CardRow["note"];
  mood: CardRow["mood"];
  audience: CardRow["audience"];
  created_at: string;
  edited_at: string | null;
  author_id: CardRow["authorId"];
  author_username: CardRow["authorUsername"];
  author_display_name: CardRow["authorDisplayName"];
  author_avatar_url: CardRow["authorAvatarUrl"];
  image_id: CardRow["imageId"];
  image_width: CardRow["imageWidth"];
  image_height: CardRow["imageHeight"];
  preview_status: CardRow["previewStatus"];
  preview_title: CardRow["previewTitle"];
  preview_artist: CardRow["previewArtist"];
  preview_embed_url: CardRow["previewEmbedUrl"];
  preview_art: CardRow["previewArt"];
  like_count: CardRow["likeCount"];
  comment_count: CardRow["commentCount"];
  viewer_has_liked: CardRow["viewerHasLiked"];
  viewer_follows_author: CardRow["viewerFollowsAuthor"];
}

/**
 * A person's own home timeline through the `feed_timeline_page` function (drizzle/0022): the
 * rows `queryRows` gives for `{ kind: "timeline" }`, from a statement whose plan the connection
 * keeps (PL/pgSQL caches it), where the inline statement was planned again on every call.
 * Still one statement.
 *
 * The page comes back as ONE JSON value (`json_agg`), not 21 rows of 27 columns (issue 17 item
 * 5): the driver then decodes one field and parses it natively, where it copied ~570 fields out
 * of PGlite's memory one by one, and Drizzle mapped each — a third of the call's time outside
 * PostgreSQL, and most of its garbage. Timestamps arrive as ISO 8601 text with an offset.
 */
export async function timelineRows(
  db: DbOrTx,
  viewerId: string,
  cursor: Cursor | null,
  limit: number,
): Promise<CardRow[]> {
  const result = await db.execute(
    sql`select json_agg(page order by page.created_at desc, page.id desc) as page from feed_timeline_page(${viewerId}, ${cursor?.createdAt ?? null}::timestamptz, ${cursor?.id ?? null}::uuid, ${limit}::int) as page`,
  );
  // Both drivers parse `json` values; an empty page is a null aggregate.
  const page = rowsOf<{ page: TimelineJsonRow[] | null }>(result)[0]?.page ?? [];
  return page.map((r) => ({
    id: r.id,
    kind: r.kind,
    title: r.title,
    artist: r.artist,
    album: r.album,
    linkUrl: r.link_url,
    note: r.note,
    mood: r.mood,
    audience: r.audience,
    createdAt: new Date(r.created_at),
    editedAt: r.edited_at === null ? null : new Date(r.edited_at),
    authorId: r.author_id,
    authorUsername: r.author_username,
    authorDisplayName: r.author_display_name,
    authorAvatarUrl: r.author_avatar_url,
    imageId: r.image_id,
    imageWidth: r.image_width,
    imageHeight: r.image_height,
    previewStatus: r.preview_status,
    previewTitle: r.preview_title,
    previewArtist: r.preview_artist,
    previewEmbedUrl: r.preview_embed_url,
    previewArt: r.preview_art,
    likeCount: r.like_count,
    commentCount: r.comment_count,
    viewerHasLiked: r.viewer_has_liked,
    viewerFollowsAuthor: r.viewer_follows_author,
  }));
}

/**
 * One page of posts with their authors, images, counts and the viewer's likes — in ONE SQL
 * statement whatever the page size. Every source applies the shared visibility rule.
 */
export async function selectPostCards(options: SelectPostCardsOptions): Promise<PostPage> {
  const { viewerId, source } = options;
  const db = options.db ?? getDb();
  const limit = Math.min(Math.max(options.limit ?? FEED_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const cursor = decodeCursor(options.cursor);
  const rows =
    source.kind === "timeline" && viewerId === source.userId
      ? await timelineRows(db, viewerId, cursor, limit + 1)
      : await queryRows(db, viewerId, source, cursor, limit + 1);
  const cards = rows.slice(0, limit).map(toCard);
  const last = cards[cards.length - 1];
  return {
    posts: cards,
    nextCursor:
      rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}
