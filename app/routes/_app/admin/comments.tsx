import { data, Link } from "react-router";
import { Icon } from "~/components/ui/icon";
import { shownName } from "~/core/person";
import { deleteCommentAsAdmin, listComments } from "~/features/admin/comments.server";
import { announceAdminAction } from "~/features/admin/components/action-toast";
import { LoadError } from "~/features/admin/components/load-error";
import { Pager } from "~/features/admin/components/pager";
import { ReasonDialog } from "~/features/admin/components/reason-dialog";
import { UserAvatar } from "~/features/admin/components/user-avatar";
import { LOAD_ERRORS } from "~/features/admin/errors";
import { formatDateTime } from "~/features/admin/format";
import { parsePageParam } from "~/features/admin/paging";
import { loadAdminData, runAdminAction } from "~/features/admin/route-helpers.server";
import { deleteCommentSchema } from "~/features/admin/schemas";
import { requireAdmin, requireAdminApi } from "~/features/auth/guards.server";
import { invalidForm, withMessage } from "~/lib/forms";
import type { Route } from "./+types/comments";

export const meta: Route.MetaFunction = () => [{ title: "Comments · Admin · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireAdmin(context, request);
  const page = parsePageParam(new URL(request.url).searchParams.get("page"));
  const result = await loadAdminData(request, LOAD_ERRORS.comments, () =>
    listComments({ actorId: viewer.id, page }),
  );
  return { comments: result.data, error: result.error };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireAdminApi(context);
  const parsed = deleteCommentSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return data(withMessage(invalidForm(parsed.error)), { status: 400 });
  return runAdminAction(async () => {
    await deleteCommentAsAdmin({ actorId: viewer.id, ...parsed.data });
    return "Comment deleted.";
  });
}

/** Shows the outcome as a toast, whatever happened to the button meanwhile. */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return announceAdminAction(serverAction);
}

export default function AdminComments({ loaderData }: Route.ComponentProps) {
  const { comments, error } = loaderData;
  if (!comments) return <LoadError message={error ?? LOAD_ERRORS.comments} />;
  return (
    <section aria-labelledby="comments-heading">
      <h2 id="comments-heading" className="mb-3 text-lg font-semibold">
        Comments <span className="font-normal text-muted-foreground">({comments.total})</span>
      </h2>
      {comments.items.length === 0 ? (
        <p className="rounded-xl border border-dashed border-border p-6 text-center text-muted-foreground">
          Nobody has commented yet.
        </p>
      ) : (
        <ol className="flex flex-col gap-3">
          {comments.items.map((comment) => {
            const author = comment.author;
            const handle = author.username ?? "unknown";
            const name = shownName(author, "Deleted account");
            return (
              <li key={comment.commentId} className="rounded-xl border border-border bg-card p-4">
                <article aria-label={`Comment by @${handle}`}>
                  <header className="flex flex-wrap items-center gap-3">
                    <UserAvatar url={author.avatarUrl} name={name} />
                    <div className="min-w-0 flex-1">
                      <p className="font-medium">{name}</p>
                      <p className="text-sm text-muted-foreground">
                        @{handle} ·{" "}
                        <time dateTime={new Date(comment.createdAt).toISOString()}>
                          {formatDateTime(comment.createdAt)}
                        </time>
                      </p>
                    </div>
                    <ReasonDialog
                      trigger={
                        <>
                          <Icon name="trash" className="size-4" />
                          Delete
                        </>
                      }
                      triggerLabel={`Delete comment by @${handle}`}
                      title="Delete this comment?"
                      description={
                        <>
                          <q className="italic">{comment.content.slice(0, 200)}</q> by @{handle}.
                          The reason is kept in the audit log.
                        </>
                      }
                      confirmLabel="Delete comment"
                      fields={{ intent: "delete", commentId: comment.commentId }}
                    />
                  </header>
                  <p className="mt-3 whitespace-pre-wrap break-words">{comment.content}</p>
                  <p className="mt-2 text-sm">
                    <Link
                      to={`/post/${comment.postId}`}
                      prefetch="intent"
                      className="font-medium text-primary underline"
                    >
                      On “{comment.postTitle ?? "a post"}”
                    </Link>
                  </p>
                </article>
              </li>
            );
          })}
        </ol>
      )}
      <Pager info={comments} label="Comments" />
    </section>
  );
}
