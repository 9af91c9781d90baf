import { and, count, desc, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { comments, media, posts, profiles, type ReportStatus, reports } from "~/db/schema";
import { recordSocialEvent } from "~/features/notifications/index.server";
import { assertAdmin } from "./access.server";
import { recordAudit } from "./audit.server";
import { type Paged, pageInfo, pageOffset } from "./paging";

export interface AdminReportRow {
  id: string;
  reason: string;
  details: string;
  status: ReportStatus;
  createdAt: Date;
  reporter: { userId: string; username: string | null };
  target:
    | { type: "post"; postId: string; title: string; authorUsername: string | null }
    | {
        type: "comment";
        commentId: string;
        postId: string;
        content: string;
        authorUsername: string | null;
      };
}

const reporter = alias(profiles, "reporter");
const postAuthor = alias(profiles, "post_author");
const commentAuthor = alias(profiles, "comment_author");

/** Reported posts and comments, newest first, 12 a page (open ones, or resolved ones). */
export async function listReports(options: {
  actorId: string;
  page: number;
  status: ReportStatus;
}): Promise<Paged<AdminReportRow>> {
  await assertAdmin(options.actorId);
  const db = getDb();
  const [totals] = await db
    .select({ total: count() })
    .from(reports)
    .where(eq(reports.status, options.status));
  const info = pageInfo(totals?.total ?? 0, options.page);
  const rows = await db
    .select({
      id: reports.id,
      reason: reports.reason,
      details: reports.details,
      status: reports.status,
      createdAt: reports.createdAt,
      reporterId: reports.reporterId,
      reporterUsername: reporter.username,
      postId: posts.id,
      postTitle: posts.title,
      postAuthor: postAuthor.username,
      commentId: comments.commentId,
      commentPostId: comments.postId,
      commentContent: comments.content,
      commentAuthor: commentAuthor.username,
    })
    .from(reports)
    .leftJoin(reporter, eq(reporter.userId, reports.reporterId))
    .leftJoin(posts, eq(posts.id, reports.postId))
    .leftJoin(postAuthor, eq(postAuthor.userId, posts.authorId))
    .leftJoin(comments, eq(comments.commentId, reports.commentId))
    .leftJoin(commentAuthor, eq(commentAuthor.userId, comments.userId))
    .where(eq(reports.status, options.status))
    .orderBy(desc(reports.createdAt), desc(reports.id))
    .limit(info.pageSize)
    .offset(pageOffset(info));
  return {
    ...info,
    items: rows.map((row) => ({
      id: row.id,
      reason: row.reason,
      details: row.details,
      status: row.status,
      createdAt: row.createdAt,
      reporter: { userId: row.reporterId, username: row.reporterUsername },
      target: row.commentId
        ? {
            type: "comment" as const,
            commentId: row.commentId,
            postId: row.commentPostId ?? "",
            content: row.commentContent ?? "",
            authorUsername: row.commentAuthor,
          }
        : {
            type: "post" as const,
            postId: row.postId ?? "",
            title: row.postTitle ?? "",
            authorUsername: row.postAuthor,
          },
    })),
  };
}

/** Marks a report (and any other open report of the same content) as handled. */
export async function resolveReport(options: { actorId: string; reportId: string }): Promise<void> {
  const actor = await assertAdmin(options.actorId);
  await getDb().transaction(async (tx) => {
    const [report] = await tx
      .select({ postId: reports.postId, commentId: reports.commentId, status: reports.status })
      .from(reports)
      .where(eq(reports.id, options.reportId))
      .for("update");
    if (!report) throw new AppError("not_found", "That report no longer exists.");
    if (report.status === "resolved") return;
    const sameTarget = report.commentId
      ? eq(reports.commentId, report.commentId)
      : eq(reports.postId, report.postId ?? "");
    const resolved = await tx
      .update(reports)
      .set({ status: "resolved", resolvedBy: actor.id, resolvedAt: sql`now()` })
      .where(and(eq(reports.status, "open"), sameTarget))
      .returning({ id: reports.id });
    await recordAudit(tx, actor, {
      action: "report.resolve",
      targetType: "report",
      targetId: options.reportId,
      details: {
        postId: report.postId,
        commentId: report.commentId,
        reportsResolved: resolved.length,
      },
    });
  });
}

/**
 * Deletes the reported post or comment (its reports go with it) and records the moderator's
 * reason and what was removed in the audit log.
 */
export async function deleteReportedContent(options: {
  actorId: string;
  reportId: string;
  reason: string;
}): Promise<"post" | "comment"> {
  const actor = await assertAdmin(options.actorId);
  return getDb().transaction(async (tx) => {
    const [report] = await tx
      .select({ postId: reports.postId, commentId: reports.commentId, reason: reports.reason })
      .from(reports)
      .where(eq(reports.id, options.reportId))
      .for("update");
    if (!report) throw new AppError("not_found", "That report no longer exists.");
    if (report.commentId) {
      const [deleted] = await tx
        .delete(comments)
        .where(eq(comments.commentId, report.commentId))
        .returning({ userId: comments.userId, content: comments.content, postId: comments.postId });
      if (!deleted) throw new AppError("not_found", "That comment no longer exists.");
      await recordSocialEvent(tx, { type: "commentDeleted", postId: deleted.postId });
      await recordAudit(tx, actor, {
        action: "comment.delete",
        targetType: "comment",
        targetId: report.commentId,
        details: {
          reason: options.reason,
          reportId: options.reportId,
          reportReason: report.reason,
          postId: deleted.postId,
          authorId: deleted.userId,
          content: deleted.content.slice(0, 280),
        },
      });
      return "comment";
    }
    const [deleted] = await tx
      .delete(posts)
      .where(eq(posts.id, report.postId ?? ""))
      .returning({ authorId: posts.authorId, title: posts.title, mediaId: posts.mediaId });
    if (!deleted) throw new AppError("not_found", "That post no longer exists.");
    // As when the author deletes it: the image goes too, and other features hear of it.
    if (deleted.mediaId) await tx.delete(media).where(eq(media.id, deleted.mediaId));
    await recordSocialEvent(tx, {
      type: "postDeleted",
      postId: report.postId ?? "",
      authorId: deleted.authorId,
    });
    await recordAudit(tx, actor, {
      action: "post.delete",
      targetType: "post",
      targetId: report.postId,
      details: {
        reason: options.reason,
        reportId: options.reportId,
        reportReason: report.reason,
        authorId: deleted.authorId,
        title: deleted.title,
      },
    });
    return "post";
  });
}
