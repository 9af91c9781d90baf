import { Avatar } from "~/components/ui/avatar";
import { type SharePreview, sharePreviewTitle } from "../share-preview";

/**
 * What a shared link points at, shown above the sign-in form: "Ana shared Sour Times — sign in
 * or join to see it". Plain text only; the post itself opens after signing in.
 */
export function SharePreviewCard({ preview }: { preview: SharePreview }) {
  const person =
    preview.kind === "post"
      ? preview.author
      : {
          displayName: preview.displayName,
          username: preview.username,
          avatarUrl: preview.avatarUrl,
        };
  return (
    <section
      aria-label="Shared with you"
      className="mb-6 rounded-xl border border-border bg-muted/40 p-4"
    >
      <div className="flex items-start gap-3">
        <Avatar name={person.displayName} username={person.username} src={person.avatarUrl} />
        <div className="min-w-0 flex-1">
          {preview.kind === "post" ? (
            <p className="font-medium">
              {preview.author.displayName} shared <cite className="italic">{preview.title}</cite>
              {preview.artist ? <> by {preview.artist}</> : null}
            </p>
          ) : (
            <p className="font-medium">{sharePreviewTitle(preview)}</p>
          )}
          <p className="text-sm text-muted-foreground">
            {preview.kind === "post"
              ? `${preview.kindLabel} · @${preview.author.username}`
              : `${preview.postCount} public ${preview.postCount === 1 ? "post" : "posts"} · ${preview.followerCount} ${preview.followerCount === 1 ? "follower" : "followers"}`}
          </p>
          {preview.kind === "post" && preview.note ? (
            <p className="mt-2 line-clamp-3 break-words text-sm">{preview.note}</p>
          ) : null}
          {preview.kind === "profile" && preview.bio ? (
            <p className="mt-2 line-clamp-3 break-words text-sm">{preview.bio}</p>
          ) : null}
        </div>
        {preview.kind === "post" ? (
          <img
            src={preview.imageUrl ?? preview.art}
            alt=""
            width={64}
            height={64}
            className="size-16 shrink-0 rounded-lg object-cover"
          />
        ) : null}
      </div>
      <p className="mt-3 text-sm font-medium text-foreground">
        Sign in or join to see {preview.kind === "post" ? "it" : "their music journey"}.
      </p>
    </section>
  );
}
