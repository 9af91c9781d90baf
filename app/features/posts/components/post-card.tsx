import { memo } from "react";
import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { RelativeTime } from "~/components/ui/relative-time";
import { postArtUrl } from "~/features/artwork";
import { FollowButton } from "~/features/follows";
import { LikeButton } from "~/features/likes";
import { AUDIENCE_LABELS, KIND_LABELS, moodOf } from "../constants";
import type { PostCardData } from "../post-cards.server";
import { MusicLink } from "./music-link";
import { NoteText } from "./note-text";
import { PostMenu } from "./post-menu";
import { useLiveCounts } from "./use-live-counts";

export type { PostCardData };

function subtitle(post: PostCardData): string | null {
  if (post.kind === "track") return [post.artist, post.album].filter(Boolean).join(" · ") || null;
  if (post.kind === "album" || post.kind === "playlist") return post.artist;
  return null;
}

/**
 * One post: who, when, what music (player or card), the note, image, mood, likes and comments.
 * Memoised: a page re-renders after hydration (live connection state, route discovery) and a
 * feed has 20 cards whose props have not changed.
 */
export const PostCard = memo(function PostCard({
  post,
  viewerId,
  headingLevel = 2,
  showFollow = false,
  linkToPost = true,
  discover = true,
}: {
  post: PostCardData;
  viewerId: string | null;
  headingLevel?: 1 | 2 | 3;
  /** Offer "Follow" for authors the viewer does not follow yet (the "Everyone" tab). */
  showFollow?: boolean;
  linkToPost?: boolean;
  /**
   * Let React Router discover the routes of this card's links (`data-discover`). A list needs
   * it on one card only: every card links to the same routes, and the attribute costs bytes.
   */
  discover?: boolean;
}) {
  const discoverLinks = discover ? "render" : "none";
  const mood = moodOf(post.mood);
  const isOwn = post.author.id === viewerId;
  const Heading = `h${headingLevel}` as "h1" | "h2" | "h3";
  const sub = subtitle(post);
  const counts = useLiveCounts(post.id, {
    likeCount: post.likeCount,
    commentCount: post.commentCount,
    liked: post.viewerHasLiked,
  });
  return (
    <article id={`post-${post.id}`} className="post-card">
      {/* .post-card > header, > footer, .post-who > a / span: app.css */}
      <header>
        {/* discover="none" on links that repeat another link's route: one is enough for React
            Router to discover it, and the attribute costs bytes on every card. */}
        <Link
          to={`/u/${post.author.username}`}
          prefetch="intent"
          discover="none"
          tabIndex={-1}
          aria-hidden="true"
        >
          <Avatar
            name={post.author.displayName}
            username={post.author.username}
            src={post.author.avatarUrl}
          />
        </Link>
        {/* .post-head > div: min-w-0 flex-1 (app.css) */}
        <div>
          {/* who, then when: .post-card > header > div > p (app.css) */}
          <p>
            <Link to={`/u/${post.author.username}`} prefetch="intent" discover={discoverLinks}>
              {post.author.displayName}
            </Link>
            <span>{`@${post.author.username}`}</span>
          </p>
          <p>
            <Link to={`/post/${post.id}`} prefetch="intent" discover="none">
              <RelativeTime iso={post.createdAt} />
            </Link>
            {post.editedAt ? <span>· edited</span> : null}
            {/* The "·" before it and its icon (by data-audience) are drawn by .post-audience's
                pseudo-elements (app.css). */}
            <span className="post-audience" data-audience={post.audience}>
              {AUDIENCE_LABELS[post.audience]}
            </span>
          </p>
        </div>
        {showFollow && viewerId && !isOwn && !post.viewerFollowsAuthor ? (
          <FollowButton
            userId={post.author.id}
            name={post.author.displayName}
            isFollowed={false}
            isSignedIn
          />
        ) : null}
        <PostMenu
          postId={post.id}
          title={post.title}
          isOwn={isOwn}
          isSignedIn={viewerId !== null}
        />
      </header>

      <div className="post-music">
        {/* Sized by .post-music > img (app.css), so no width and height attributes. */}
        <img src={postArtUrl(post, post.preview?.art)} alt="" loading="lazy" />
        <div>
          {/* .post-music > img, > div > :first-child, p > [aria-hidden] (app.css) */}
          <Heading>
            {linkToPost ? (
              <Link to={`/post/${post.id}`} prefetch="intent" discover={discoverLinks}>
                {post.title}
              </Link>
            ) : (
              post.title
            )}
          </Heading>
          <p>
            <span className="sr-only">{KIND_LABELS[post.kind]}</span>
            <span aria-hidden="true">{KIND_LABELS[post.kind]}</span>
            {sub ? ` · ${sub}` : null}
          </p>
        </div>
      </div>

      {post.note ? <NoteText text={post.note} discover={discover} /> : null}

      {post.linkUrl ? (
        <MusicLink
          url={post.linkUrl}
          title={post.title}
          preview={post.preview}
          className="post-link"
        />
      ) : null}

      {post.image ? (
        <img
          src={`/media/${post.image.id}`}
          alt={`Shared with “${post.title}” by ${post.author.displayName}`}
          width={post.image.width}
          height={post.image.height}
          loading="lazy"
          decoding="async"
          className="mt-3 block h-auto max-h-[32rem] w-auto max-w-full rounded-lg border border-border bg-muted object-contain"
        />
      ) : null}

      <footer>
        <LikeButton
          postId={post.id}
          liked={counts.liked}
          likeCount={counts.likeCount}
          isSignedIn={viewerId !== null}
        />
        <Link to={`/post/${post.id}#comments`} discover="none" prefetch="intent">
          {/* Its icon is CSS (.post-card > footer > a::before). The name is the content, the
              visible count inside hidden words (axe label-content-name-mismatch). */}
          {counts.commentCount}
          <span className="sr-only">{counts.commentCount === 1 ? " comment" : " comments"}</span>
        </Link>
        {mood ? (
          <span>
            <span aria-hidden="true">{mood.emoji}</span>
            {`Feeling ${mood.label.toLowerCase()}`}
          </span>
        ) : null}
      </footer>
    </article>
  );
});
