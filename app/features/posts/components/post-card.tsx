import { Disc3, Globe2, ListMusic, Lock, MessageCircle, Mic2, Music2, Users } from "lucide-react";
import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { RelativeTime } from "~/components/ui/relative-time";
import { FollowButton } from "~/features/follows/components/follow-button";
import { LikeButton } from "~/features/likes/components/like-button";
import { cn } from "~/lib/utils";
import { AUDIENCE_LABELS, type Audience, KIND_LABELS, moodOf, type PostKind } from "../constants";
import type { PostCardData } from "../post-cards.server";
import { MusicLink } from "./music-link";
import { NoteText } from "./note-text";
import { PostMenu } from "./post-menu";

export type { PostCardData };

const kindIcons: Record<PostKind, typeof Music2> = {
  track: Music2,
  album: Disc3,
  artist: Mic2,
  playlist: ListMusic,
};

const audienceIcons: Record<Audience, typeof Globe2> = {
  everyone: Globe2,
  followers: Users,
  only_me: Lock,
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
  const KindIcon = kindIcons[post.kind];
  const AudienceIcon = audienceIcons[post.audience];
  const mood = moodOf(post.mood);
  const isOwn = post.author.id === viewerId;
  const Heading = `h${headingLevel}` as "h1" | "h2" | "h3";
  const sub = subtitle(post);
  return (
    <article
      id={`post-${post.id}`}
      aria-labelledby={`post-title-${post.id}`}
      className="scroll-mt-20 rounded-xl border border-border bg-card p-4 shadow-sm sm:p-5"
    >
      <header className="flex items-start gap-3">
        <Link to={`/u/${post.author.username}`} prefetch="intent" tabIndex={-1} aria-hidden="true">
          <Avatar
            name={post.author.displayName}
            username={post.author.username}
            src={post.author.avatarUrl}
          />
        </Link>
        <div className="min-w-0 flex-1">
          <p className="flex flex-wrap items-baseline gap-x-1.5">
            <Link
              to={`/u/${post.author.username}`}
              prefetch="intent"
              className="truncate font-semibold hover:underline"
            >
              {post.author.displayName}
            </Link>
            <span className="truncate text-sm text-muted-foreground">@{post.author.username}</span>
          </p>
          <p className="flex flex-wrap items-center gap-x-1.5 text-xs text-muted-foreground">
            <Link to={`/post/${post.id}`} prefetch="intent" className="hover:underline">
              <RelativeTime iso={post.createdAt} />
            </Link>
            {post.editedAt ? <span>· edited</span> : null}
            <span aria-hidden="true">·</span>
            <span className="inline-flex items-center gap-1">
              <AudienceIcon aria-hidden="true" className="size-3.5" />
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

      <div className="mt-3 flex items-start gap-3 rounded-lg bg-accent/60 px-3 py-2.5 text-accent-foreground">
        <KindIcon aria-hidden="true" className="mt-0.5 size-5 shrink-0" />
        <div className="min-w-0">
          <Heading id={`post-title-${post.id}`} className="font-semibold leading-snug">
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
            <span aria-hidden="true" className="font-medium uppercase tracking-wide text-xs">
              {KIND_LABELS[post.kind]}
            </span>
            {sub ? <span> · {sub}</span> : null}
          </p>
        </div>
      </div>

      {post.note ? <NoteText text={post.note} className="mt-3" /> : null}

      {post.linkUrl ? (
        <div className="mt-3">
          <MusicLink url={post.linkUrl} title={post.title} />
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
          className="mt-3 h-auto max-h-[32rem] w-full rounded-lg border border-border bg-muted object-contain"
        />
      ) : null}

      <footer className="mt-3 flex flex-wrap items-center gap-1">
        <LikeButton
          postId={post.id}
          liked={post.viewerHasLiked}
          likeCount={post.likeCount}
          isSignedIn={viewerId !== null}
        />
        <Link
          to={`/post/${post.id}#comments`}
          prefetch="intent"
          className="inline-flex h-9 items-center gap-1.5 rounded-lg px-2.5 text-sm font-medium text-muted-foreground hover:bg-muted hover:text-foreground"
          aria-label={`Comments (${post.commentCount})`}
        >
          <MessageCircle aria-hidden="true" className="size-4" />
          <span aria-hidden="true">{post.commentCount}</span>
        </Link>
        {mood ? (
          <span
            className={cn(
              "ml-auto inline-flex items-center gap-1 rounded-full border border-border px-2.5 py-1 text-xs font-medium",
            )}
          >
            <span aria-hidden="true">{mood.emoji}</span>
            <span>Feeling {mood.label.toLowerCase()}</span>
          </span>
        ) : null}
      </footer>
    </article>
  );
}
