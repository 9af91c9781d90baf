import { Disc3, Globe2, ListMusic, Lock, Mic2, Music2, Users } from "lucide-react";
import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { RelativeTime } from "~/components/ui/relative-time";
import { AUDIENCE_LABELS, KIND_LABELS, type PostKind } from "~/features/posts/constants";
import { excerpt } from "../highlight";
import { searchHref } from "../query";
import type { PostResult } from "../search.server";
import { Highlighted } from "./highlighted";

const kindIcons: Record<PostKind, typeof Music2> = {
  track: Music2,
  album: Disc3,
  artist: Mic2,
  playlist: ListMusic,
};

const audienceIcons = { everyone: Globe2, followers: Users, only_me: Lock } as const;

/** A post as a search result: who, what music, the note around the match, its tags. */
export function PostResultCard({ post, terms }: { post: PostResult; terms: readonly string[] }) {
  const KindIcon = kindIcons[post.kind];
  const AudienceIcon = audienceIcons[post.audience];
  const about = [post.artist, post.album].filter(
    (v): v is string => Boolean(v) && v !== post.title,
  );
  return (
    <article
      aria-labelledby={`result-${post.id}`}
      className="relative rounded-xl border border-border bg-card p-4 shadow-sm transition-colors focus-within:ring-2 focus-within:ring-ring hover:bg-muted/40"
    >
      <p className="mb-2 flex items-center gap-2 text-sm text-muted-foreground">
        <Avatar
          name={post.author.displayName}
          username={post.author.username}
          src={post.author.avatarUrl}
          size="sm"
        />
        <span className="truncate font-medium text-foreground">{post.author.displayName}</span>
        <span className="truncate">@{post.author.username}</span>
        <span aria-hidden="true">·</span>
        <RelativeTime iso={post.createdAt} className="shrink-0" />
        <AudienceIcon
          aria-label={`Visible to: ${AUDIENCE_LABELS[post.audience]}`}
          role="img"
          className="ml-auto size-4 shrink-0"
        />
      </p>
      <h3 id={`result-${post.id}`} className="flex items-start gap-2 font-semibold">
        <KindIcon aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-primary" />
        <Link
          to={`/post/${post.id}`}
          prefetch="intent"
          className="after:absolute after:inset-0 after:rounded-xl focus-visible:outline-none"
        >
          <span className="sr-only">{KIND_LABELS[post.kind]}: </span>
          <Highlighted text={post.title} terms={terms} />
        </Link>
      </h3>
      {about.length > 0 ? (
        <p className="ml-6 text-sm text-muted-foreground">
          <Highlighted text={about.join(" · ")} terms={terms} />
        </p>
      ) : null}
      {post.note ? (
        <p className="mt-2 break-words text-sm">
          <Highlighted text={excerpt(post.note, terms)} terms={terms} />
        </p>
      ) : null}
      {post.tags.length > 0 ? (
        <ul aria-label="Tags" className="relative mt-2 flex flex-wrap gap-1.5">
          {post.tags.map((tag) => (
            <li key={tag}>
              <Link
                to={searchHref({ q: `#${tag}`, type: "tags" })}
                className="rounded-full bg-accent px-2 py-0.5 text-xs font-medium text-accent-foreground hover:underline"
              >
                #{tag}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}
