import { type ReactNode, useRef } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { type FetcherOutcome, useFetcherOutcome } from "~/components/hooks/use-fetcher-outcome";
import { Avatar } from "~/components/ui/avatar";
import { ButtonLink } from "~/components/ui/button";
import { ConfirmSubmitButton } from "~/components/ui/dialog";
import { EmptyState } from "~/components/ui/empty-state";
import { Icon } from "~/components/ui/icon";
import { Cover } from "~/features/artwork";
import { FollowButton } from "~/features/follows";
import { NowPlaying } from "~/features/journey";
import { FeedList, NoteText } from "~/features/posts";
import type { ProfilePageData } from "../profile-page.server";

function Count({ to, value, label }: { to?: string; value: number; label: string }) {
  const content = (
    <>
      <span className="block text-lg font-bold text-foreground">{value.toLocaleString("en")}</span>
      <span className="text-sm text-muted-foreground">{label}</span>
    </>
  );
  return to ? (
    <Link to={to} prefetch="intent" className="rounded-lg px-3 py-1 text-center hover:bg-muted">
      {content}
    </Link>
  ) : (
    <span className="px-3 py-1 text-center">{content}</span>
  );
}

function BlockMenu({
  userId,
  name,
  hasBlocked,
}: {
  userId: string;
  name: string;
  hasBlocked: boolean;
}) {
  const fetcher = useFetcher<FetcherOutcome<{ blocked: boolean }>>();
  const details = useRef<HTMLDetailsElement>(null);
  const location = useLocation();
  useFetcherOutcome(fetcher, hasBlocked ? "Could not unblock" : "Could not block", () => {
    if (details.current) details.current.open = false;
  });
  return (
    <details ref={details} className="relative">
      <summary className="flex size-10 cursor-pointer list-none items-center justify-center rounded-lg border border-border hover:bg-muted [&::-webkit-details-marker]:hidden">
        <Icon name="ellipsis" className="size-5" />
        <span className="sr-only">More actions for {name}</span>
      </summary>
      <div className="absolute right-0 z-20 mt-1 w-56 rounded-xl border border-border bg-card p-1 shadow-lg">
        <fetcher.Form method="post" action="/api/block">
          <input type="hidden" name="userId" value={userId} />
          <input type="hidden" name="name" value={name} />
          <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
          {hasBlocked ? (
            <button type="submit" name="intent" value="unblock" className={blockItemClass}>
              <Icon name="ban" className="size-4" />
              {`Unblock ${name}`}
            </button>
          ) : (
            <ConfirmSubmitButton
              name="intent"
              value="block"
              className={blockItemClass}
              title={`Block ${name}?`}
              description="You will stop following each other, and neither of you will see the other's posts."
              confirmLabel="Block"
            >
              <Icon name="ban" className="size-4" />
              {`Block ${name}`}
            </ConfirmSubmitButton>
          )}
        </fetcher.Form>
      </div>
    </details>
  );
}

const blockItemClass =
  "flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm text-danger hover:bg-muted";

/** Names the person chose to show (plain text, never links or HTML). */
function Favourites({ title, names }: { title: string; names: string[] }) {
  if (names.length === 0) return null;
  return (
    <div className="mt-4">
      <h2 className="text-sm font-semibold">{title}</h2>
      <ul aria-label={title} className="mt-2 flex flex-wrap gap-2">
        {names.map((name) => (
          <li key={name} className="rounded-full border border-border px-3 py-1 text-sm break-all">
            {name}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A profile: who they are, counts, relationship, top artists and the posts the viewer may see. */
export function ProfileView({
  data,
  viewerId,
  basePath,
  journey,
}: {
  data: ProfilePageData;
  viewerId: string | null;
  /** `/profile` or `/u/name`: where "Load more" pages live. */
  basePath: string;
  /** The Journey section (listening history), shown between the header and the posts. */
  journey?: ReactNode;
}) {
  const { profile, topArtists, page } = data;
  const people = `/u/${profile.username}`;
  const isFriend = profile.isFollowed && profile.followsViewer;
  return (
    <div className="flex flex-col gap-6">
      <header className="rounded-xl border border-border bg-card p-5 shadow-sm">
        <div className="flex flex-wrap items-start gap-4">
          <Avatar
            name={profile.displayName}
            username={profile.username}
            src={profile.avatarUrl}
            size="lg"
          />
          {/* At least 12rem: on a phone the buttons go below instead of squeezing the name. */}
          <div className="min-w-48 flex-1">
            <h1 className="text-2xl font-bold break-words">{profile.displayName}</h1>
            <p className="text-muted-foreground">
              @{profile.username}
              {isFriend ? (
                <span className="ml-2 rounded-full bg-accent px-2 py-0.5 text-xs font-medium text-accent-foreground">
                  Friends
                </span>
              ) : profile.followsViewer ? (
                <span className="ml-2 rounded-full border border-border px-2 py-0.5 text-xs">
                  Follows you
                </span>
              ) : null}
            </p>
            {profile.bio ? <NoteText text={profile.bio} className="mt-2" /> : null}
          </div>
          {profile.isSelf ? (
            <ButtonLink to="/settings/profile" variant="secondary">
              <Icon name="pencil" className="size-4" />
              Edit profile
            </ButtonLink>
          ) : (
            <div className="flex items-center gap-2">
              {profile.hasBlocked || profile.isBlockedBy ? null : (
                <FollowButton
                  userId={profile.id}
                  name={profile.displayName}
                  isFollowed={profile.isFollowed}
                  isRequested={profile.isRequested}
                  requiresApproval={profile.requiresApproval}
                  isSignedIn={viewerId !== null}
                  size="md"
                />
              )}
              {viewerId ? (
                <BlockMenu
                  userId={profile.id}
                  name={profile.displayName}
                  hasBlocked={profile.hasBlocked}
                />
              ) : null}
            </div>
          )}
        </div>
        <nav aria-label={`${profile.displayName} in numbers`} className="mt-4 flex flex-wrap gap-1">
          <Count value={profile.postCount} label={profile.postCount === 1 ? "post" : "posts"} />
          <Count to={`${people}/followers`} value={profile.followerCount} label="followers" />
          <Count to={`${people}/following`} value={profile.followingCount} label="following" />
          <Count to={`${people}/friends`} value={profile.friendCount} label="friends" />
        </nav>
        <NowPlaying track={data.nowPlaying} />
        <Favourites title="Favourite artists" names={profile.favouriteArtists} />
        <Favourites title="Favourite genres" names={profile.favouriteGenres} />
        {topArtists.length > 0 ? (
          <div className="mt-4">
            <h2 className="text-sm font-semibold">Top artists</h2>
            <ul className="mt-2 flex flex-wrap gap-2">
              {topArtists.map((artist) => (
                <li
                  key={artist.name}
                  className="flex items-center gap-2 rounded-full bg-accent py-1 pr-3 pl-1 text-sm text-accent-foreground"
                >
                  <Cover artist={artist.name} size={24} className="size-6 rounded-full" />
                  {artist.name}{" "}
                  <span className="text-xs opacity-80">
                    ({artist.postCount} {artist.postCount === 1 ? "post" : "posts"})
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {profile.hasBlocked ? (
          <p role="status" className="mt-4 rounded-lg border border-border bg-muted p-3 text-sm">
            You blocked {profile.displayName}. Neither of you sees the other's posts.
          </p>
        ) : null}
      </header>

      {journey}

      <section aria-labelledby="profile-posts-heading">
        <h2 id="profile-posts-heading" className="mb-3 text-lg font-semibold">
          {profile.isSelf ? "Your posts" : "Posts"}
        </h2>
        <FeedList
          posts={page.posts}
          nextCursor={page.nextCursor}
          viewerId={viewerId}
          pageUrl={(cursor) => `${basePath}?cursor=${encodeURIComponent(cursor)}`}
          label={`Posts by ${profile.displayName}`}
          empty={
            <EmptyState icon="user-round" title="No posts yet">
              {profile.isSelf
                ? "The music you share will be collected here."
                : `Nothing from ${profile.displayName} that you can see yet.`}
            </EmptyState>
          }
        />
      </section>
    </div>
  );
}
