import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { Icon, type IconName } from "~/components/ui/icon";
import { RelativeTime } from "~/components/ui/relative-time";
import { Cover, postCoverOf } from "~/features/artwork";
import { FollowButton } from "~/features/follows";
import { LikeButton } from "~/features/likes";
import { AUDIENCE_LABELS, type Audience, KIND_LABELS, moodOf } from "../constants";
import type { PostCardData } from "../post-cards.server";
import { MusicLink } from "./music-link";
import { NoteText } from "./note-text";
import { PostMenu } from "./post-menu";

export type { PostCardData };

const audienceIcons: Record<Audience, IconName> = {
  everyone: "earth",
  followers: "users",
  only_me: "lock",
};

function subtitle(post: PostCardData): string | null {
  if (post.kind === "track") return [post.artist, post.album].filter(Boolean).join(" · ") || null;
  if (post.kind === "album" || post.kind === "playlist") return post.artist;
  return null;
}

/** One post: who, when, what music (player or card), the note, image, mood, likes and comments. */
export function PostCard({
  post,
  viewerId,
  headingLevel = 2,
  showFollow = false,
  linkToPost = true,
}: {
  post: PostCardData;
  viewerId: string | null;
  headingLevel?: 1 | 2 | 3;
  /** Offer "Follow" for authors the viewer does not follow yet (the "Everyone" tab). */
  showFollow?: boolean;
  linkToPost?: boolean;
}) {
  const mood = moodOf(post.mood);
  const isOwn = post.author.id === viewerId;
  const Heading = `h${headingLevel}` as "h1" | "h2" | "h3";
  const sub = subtitle(post);
  return (
    <article id={`post-${post.id}`} className="post-card">
      <header className="post-head">
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
        <div className="min-w-0 flex-1">
          <p className="post-who">
            <Link to={`/u/${post.author.username}`} prefetch="intent" className="post-author">
              {post.author.displayName}
            </Link>
            <span className="post-handle">{`@${post.author.username}`}</span>
          </p>
          <p className="post-meta">
            <Link
              to={`/post/${post.id}`}
              prefetch="intent"
              discover="none"
              className="hover:underline"
            >
              <RelativeTime iso={post.createdAt} />
            </Link>
            {post.editedAt ? <span>· edited</span> : null}
            <span aria-hidden="true">·</span>
            <span className="post-audience">
              <Icon name={audienceIcons[post.audience]} className="size-3.5" />
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
        <Cover {...postCoverOf(post)} src={post.preview?.art} className="post-cover" />
        <div className="min-w-0">
          <Heading className="post-title">
            {linkToPost ? (
              <Link to={`/post/${post.id}`} prefetch="intent" className="hover:underline">
                {post.title}
              </Link>
            ) : (
              post.title
            )}
          </Heading>
          <p className="text-sm">
            <span className="sr-only">{KIND_LABELS[post.kind]}</span>
            <span aria-hidden="true" className="post-kind">
              {KIND_LABELS[post.kind]}
            </span>
            {sub ? <span>{` · ${sub}`}</span> : null}
          </p>
        </div>
      </div>

      {post.note ? <NoteText text={post.note} className="mt-3" /> : null}

      {post.linkUrl ? (
        <div className="mt-3">
          <MusicLink url={post.linkUrl} title={post.title} preview={post.preview} />
        </div>
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

      <footer className="post-foot">
        <LikeButton
          postId={post.id}
          liked={post.viewerHasLiked}
          likeCount={post.likeCount}
          isSignedIn={viewerId !== null}
        />
        <Link
          to={`/post/${post.id}#comments`}
          discover="none"
          prefetch="intent"
          className="post-action"
          aria-label={`Comments (${post.commentCount})`}
        >
          <Icon name="message-circle" className="size-4" />
          <span aria-hidden="true">{post.commentCount}</span>
        </Link>
        {mood ? (
          <span className="post-mood">
            <span aria-hidden="true">{mood.emoji}</span>
            <span>{`Feeling ${mood.label.toLowerCase()}`}</span>
          </span>
        ) : null}
      </footer>
    </article>
  );
}
