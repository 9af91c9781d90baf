import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";
import { Link, useFetcher, useLocation, useSearchParams } from "react-router";
import { type FetcherOutcome, useFetcherOutcome } from "~/components/hooks/use-fetcher-outcome";
import { useResend } from "~/components/hooks/use-resend";
import { Avatar } from "~/components/ui/avatar";
import { Button, ButtonLink, buttonClasses } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { RelativeTime } from "~/components/ui/relative-time";
import { SendStatus } from "~/components/ui/send-status";
import { COMMENT_MAX_LENGTH, NoteText } from "~/features/posts";
import { ReportForm } from "~/features/reports";
import { clearDraft, draftKey, readDraft, writeDraft } from "~/lib/drafts";
import { isNetworkFailure, type NetworkFailure, newClientId } from "~/lib/resilient-send";
import type { CommentData, CommentThreadData } from "../comments.server";

type CommentOutcome = FetcherOutcome<{ commentId?: string; deleted?: boolean }> | NetworkFailure;

/** What this device keeps of a comment being written (ADR 037). */
interface CommentDraft extends Record<string, unknown> {
  content: string;
  /** The comment's id, chosen here: sending it again never posts it twice. */
  clientId: string;
  replyTo: ReplyTarget | null;
}

function readCommentDraft(postId: string): CommentDraft | null {
  const draft = readDraft<CommentDraft>(draftKey("comment", postId), [
    "content",
    "clientId",
    "replyTo",
  ]);
  if (!draft || typeof draft.content !== "string" || typeof draft.clientId !== "string") {
    return null;
  }
  const r = draft.replyTo as Partial<ReplyTarget> | null | undefined;
  const replyTo =
    r &&
    typeof r.id === "string" &&
    typeof r.username === "string" &&
    typeof r.threadId === "string"
      ? { id: r.id, username: r.username, threadId: r.threadId }
      : null;
  return { content: draft.content, clientId: draft.clientId, replyTo };
}

interface ReplyTarget {
  id: string;
  username: string;
  /** The top-level comment whose thread the reply joins. */
  threadId: string;
}

function CommentForm({
  postId,
  replyTo,
  onReplyTo,
  onCancelReply,
  onPosted,
  onUnsent,
}: {
  postId: string;
  replyTo: ReplyTarget | null;
  /** A draft from before a reload was a reply: answer the same comment again. */
  onReplyTo: (target: ReplyTarget) => void;
  onCancelReply: () => void;
  /**
   * A comment or reply was posted: a reply's thread opens, so it shows however long the thread
   * is, and the new comment takes the focus once it is on the page.
   */
  onPosted: (threadId: string | null, commentId: string | null) => void;
  /** What waits to be sent after a network failure (shown in the list), or null. */
  onUnsent: (content: string | null) => void;
}) {
  const fetcher = useFetcher<CommentOutcome>({ key: `comment-${postId}` });
  const formRef = useRef<HTMLFormElement>(null);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  const key = draftKey("comment", postId);
  // The comment's id, chosen here (its idempotency key, ADR 037); a new one once it is posted.
  const [clientId, setClientId] = useState(newClientId);
  const clientIdRef = useRef(clientId);
  clientIdRef.current = clientId;
  const replyToRef = useRef(replyTo);
  replyToRef.current = replyTo;
  const isRestoring = useRef(false);
  const saveDraft = useCallback(() => {
    const content = textRef.current?.value ?? "";
    if (content.trim()) {
      writeDraft(key, { content, clientId: clientIdRef.current, replyTo: replyToRef.current });
    } else clearDraft(key);
  }, [key]);
  // A draft from before a reload comes back with its id (it may have reached the server).
  useEffect(() => {
    const draft = readCommentDraft(postId);
    if (!draft || !textRef.current) return;
    textRef.current.value = draft.content;
    clientIdRef.current = draft.clientId;
    setClientId(draft.clientId);
    if (draft.replyTo) {
      isRestoring.current = true;
      onReplyTo(draft.replyTo);
    }
  }, [postId, onReplyTo]);
  const failure = isNetworkFailure(fetcher.data) ? fetcher.data : null;
  const resend = useResend(failure, () => formRef.current?.requestSubmit());
  const sentContent = useRef<string | null>(null);
  useEffect(() => {
    onUnsent(failure ? sentContent.current : null);
  }, [failure, onUnsent]);
  useFetcherOutcome(fetcher, "Could not post your comment", (data) => {
    formRef.current?.reset();
    clearDraft(key);
    setClientId(newClientId());
    onPosted(replyTo?.threadId ?? null, data.commentId ?? null);
    onCancelReply();
  });
  // Answering someone starts with their @name, and puts the cursor after it.
  useEffect(() => {
    const text = textRef.current;
    if (!text) return;
    if (replyTo) {
      const mention = `@${replyTo.username} `;
      if (!text.value.startsWith(mention)) text.value = `${mention}${text.value}`;
      // A reply restored from a draft does not pull the focus from wherever it is on load.
      if (!isRestoring.current) {
        text.focus();
        text.setSelectionRange(text.value.length, text.value.length);
      }
      isRestoring.current = false;
    }
    saveDraft();
  }, [replyTo, saveDraft]);
  return (
    <fetcher.Form
      ref={formRef}
      id="add-comment"
      method="post"
      action={`/post/${postId}`}
      className="flex scroll-mt-24 flex-col gap-2"
      onSubmit={() => {
        sentContent.current = textRef.current?.value ?? null;
      }}
    >
      <input type="hidden" name="intent" value="add-comment" />
      <input type="hidden" name="clientId" value={clientId} />
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
        onInput={saveDraft}
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
      <div className="flex flex-wrap items-center justify-end gap-2">
        {failure ? <SendStatus state={resend.state} onRetry={resend.retryNow} /> : null}
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
    // Focusable from script: a comment just posted takes the focus (not the page's <body>).
    <li
      id={`comment-${comment.id}`}
      tabIndex={-1}
      className="flex scroll-mt-24 gap-3 py-3 focus-visible:outline-2 focus-visible:outline-ring"
    >
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
  const [unsent, setUnsent] = useState<string | null>(null);
  const sending = pendingAdd.formData?.get("content");
  const optimistic = typeof sending === "string" ? sending : unsent;
  // A comment just posted takes the focus as soon as it is on the page (a reply arrives with
  // its thread, loaded after the answer), so keyboard users continue from there.
  const sectionRef = useRef<HTMLElement>(null);
  const [focusId, setFocusId] = useState<string | null>(null);
  useEffect(() => {
    const section = sectionRef.current;
    if (!focusId || !section) return;
    const focusIfThere = () => {
      const item = document.getElementById(`comment-${focusId}`);
      if (!item || !section.contains(item)) return false;
      item.focus();
      setFocusId(null);
      return true;
    };
    if (focusIfThere()) return;
    const observer = new MutationObserver(() => {
      if (focusIfThere()) observer.disconnect();
    });
    observer.observe(section, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [focusId]);

  return (
    <section
      ref={sectionRef}
      id="comments"
      aria-labelledby="comments-heading"
      className="scroll-mt-20"
    >
      <h2 id="comments-heading" className="text-lg font-semibold">
        Comments <span className="text-muted-foreground">({commentCount})</span>
      </h2>
      <div className="mt-3">
        {isSignedIn ? (
          <CommentForm
            postId={postId}
            replyTo={replyTo}
            onReplyTo={setReplyTo}
            onCancelReply={() => setReplyTo(null)}
            onUnsent={setUnsent}
            onPosted={(threadId, commentId) => {
              if (threadId) setOpened((o) => ({ ...o, [threadId]: (o[threadId] ?? 0) + 1 }));
              setFocusId(commentId);
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
      {shown.length === 0 && !optimistic ? (
        <p className="mt-4 text-sm text-muted-foreground">No comments yet. Be the first.</p>
      ) : (
        <ul className="mt-2 divide-y divide-border">
          {optimistic?.trim() ? (
            // Told apart by a dashed edge, not by fading (faded text fails contrast, axe).
            <li
              className="my-1 flex gap-3 rounded-lg border border-dashed border-border px-2 py-3"
              aria-live="polite"
            >
              <div className="min-w-0 flex-1">
                <p className="text-sm text-muted-foreground">
                  {typeof sending === "string" ? "Posting your comment…" : "Not sent yet"}
                </p>
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
