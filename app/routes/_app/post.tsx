import { data, Link } from "react-router";
import { z } from "zod";
import { Avatar } from "~/components/ui/avatar";
import { Icon } from "~/components/ui/icon";
import { AppError } from "~/core/errors";
import { postOpenGraphArtUrl } from "~/features/artwork/cover";
import { getViewer, requireUser } from "~/features/auth/guards.server";
import {
  addComment,
  deleteComment,
  editComment,
  listComments,
  listThread,
} from "~/features/comments/comments.server";
import { CommentsSection } from "~/features/comments/components/comments-section";
import { listLikers } from "~/features/likes/likes.server";
import { PostCard } from "~/features/posts/components/post-card";
import { KIND_LABELS } from "~/features/posts/constants";
import { deletePost, getPost } from "~/features/posts/posts.server";
import { commentInputSchema } from "~/features/posts/schemas";
import { ReportForm } from "~/features/reports/components/report-form";
import { respond } from "~/lib/action-response.server";
import { getEnv } from "~/lib/env.server";
import { loginUrlFor } from "~/lib/redirects";
import { keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfter } from "~/lib/revalidation";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/post";

function notFound(request: Request): never {
  throw data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 });
}

/**
 * `/post/:id` accepts any string (spec §2). Unknown, malformed and hidden ids alike are the
 * 404 page, so the answer never reveals that a hidden post exists.
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const viewerId = viewer?.id ?? null;
  const post = await getPost({ viewerId, postId: params.id });
  if (!post) notFound(request);
  const url = new URL(request.url);
  // `?thread=<comment id>`: every reply of that thread ("Show n more replies").
  const threadId = url.searchParams.get("thread");
  const [comments, likers, threadReplies] = await Promise.all([
    listComments({ viewerId, postId: post.id, cursor: url.searchParams.get("comments") }),
    listLikers({ viewerId, postId: post.id, limit: 12 }),
    threadId ? listThread({ viewerId, postId: post.id, threadId }) : null,
  ]);
  const base = getEnv().BASE_URL.replace(/\/$/, "");
  return {
    post,
    comments,
    thread: threadId && threadReplies ? { id: threadId, replies: threadReplies } : null,
    likers,
    viewerId,
    showReport: url.searchParams.get("report") === "1" && viewerId !== null,
    canonicalUrl: `${base}/post/${post.id}`,
    imageUrl: post.image ? `${base}/media/${post.image.id}` : null,
    // The music's artwork for previews: the link's own, else the generated cover (as PNG).
    artUrl: postOpenGraphArtUrl(post, post.preview?.art, base),
    loginHref: loginUrlFor(`/post/${post.id}`),
  };
}

export const meta: Route.MetaFunction = ({ data: loaderData }) => {
  if (!loaderData) return [{ title: "Post not found · Soundtrail" }];
  const { post, canonicalUrl, imageUrl, artUrl } = loaderData;
  const byline = post.artist && post.kind !== "artist" ? ` by ${post.artist}` : "";
  const title = `${post.title}${byline} · shared by ${post.author.displayName}`;
  const description =
    post.note.slice(0, 200) ||
    `${KIND_LABELS[post.kind]} shared by ${post.author.displayName} (@${post.author.username}) on Soundtrail.`;
  if (post.audience !== "everyone") {
    // Not public: no previews, no indexing.
    return [{ title: `${title} · Soundtrail` }, { name: "robots", content: "noindex" }];
  }
  return [
    { title: `${title} · Soundtrail` },
    { tagName: "link", rel: "canonical", href: canonicalUrl },
    { property: "og:type", content: post.kind === "track" ? "music.song" : "article" },
    { property: "og:site_name", content: "Soundtrail" },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: canonicalUrl },
    { property: "og:image", content: imageUrl ?? artUrl },
    {
      property: "og:image:alt",
      content: imageUrl ? `Shared with “${post.title}”` : `Artwork of “${post.title}”`,
    },
    { name: "twitter:card", content: imageUrl ? "summary_large_image" : "summary" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
    { name: "twitter:image", content: imageUrl ?? artUrl },
  ];
};

const commentIdSchema = z.object({ commentId: z.string().max(100) });

export async function action({ params, request, context }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const form = await request.formData();
  const intent = form.get("intent");
  const back = `/post/${params.id}#comments`;

  if (intent === "delete-post") {
    try {
      await deletePost({ viewerId: viewer.id, postId: params.id });
    } catch (error) {
      if (error instanceof AppError) {
        return redirectWithToast(`/post/${params.id}`, {
          type: "error",
          title: "Could not delete the post",
          description: error.message,
        });
      }
      throw error;
    }
    return redirectWithToast("/feed", { type: "success", title: "Post deleted" });
  }

  if (intent === "add-comment" || intent === "edit-comment") {
    return respond({
      request,
      form,
      fallback: back,
      failureTitle:
        intent === "add-comment" ? "Could not post your comment" : "Could not edit the comment",
      success: () => ({
        type: "success",
        title: intent === "add-comment" ? "Comment posted" : "Comment saved",
      }),
      run: async () => {
        const parsed = commentInputSchema.safeParse({ content: form.get("content") ?? "" });
        if (!parsed.success) {
          throw new AppError(
            "invalid",
            parsed.error.issues[0]?.message ?? "Write something first.",
          );
        }
        if (intent === "add-comment") {
          const replyTo = form.get("replyToId");
          const clientId = form.get("clientId");
          const { id } = await addComment({
            clientId: typeof clientId === "string" && clientId ? clientId.slice(0, 100) : null,
            viewerId: viewer.id,
            postId: params.id,
            content: parsed.data.content,
            replyToId: typeof replyTo === "string" && replyTo ? replyTo.slice(0, 100) : null,
          });
          return { commentId: id };
        }
        const target = commentIdSchema.safeParse({ commentId: form.get("commentId") });
        if (!target.success) throw new AppError("invalid", "Say which comment to edit.");
        await editComment({
          viewerId: viewer.id,
          commentId: target.data.commentId,
          content: parsed.data.content,
        });
        return { commentId: target.data.commentId };
      },
    });
  }

  if (intent === "delete-comment") {
    return respond({
      request,
      form,
      fallback: back,
      failureTitle: "Could not delete the comment",
      success: () => ({ type: "success", title: "Comment deleted" }),
      run: async () => {
        const target = commentIdSchema.safeParse({ commentId: form.get("commentId") });
        if (!target.success) throw new AppError("invalid", "Say which comment to delete.");
        await deleteComment({ viewerId: viewer.id, commentId: target.data.commentId });
        return { deleted: true };
      },
    });
  }

  throw data("Unknown action", { status: 400 });
}

/**
 * A comment sent while the network is down comes back as a NetworkFailure for the form to show
 * and send again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return keepOnNetworkFailure(serverAction);
}

export const shouldRevalidate = skipRevalidationAfter("/api/report");

export default function Post({ loaderData }: Route.ComponentProps) {
  const { post, comments, likers, viewerId, showReport, loginHref } = loaderData;
  return (
    <div className="flex flex-col gap-6">
      <p>
        <Link
          to="/feed"
          className="inline-flex items-center gap-1 text-sm font-medium text-muted-foreground hover:text-foreground"
        >
          <Icon name="arrow-left" className="size-4" />
          Back to the feed
        </Link>
      </p>
      <PostCard post={post} viewerId={viewerId} headingLevel={1} linkToPost={false} />

      {showReport && post.author.id !== viewerId ? (
        <section
          id="report"
          aria-label="Report this post"
          className="rounded-xl border border-border p-3"
        >
          <ReportForm target={{ postId: post.id }} />
        </section>
      ) : null}

      {likers.length > 0 ? (
        <section aria-labelledby="likers-heading">
          <h2 id="likers-heading" className="flex items-center gap-2 text-lg font-semibold">
            <Icon name="heart" className="size-5 text-danger" />
            Liked by
          </h2>
          <ul className="mt-2 flex flex-wrap gap-2">
            {likers.map((liker) => (
              <li key={liker.id}>
                <Link
                  to={`/u/${liker.username}`}
                  className="inline-flex items-center gap-2 rounded-full border border-border py-1 pr-3 pl-1 text-sm hover:bg-muted"
                >
                  <Avatar
                    name={liker.displayName}
                    username={liker.username}
                    src={liker.avatarUrl}
                    size="sm"
                  />
                  {liker.displayName}
                </Link>
              </li>
            ))}
          </ul>
          {post.likeCount > likers.length ? (
            <p className="mt-1 text-sm text-muted-foreground">
              and {post.likeCount - likers.length} more
            </p>
          ) : null}
        </section>
      ) : null}

      <CommentsSection
        postId={post.id}
        comments={comments.comments}
        openThread={loaderData.thread}
        nextCursor={comments.nextCursor}
        commentCount={post.commentCount}
        isSignedIn={viewerId !== null}
        loginHref={loginHref}
      />
    </div>
  );
}
