import { useEffect, useId, useRef, useState } from "react";
import { Link, useFetcher, useLocation, useSearchParams } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { Button, ButtonLink, buttonClasses } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { RelativeTime } from "~/components/ui/relative-time";
import { NoteText } from "~/features/posts/components/note-text";
import { COMMENT_MAX_LENGTH } from "~/features/posts/constants";
import { ReportForm } from "~/features/reports/components/report-form";
import { type FetcherOutcome, useFetcherOutcome } from "~/lib/use-fetcher-outcome";
import type { CommentData } from "../comments.server";

type CommentOutcome = FetcherOutcome<{ commentId?: string; deleted?: boolean }>;

interface ReplyTarget {
  id: string;
  username: string;
}

function CommentForm({
  postId,
  replyTo,
  onCancelReply,
}: {
  postId: string;
  replyTo: ReplyTarget | null;
  onCancelReply: () => void;
}) {
  const fetcher = useFetcher<CommentOutcome>({ key: `comment-${postId}` });
  const formRef = useRef<HTMLFormElement>(null);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  useFetcherOutcome(fetcher, "Could not post your comment", () => {
    formRef.current?.reset();
    onCancelReply();
  });
  // Answering someone starts with their @name, and puts the cursor after it.
  useEffect(() => {
    const text = textRef.current;
    if (!replyTo || !text) return;
    const mention = `@${replyTo.username} `;
    if (!text.value.startsWith(mention)) text.value = `${mention}${text.value}`;
    text.focus();
    text.setSelectionRange(text.value.length, text.value.length);
  }, [replyTo]);
  return (
    <fetcher.Form
      ref={formRef}
      id="add-comment"
      method="post"
      action={`/post/${postId}`}
      className="flex scroll-mt-24 flex-col gap-2"
    >
      <input type="hidden" name="intent" value="add-comment" />
      {replyTo ? <input type="hidden" name="replyToId" value={replyTo.id} /> : null}
      <label htmlFor={id} className="text-sm font-medium">
        {replyTo ? `Reply to @${replyTo.username}` : "Add a comment"}
      </label>
      <textarea
        ref={textRef}
        id={id}
        name="content"
        required
        maxLength={COMMENT_MAX_LENGTH}
        rows={2}
        placeholder="Say something nice about this music…"
        className="rounded-lg border border-border bg-background px-3 py-2"
      />
      {replyTo ? (
        <p className="text-sm text-muted-foreground">
          Replying to @{replyTo.username}.{" "}
          <button
            type="button"
            onClick={onCancelReply}
            className="font-medium text-primary underline"
          >
            Cancel reply
          </button>
        </p>
      ) : null}
      <div className="flex justify-end">
        <Button type="submit" size="sm" disabled={fetcher.state !== "idle"}>
          {fetcher.state !== "idle" ? "Posting…" : "Comment"}
        </Button>
      </div>
    </fetcher.Form>
  );
}

function CommentItem({
  comment,
  isSignedIn,
  onReply,
}: {
  comment: CommentData;
  isSignedIn: boolean;
  onReply: (target: ReplyTarget) => void;
}) {
  const fetcher = useFetcher<CommentOutcome>();
  const [editing, setEditing] = useState(false);
  const [reporting, setReporting] = useState(false);
  const [isDeleted, setDeleted] = useState(false);
  const location = useLocation();
  const editId = useId();
  useFetcherOutcome(fetcher, "Could not change the comment", (data) => {
    setEditing(false);
    if (data.deleted) setDeleted(true);
  });
  const pendingIntent = fetcher.formData?.get("intent");
  // Optimistic: a comment being deleted disappears at once; a refusal brings it back.
  if (isDeleted || pendingIntent === "delete-comment") return null;
  const pendingContent = pendingIntent === "edit-comment" ? fetcher.formData?.get("content") : null;
  const content = typeof pendingContent === "string" ? pendingContent : comment.content;
  const here = `${location.pathname}${location.search}`;
  return (
    <li id={`comment-${comment.id}`} className="flex gap-3 py-3">
      <Link to={`/u/${comment.author.username}`} tabIndex={-1} aria-hidden="true">
        <Avatar
          name={comment.author.displayName}
          username={comment.author.username}
          src={comment.author.avatarUrl}
          size="sm"
        />
      </Link>
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-baseline gap-x-1.5 text-sm">
          <Link to={`/u/${comment.author.username}`} className="font-semibold hover:underline">
            {comment.author.displayName}
          </Link>
          <span className="text-muted-foreground">@{comment.author.username}</span>
          <span aria-hidden="true" className="text-muted-foreground">
            ·
          </span>
          <RelativeTime iso={comment.createdAt} className="text-xs text-muted-foreground" />
          {comment.editedAt ? (
            <span className="text-xs text-muted-foreground">· edited</span>
          ) : null}
        </p>
        {comment.replyTo ? (
          <p className="text-xs text-muted-foreground">
            Replying to{" "}
            <a href={`#comment-${comment.replyTo.id}`} className="hover:underline">
              @{comment.replyTo.username}
            </a>
          </p>
        ) : null}
        {editing ? (
          <fetcher.Form
            method="post"
            action={`/post/${comment.postId}`}
            className="mt-1 flex flex-col gap-2"
          >
            <input type="hidden" name="intent" value="edit-comment" />
            <input type="hidden" name="commentId" value={comment.id} />
            <label htmlFor={editId} className="sr-only">
              Edit your comment
            </label>
            <textarea
              id={editId}
              name="content"
              required
              maxLength={COMMENT_MAX_LENGTH}
              defaultValue={comment.content}
              rows={2}
              className="rounded-lg border border-border bg-background px-3 py-2 text-sm"
            />
            <div className="flex gap-2">
              <Button type="submit" size="sm">
                Save
              </Button>
              <Button type="button" size="sm" variant="ghost" onClick={() => setEditing(false)}>
                Cancel
              </Button>
            </div>
          </fetcher.Form>
        ) : (
          <NoteText text={content} className="mt-0.5 text-sm" />
        )}
        {isSignedIn && !editing ? (
          <div className="mt-1 flex flex-wrap gap-1">
            <ButtonLink
              to={`?replyTo=${comment.id}#add-comment`}
              prefetch="none"
              preventScrollReset
              size="sm"
              variant="ghost"
              onClick={(event) => {
                event.preventDefault();
                onReply({ id: comment.id, username: comment.author.username });
              }}
            >
              <Icon name="reply" className="size-3.5" />
              Reply<span className="sr-only"> to {comment.author.displayName}</span>
            </ButtonLink>
            {comment.isOwn ? (
              <Button size="sm" variant="ghost" onClick={() => setEditing(true)}>
                <Icon name="pencil" className="size-3.5" />
                Edit<span className="sr-only"> your comment</span>
              </Button>
            ) : null}
            {comment.canDelete ? (
              <fetcher.Form method="post" action={`/post/${comment.postId}`}>
                <input type="hidden" name="intent" value="delete-comment" />
                <input type="hidden" name="commentId" value={comment.id} />
                <input type="hidden" name="redirectTo" value={here} />
                <Button type="submit" size="sm" variant="ghost">
                  <Icon name="trash" className="size-3.5" />
                  Delete<span className="sr-only"> comment by {comment.author.displayName}</span>
                </Button>
              </fetcher.Form>
            ) : null}
            {!comment.isOwn ? (
              <Button
                size="sm"
                variant="ghost"
                onClick={() => setReporting((v) => !v)}
                aria-expanded={reporting}
              >
                <Icon name="flag" className="size-3.5" />
                Report<span className="sr-only"> comment by {comment.author.displayName}</span>
              </Button>
            ) : null}
          </div>
        ) : null}
        {reporting ? (
          <div className="mt-2 max-w-sm rounded-lg border border-border">
            <ReportForm target={{ commentId: comment.id }} onDone={() => setReporting(false)} />
          </div>
        ) : null}
      </div>
    </li>
  );
}

/**
 * The comments of a post (spec §3: each with its author's avatar, display name and username),
 * 12 at a time, newest first, with "Show older comments" that works without JavaScript too.
 */
export function CommentsSection({
  postId,
  comments,
  nextCursor,
  commentCount,
  isSignedIn,
  loginHref,
}: {
  postId: string;
  comments: CommentData[];
  nextCursor: string | null;
  commentCount: number;
  isSignedIn: boolean;
  loginHref: string;
}) {
  const older = useFetcher<{ comments: { comments: CommentData[]; nextCursor: string | null } }>();
  const [extra, setExtra] = useState<CommentData[]>([]);
  const [cursor, setCursor] = useState(nextCursor);
  const pendingAdd = useFetcher<CommentOutcome>({ key: `comment-${postId}` });
  useEffect(() => {
    setExtra([]);
    setCursor(nextCursor);
  }, [nextCursor]);
  useEffect(() => {
    const page = older.data?.comments;
    if (older.state !== "idle" || !page) return;
    setExtra((current) => {
      const known = new Set(current.map((c) => c.id));
      return [...current, ...page.comments.filter((c) => !known.has(c.id))];
    });
    setCursor(page.nextCursor);
  }, [older.state, older.data]);
  const shown = [...comments, ...extra.filter((c) => !comments.some((k) => k.id === c.id))];
  // `?replyTo=<id>` (the Reply link without JavaScript) or a click on Reply.
  const [searchParams] = useSearchParams();
  const linked = shown.find((c) => c.id === searchParams.get("replyTo"));
  const [replyTo, setReplyTo] = useState<ReplyTarget | null>(
    linked ? { id: linked.id, username: linked.author.username } : null,
  );
  const optimistic = pendingAdd.formData?.get("content");

  return (
    <section id="comments" aria-labelledby="comments-heading" className="scroll-mt-20">
      <h2 id="comments-heading" className="text-lg font-semibold">
        Comments <span className="text-muted-foreground">({commentCount})</span>
      </h2>
      <div className="mt-3">
        {isSignedIn ? (
          <CommentForm postId={postId} replyTo={replyTo} onCancelReply={() => setReplyTo(null)} />
        ) : (
          <p className="text-sm text-muted-foreground">
            <Link to={loginHref} className="font-medium text-primary underline">
              Sign in
            </Link>{" "}
            to join the conversation.
          </p>
        )}
      </div>
      {shown.length === 0 && typeof optimistic !== "string" ? (
        <p className="mt-4 text-sm text-muted-foreground">No comments yet. Be the first.</p>
      ) : (
        <ul className="mt-2 divide-y divide-border">
          {typeof optimistic === "string" && optimistic.trim() ? (
            <li className="flex gap-3 py-3 opacity-70" aria-live="polite">
              <div className="min-w-0 flex-1">
                <p className="text-sm text-muted-foreground">Posting your comment…</p>
                <p className="whitespace-pre-line break-words text-sm">{optimistic}</p>
              </div>
            </li>
          ) : null}
          {shown.map((comment) => (
            <CommentItem
              key={comment.id}
              comment={comment}
              isSignedIn={isSignedIn}
              onReply={setReplyTo}
            />
          ))}
        </ul>
      )}
      {cursor ? (
        <Link
          to={`/post/${postId}?comments=${encodeURIComponent(cursor)}#comments`}
          className={buttonClasses("secondary", "sm", "mt-3")}
          onClick={(event) => {
            event.preventDefault();
            if (older.state === "idle") {
              older.load(`/post/${postId}?comments=${encodeURIComponent(cursor)}`);
            }
          }}
        >
          {older.state !== "idle" ? "Loading…" : "Show older comments"}
        </Link>
      ) : null}
    </section>
  );
}
