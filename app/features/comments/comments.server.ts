import { and, asc, desc, eq, inArray, isNull, lte, type SQL, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { isUuid } from "~/core/ids";
import { shownName } from "~/core/person";
import { blockedBetween, canSeePost, POST_NOT_FOUND } from "~/core/visibility.server";
import { getDb } from "~/db/client.server";
import { comments, posts, profiles } from "~/db/schema";
import { recordSocialEvent } from "~/features/notifications/index.server";
import { mentionedUsernames } from "~/features/posts";

/** Spec §9: comments come 12 at a time. */
export const COMMENTS_PAGE_SIZE = 12;
export const COMMENT_NOT_FOUND = "This comment does not exist, or you cannot change it.";
export const REPLY_NOT_FOUND = "The comment you are replying to is no longer there.";

/** Spec §3: a comment with its author's profile. */
export interface CommentData {
  id: string;
  postId: string;
  content: string;
  createdAt: string;
  editedAt: string | null;
  author: { id: string; username: string; displayName: string; avatarUrl: string | null };
  /** The viewer wrote it (edit, delete). */
  isOwn: boolean;
  /** The viewer may delete it (own comment, or a comment on the viewer's post). */
  canDelete: boolean;
  /** The comment it answers, while that one still exists. */
  replyTo: { id: string; username: string } | null;
}

/** A top-level comment with the start of its thread. */
export interface CommentThreadData extends CommentData {
  /** The first replies, oldest first (all of them when the thread was asked for). */
  replies: CommentData[];
  /** Replies in the thread the viewer may see, shown or not. */
  replyCount: number;
}

export interface CommentPage {
  comments: CommentThreadData[];
  nextCursor: string | null;
}

/** Replies shown under a comment before "Show n more replies". */
export const REPLIES_SHOWN = 3;
/** At most this many replies of one thread in one answer. */
const REPLIES_MAX = 200;

function encode(createdAt: string, id: string) {
  return Buffer.from(`${createdAt}|${id}`).toString("base64url");
}

function decode(raw: string | null | undefined): { createdAt: string; id: string } | null {
  if (!raw || raw.length > 200) return null;
  const [createdAt, id] = Buffer.from(raw, "base64url").toString("utf8").split("|");
  if (!createdAt || !isUuid(id) || Number.isNaN(Date.parse(createdAt))) return null;
  return { createdAt, id };
}

/** The columns of a comment as shown, with its author and the username it answers. */
function commentColumns() {
  return {
    id: comments.commentId,
    postId: comments.postId,
    threadId: comments.threadId,
    content: comments.content,
    createdAt: comments.createdAt,
    editedAt: comments.editedAt,
    authorId: comments.userId,
    username: profiles.username,
    displayName: profiles.displayName,
    avatarUrl: profiles.avatarUrl,
    postAuthorId: posts.authorId,
    replyToId: comments.replyToId,
    replyToUsername: sql<string | null>`(select pr.username from ${comments} parent
        join ${profiles} pr on pr.user_id = parent.user_id
        where parent.comment_id = ${comments.replyToId})`.as("reply_to_username"),
  };
}

/** Comments of this post the viewer may see: the post is visible, no block either way. */
function visibleOn(postId: string, viewerId: string | null): SQL | undefined {
  return and(
    eq(comments.postId, postId),
    canSeePost(viewerId),
    viewerId ? sql`not ${blockedBetween(comments.userId, viewerId)}` : undefined,
  );
}

interface CommentRow {
  id: string;
  postId: string;
  content: string;
  createdAt: Date;
  editedAt: Date | null;
  authorId: string;
  username: string;
  displayName: string | null;
  avatarUrl: string | null;
  postAuthorId: string;
  replyToId: string | null;
  replyToUsername: string | null;
}

function toCommentData(r: CommentRow, viewerId: string | null): CommentData {
  return {
    id: r.id,
    postId: r.postId,
    content: r.content,
    createdAt: r.createdAt.toISOString(),
    editedAt: r.editedAt ? r.editedAt.toISOString() : null,
    author: {
      id: r.authorId,
      username: r.username,
      displayName: shownName(r),
      avatarUrl: r.avatarUrl,
    },
    isOwn: r.authorId === viewerId,
    canDelete: viewerId !== null && (r.authorId === viewerId || r.postAuthorId === viewerId),
    replyTo:
      r.replyToId && r.replyToUsername ? { id: r.replyToId, username: r.replyToUsername } : null,
  };
}

/**
 * The replies of some threads the viewer may see, oldest first: the first `perThread` of each
 * and how many there are. One statement.
 */
async function listReplies(options: {
  viewerId: string | null;
  postId: string;
  threadIds: string[];
  perThread: number;
}): Promise<Map<string, { replies: CommentData[]; count: number }>> {
  const result = new Map<string, { replies: CommentData[]; count: number }>();
  if (options.threadIds.length === 0) return result;
  const db = getDb();
  const ranked = db
    .select({
      ...commentColumns(),
      n: sql<number>`row_number() over (partition by ${comments.threadId}
        order by ${comments.createdAt}, ${comments.commentId})`.as("n"),
      total: sql<number>`count(*) over (partition by ${comments.threadId})`.as("total"),
    })
    .from(comments)
    .innerJoin(posts, eq(posts.id, comments.postId))
    .innerJoin(profiles, eq(profiles.userId, comments.userId))
    .where(
      and(
        visibleOn(options.postId, options.viewerId),
        inArray(comments.threadId, options.threadIds),
      ),
    )
    .as("ranked");
  const rows = await db
    .select()
    .from(ranked)
    .where(lte(ranked.n, options.perThread))
    .orderBy(asc(ranked.threadId), asc(ranked.n));
  for (const row of rows) {
    if (!row.threadId) continue;
    const thread = result.get(row.threadId) ?? { replies: [], count: Number(row.total) };
    thread.replies.push(toCommentData(row, options.viewerId));
    result.set(row.threadId, thread);
  }
  return result;
}

/**
 * Comments of a post the viewer may see: top-level comments newest first, 12 a page, each with
 * the first replies of its thread, oldest first. Comments by people in a block with the viewer
 * are hidden. Two statements.
 */
export async function listComments(options: {
  viewerId: string | null;
  postId: string;
  cursor?: string | null;
  limit?: number;
}): Promise<CommentPage> {
  const { viewerId, postId } = options;
  if (!isUuid(postId)) return { comments: [], nextCursor: null };
  const limit = Math.min(options.limit ?? COMMENTS_PAGE_SIZE, 50);
  const cursor = decode(options.cursor);
  const rows = await getDb()
    .select(commentColumns())
    .from(comments)
    .innerJoin(posts, eq(posts.id, comments.postId))
    .innerJoin(profiles, eq(profiles.userId, comments.userId))
    .where(
      and(
        visibleOn(postId, viewerId),
        isNull(comments.threadId),
        cursor
          ? sql`(${comments.createdAt}, ${comments.commentId}) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(desc(comments.createdAt), desc(comments.commentId))
    .limit(limit + 1);
  const tops = rows.slice(0, limit);
  const threads = await listReplies({
    viewerId,
    postId,
    threadIds: tops.map((r) => r.id),
    perThread: REPLIES_SHOWN,
  });
  const page = tops.map((r): CommentThreadData => {
    const thread = threads.get(r.id);
    return {
      ...toCommentData(r, viewerId),
      replies: thread?.replies ?? [],
      replyCount: thread?.count ?? 0,
    };
  });
  const last = page[page.length - 1];
  return {
    comments: page,
    nextCursor: rows.length > limit && last ? encode(last.createdAt, last.id) : null,
  };
}

/** Every reply of one thread the viewer may see, oldest first ("Show n more replies"). */
export async function listThread(options: {
  viewerId: string | null;
  postId: string;
  threadId: string;
}): Promise<CommentData[]> {
  if (!isUuid(options.postId) || !isUuid(options.threadId)) return [];
  const threads = await listReplies({
    viewerId: options.viewerId,
    postId: options.postId,
    threadIds: [options.threadId],
    perThread: REPLIES_MAX,
  });
  return threads.get(options.threadId)?.replies ?? [];
}

/** Adds a comment to a post the viewer may see (a block either way refuses it). */
export async function addComment(options: {
  viewerId: string;
  postId: string;
  content: string;
  /** The comment this one answers: on the same post, and visible to the viewer. */
  replyToId?: string | null;
  /**
   * The id the commenter's browser chose (its idempotency key, ADR 037): sending the same
   * comment again after a lost answer finds the first one instead of posting it twice.
   */
  clientId?: string | null;
}): Promise<{ id: string }> {
  const { viewerId, postId } = options;
  const clientId = options.clientId || null;
  if (clientId !== null && !isUuid(clientId)) {
    throw new AppError(
      "invalid",
      "This comment's key is not valid. Reload the page and try again.",
    );
  }
  if (!isUuid(postId)) throw new AppError("not_found", POST_NOT_FOUND);
  const replyToId = options.replyToId || null;
  if (replyToId !== null && !isUuid(replyToId)) throw new AppError("not_found", REPLY_NOT_FOUND);
  return getDb().transaction(async (tx) => {
    const repeated = async () => {
      if (!clientId) return null;
      const [row] = await tx
        .select({ userId: comments.userId, postId: comments.postId })
        .from(comments)
        .where(eq(comments.commentId, clientId));
      if (!row) return null;
      if (row.userId !== viewerId || row.postId !== postId) {
        throw new AppError(
          "conflict",
          "This comment's key is taken. Reload the page and try again.",
        );
      }
      return { id: clientId };
    };
    const earlier = await repeated();
    if (earlier) return earlier;
    const [post] = await tx
      .select({ authorId: posts.authorId })
      .from(posts)
      .where(and(eq(posts.id, postId), canSeePost(viewerId)));
    if (!post) throw new AppError("not_found", POST_NOT_FOUND);
    let replyToAuthorId: string | null = null;
    let threadId: string | null = null;
    if (replyToId) {
      const [parent] = await tx
        .select({ authorId: comments.userId, threadId: comments.threadId })
        .from(comments)
        .where(
          and(
            eq(comments.commentId, replyToId),
            eq(comments.postId, postId),
            sql`not ${blockedBetween(comments.userId, viewerId)}`,
          ),
        );
      if (!parent) throw new AppError("not_found", REPLY_NOT_FOUND);
      replyToAuthorId = parent.authorId;
      // One level of nesting: a reply to a reply joins the thread of the comment it answers.
      threadId = parent.threadId ?? replyToId;
    }
    const [row] = await tx
      .insert(comments)
      .values({
        ...(clientId ? { commentId: clientId } : {}),
        postId,
        userId: viewerId,
        content: options.content,
        replyToId,
        threadId,
      })
      // Two sends of the same comment racing: the second waits for the first and finds it.
      .onConflictDoNothing({ target: comments.commentId })
      .returning({ id: comments.commentId });
    if (!row) {
      const raced = await repeated();
      if (raced) return raced;
      throw new Error("comment insert returned nothing");
    }
    await recordSocialEvent(tx, {
      type: "commentAdded",
      postId,
      commentId: row.id,
      authorId: post.authorId,
      commenterId: viewerId,
      replyToId,
      replyToAuthorId,
      mentions: mentionedUsernames(options.content),
    });
    return { id: row.id };
  });
}

/** Edits the viewer's own comment (on a post they can still see). */
export async function editComment(options: {
  viewerId: string;
  commentId: string;
  content: string;
}): Promise<void> {
  if (!isUuid(options.commentId)) throw new AppError("not_found", COMMENT_NOT_FOUND);
  const updated = await getDb()
    .update(comments)
    .set({ content: options.content, editedAt: sql`now()` })
    .where(
      and(
        eq(comments.commentId, options.commentId),
        eq(comments.userId, options.viewerId),
        sql`exists (select 1 from ${posts} where ${posts.id} = ${comments.postId} and ${canSeePost(options.viewerId)})`,
      ),
    )
    .returning({ id: comments.commentId });
  if (updated.length === 0) throw new AppError("not_found", COMMENT_NOT_FOUND);
}

/** Deletes a comment the viewer wrote, or any comment on the viewer's own post. */
export async function deleteComment(options: {
  viewerId: string;
  commentId: string;
}): Promise<{ postId: string }> {
  if (!isUuid(options.commentId)) throw new AppError("not_found", COMMENT_NOT_FOUND);
  return getDb().transaction(async (tx) => {
    const [deleted] = await tx
      .delete(comments)
      .where(
        and(
          eq(comments.commentId, options.commentId),
          sql`(${comments.userId} = ${options.viewerId} or exists (
          select 1 from ${posts} where ${posts.id} = ${comments.postId} and ${posts.authorId} = ${options.viewerId}))`,
        ),
      )
      .returning({ postId: comments.postId });
    if (!deleted) throw new AppError("not_found", COMMENT_NOT_FOUND);
    await recordSocialEvent(tx, { type: "commentDeleted", postId: deleted.postId });
    return deleted;
  });
}
