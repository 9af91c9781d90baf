import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Link, useFetcher, useLocation, useSearchParams } from "react-router";
import { type FetcherOutcome, useFetcherOutcome } from "~/components/hooks/use-fetcher-outcome";
import { Avatar } from "~/components/ui/avatar";
import { Button, ButtonLink, buttonClasses } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { RelativeTime } from "~/components/ui/relative-time";
import { COMMENT_MAX_LENGTH, NoteText } from "~/features/posts";
import { ReportForm } from "~/features/reports";
import type { CommentData, CommentThreadData } from "../comments.server";

type CommentOutcome = FetcherOutcome<{ commentId?: string; deleted?: boolean }>;

interface ReplyTarget {
  id: string;
  username: string;
  /** The top-level comment whose thread the reply joins. */
  threadId: string;
}

function CommentForm({
  postId,
  replyTo,
  onCancelReply,
  onPosted,
}: {
  postId: string;
  replyTo: ReplyTarget | null;
  onCancelReply: () => void;
  /** A reply was posted: its thread opens, so it shows however long the thread is. */
  onPosted: (threadId: string | null) => void;
}) {
  const fetcher = useFetcher<CommentOutcome>({ key: `comment-${postId}` });
  const formRef = useRef<HTMLFormElement>(null);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  useFetcherOutcome(fetcher, "Could not post your comment", () => {
    formRef.current?.reset();
    onPosted(replyTo?.threadId ?? null);
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
  threadId,
  isSignedIn,
  onReply,
  children,
}: {
  comment: CommentData;
  /** The top-level comment of its thread (its own id when it is one). */
  threadId: string;
  isSignedIn: boolean;
  onReply: (target: ReplyTarget) => void;
  /** The thread's replies, under a top-level comment. */
  children?: ReactNode;
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
        {comment.replyTo && comment.replyTo.id !== threadId ? (
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
                onReply({ id: comment.id, username: comment.author.username, threadId });
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
        {children}
      </div>
    </li>
  );
}

/**
 * The replies under a top-level comment, oldest first: the first few, then "Show n more
 * replies" (a link to `?thread=<id>` without JavaScript, loaded in place with it).
 */
function ThreadReplies({
  root,
  postId,
  pageCursor,
  isSignedIn,
  onReply,
  loaded,
  openCount,
}: {
  root: CommentThreadData;
  postId: string;
  /** The comments page this thread is on, kept in the no-JavaScript link. */
  pageCursor: string | null;
  isSignedIn: boolean;
  onReply: (target: ReplyTarget) => void;
  /** Every reply, when the page was asked for this thread (`?thread=`). */
  loaded: CommentData[] | null;
  /** Bumped to (re)load every reply: "Show more", or a reply just posted here. */
  openCount: number;
}) {
  const fetcher = useFetcher<{ thread: { id: string; replies: CommentData[] } | null }>();
  const url = `/post/${postId}?thread=${root.id}`;
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads again only when asked to.
  useEffect(() => {
    if (openCount > 0) fetcher.load(url);
  }, [openCount, url]);
  const fetched = fetcher.data?.thread?.id === root.id ? fetcher.data.thread.replies : null;
  const replies = fetched ?? loaded ?? root.replies;
  const hidden = Math.max(0, root.replyCount - replies.length);
  if (replies.length === 0 && hidden === 0) return null;
  const params = new URLSearchParams({ thread: root.id });
  if (pageCursor) params.set("comments", pageCursor);
  return (
    <div className="mt-2">
      {replies.length > 0 ? (
        <ul
          aria-label={`Replies to ${root.author.displayName}`}
          className="divide-y divide-border border-l-2 border-border pl-3"
        >
          {replies.map((reply) => (
            <CommentItem
              key={reply.id}
              comment={reply}
              threadId={root.id}
              isSignedIn={isSignedIn}
              onReply={onReply}
            />
          ))}
        </ul>
      ) : null}
      {hidden > 0 ? (
        <Link
          to={`/post/${postId}?${params}#comment-${root.id}`}
          preventScrollReset
          className="mt-1 inline-block text-sm font-medium text-primary hover:underline"
          onClick={(event) => {
            event.preventDefault();
            if (fetcher.state === "idle") fetcher.load(url);
          }}
        >
          {fetcher.state !== "idle"
            ? "Loading replies…"
            : `Show ${hidden} more ${hidden === 1 ? "reply" : "replies"}`}
        </Link>
      ) : null}
    </div>
  );
}

/**
 * The comments of a post (spec §3: each with its author's avatar, display name and username),
 * 12 at a time, newest first, with "Show older comments" that works without JavaScript too.
 */
export function CommentsSection({
  postId,
  comments,
  openThread,
  nextCursor,
  commentCount,
  isSignedIn,
  loginHref,
}: {
  postId: string;
  comments: CommentThreadData[];
  /** Every reply of one thread, when the page was asked for it (`?thread=`). */
  openThread: { id: string; replies: CommentData[] } | null;
  nextCursor: string | null;
  commentCount: number;
  isSignedIn: boolean;
  loginHref: string;
}) {
  const older = useFetcher<{
    comments: { comments: CommentThreadData[]; nextCursor: string | null };
  }>();
  const [extra, setExtra] = useState<CommentThreadData[]>([]);
  /** Threads opened in place, and how often (each time loads every reply again). */
  const [opened, setOpened] = useState<Record<string, number>>({});
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
  const linkedId = searchParams.get("replyTo");
  const linked = (() => {
    for (const top of shown) {
      if (top.id === linkedId) return { comment: top as CommentData, threadId: top.id };
      const reply = top.replies.find((r) => r.id === linkedId);
      if (reply) return { comment: reply, threadId: top.id };
    }
    return null;
  })();
  const [replyTo, setReplyTo] = useState<ReplyTarget | null>(
    linked
      ? {
          id: linked.comment.id,
          username: linked.comment.author.username,
          threadId: linked.threadId,
        }
      : null,
  );
  const pageCursor = searchParams.get("comments");
  const optimistic = pendingAdd.formData?.get("content");

  return (
    <section id="comments" aria-labelledby="comments-heading" className="scroll-mt-20">
      <h2 id="comments-heading" className="text-lg font-semibold">
        Comments <span className="text-muted-foreground">({commentCount})</span>
      </h2>
      <div className="mt-3">
        {isSignedIn ? (
          <CommentForm
            postId={postId}
            replyTo={replyTo}
            onCancelReply={() => setReplyTo(null)}
            onPosted={(threadId) => {
              if (threadId) setOpened((o) => ({ ...o, [threadId]: (o[threadId] ?? 0) + 1 }));
            }}
          />
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
              threadId={comment.id}
              isSignedIn={isSignedIn}
              onReply={setReplyTo}
            >
              <ThreadReplies
                root={comment}
                postId={postId}
                pageCursor={pageCursor}
                isSignedIn={isSignedIn}
                onReply={setReplyTo}
                loaded={openThread?.id === comment.id ? openThread.replies : null}
                openCount={opened[comment.id] ?? 0}
              />
            </CommentItem>
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
