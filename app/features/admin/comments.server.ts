import { count, desc, eq } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { comments, posts, profiles } from "~/db/schema";
import { recordSocialEvent } from "~/features/notifications/index.server";
import { assertAdmin } from "./access.server";
import { recordAudit } from "./audit.server";
import { type Paged, pageInfo, pageOffset } from "./paging";

export interface AdminCommentRow {
  commentId: string;
  postId: string;
  postTitle: string | null;
  content: string;
  createdAt: Date;
  author: {
    userId: string;
    displayName: string | null;
    username: string | null;
    avatarUrl: string | null;
  };
}

/** Comments newest first with their author (spec §7), 12 a page. */
export async function listComments(options: {
  actorId: string;
  page: number;
}): Promise<Paged<AdminCommentRow>> {
  await assertAdmin(options.actorId);
  const db = getDb();
  const [totals] = await db.select({ total: count() }).from(comments);
  const info = pageInfo(totals?.total ?? 0, options.page);
  const rows = await db
    .select({
      commentId: comments.commentId,
      postId: comments.postId,
      postTitle: posts.title,
      content: comments.content,
      createdAt: comments.createdAt,
      userId: comments.userId,
      displayName: profiles.displayName,
      username: profiles.username,
      avatarUrl: profiles.avatarUrl,
    })
    .from(comments)
    .leftJoin(profiles, eq(profiles.userId, comments.userId))
    .leftJoin(posts, eq(posts.id, comments.postId))
    .orderBy(desc(comments.createdAt), desc(comments.commentId))
    .limit(info.pageSize)
    .offset(pageOffset(info));
  return {
    ...info,
    items: rows.map(({ userId, displayName, username, avatarUrl, ...row }) => ({
      ...row,
      author: { userId, displayName, username, avatarUrl },
    })),
  };
}

/** Deletes a comment as a moderator; the reason and what was said go to the audit log. */
export async function deleteCommentAsAdmin(options: {
  actorId: string;
  commentId: string;
  reason: string;
}): Promise<void> {
  const actor = await assertAdmin(options.actorId);
  await getDb().transaction(async (tx) => {
    const [deleted] = await tx
      .delete(comments)
      .where(eq(comments.commentId, options.commentId))
      .returning({
        postId: comments.postId,
        userId: comments.userId,
        content: comments.content,
      });
    if (!deleted) throw new AppError("not_found", "That comment no longer exists.");
    await recordSocialEvent(tx, { type: "commentDeleted", postId: deleted.postId });
    await recordAudit(tx, actor, {
      action: "comment.delete",
      targetType: "comment",
      targetId: options.commentId,
      details: {
        reason: options.reason,
        postId: deleted.postId,
        authorId: deleted.userId,
        content: deleted.content.slice(0, 280),
      },
    });
  });
}
