import { Link } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { Icon, type IconName } from "~/components/ui/icon";
import { RelativeTime } from "~/components/ui/relative-time";
import { AUDIENCE_LABELS, type Audience, KIND_LABELS, type PostKind } from "~/features/posts";
import { excerpt } from "../highlight";
import { searchHref } from "../query";
import type { PostResult } from "../search.server";
import { Highlighted } from "./highlighted";

const kindIcons: Record<PostKind, IconName> = {
  track: "eighth-note",
  album: "disc-3",
  artist: "mic-vocal",
  playlist: "list-music",
  recap: "chart-column",
};

const audienceIcons: Record<Audience, IconName> = {
  everyone: "earth",
  followers: "users",
  only_me: "lock",
};

/** A post as a search result: who, what music, the note around the match, its tags. */
export function PostResultCard({ post, terms }: { post: PostResult; terms: readonly string[] }) {
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
        <span className="ml-auto shrink-0" title={`Visible to: ${AUDIENCE_LABELS[post.audience]}`}>
          <Icon name={audienceIcons[post.audience]} className="size-4" />
          <span className="sr-only">Visible to: {AUDIENCE_LABELS[post.audience]}</span>
        </span>
      </p>
      <h3 id={`result-${post.id}`} className="flex items-start gap-2 font-semibold">
        <Icon name={kindIcons[post.kind]} className="mt-0.5 size-4 shrink-0 text-primary" />
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
