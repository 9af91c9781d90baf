import { and, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { isUuid } from "~/core/ids";
import { blockedBetween, canSeePost, POST_NOT_FOUND } from "~/core/visibility.server";
import { getDb } from "~/db/client.server";
import { comments, posts, reports } from "~/db/schema";
import type { ReportReasonKey } from "./reasons";

export const CANNOT_REPORT_OWN = "You cannot report your own post or comment.";

export interface ReportOptions {
  viewerId: string;
  reason: ReportReasonKey;
  details?: string;
}

/**
 * Reports a post the viewer can see, for the admin area. Reporting the same post again while
 * the first report is open changes nothing.
 */
export async function reportPost(options: ReportOptions & { postId: string }): Promise<void> {
  const { viewerId, postId } = options;
  if (!isUuid(postId)) throw new AppError("not_found", POST_NOT_FOUND);
  const [post] = await getDb()
    .select({ authorId: posts.authorId })
    .from(posts)
    .where(and(eq(posts.id, postId), canSeePost(viewerId)));
  if (!post) throw new AppError("not_found", POST_NOT_FOUND);
  if (post.authorId === viewerId) throw new AppError("invalid", CANNOT_REPORT_OWN);
  await getDb()
    .insert(reports)
    .values({
      reporterId: viewerId,
      postId,
      reason: options.reason,
      details: options.details ?? "",
    })
    .onConflictDoNothing();
}

/** Reports a comment the viewer can see. */
export async function reportComment(options: ReportOptions & { commentId: string }): Promise<void> {
  const { viewerId, commentId } = options;
  const notFound = new AppError("not_found", "This comment does not exist, or you cannot see it.");
  if (!isUuid(commentId)) throw notFound;
  const [comment] = await getDb()
    .select({ authorId: comments.userId })
    .from(comments)
    .innerJoin(posts, eq(posts.id, comments.postId))
    .where(
      and(
        eq(comments.commentId, commentId),
        canSeePost(viewerId),
        sql`not ${blockedBetween(comments.userId, viewerId)}`,
      ),
    );
  if (!comment) throw notFound;
  if (comment.authorId === viewerId) throw new AppError("invalid", CANNOT_REPORT_OWN);
  await getDb()
    .insert(reports)
    .values({
      reporterId: viewerId,
      commentId,
      reason: options.reason,
      details: options.details ?? "",
    })
    .onConflictDoNothing();
}
