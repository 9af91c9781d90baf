import { useRef } from "react";
import { data, Link, useNavigation } from "react-router";
import { ButtonLink } from "~/components/ui/button";
import { EmptyState } from "~/components/ui/empty-state";
import { PageHeader } from "~/components/ui/page-header";
import { getViewer, requireUser } from "~/features/auth/guards.server";
import { ListeningNow } from "~/features/journey/components/listening-now";
import { Composer } from "~/features/posts/components/composer";
import { FeedList } from "~/features/posts/components/feed-list";
import { NewPostsNotice, useLiveNewPosts } from "~/features/posts/components/new-posts";
import { PostSkeleton } from "~/features/posts/components/post-skeleton";
import { type FeedTab, listFeed, parseFeedTab } from "~/features/posts/feed.server";
import { parsePostForm } from "~/features/posts/post-form.server";
import { createPost } from "~/features/posts/posts.server";
import { DiscoverPanel } from "~/features/search/components/discover-panel";
import { loadDiscovery } from "~/features/search/discovery.server";
import { isNetworkFailure, keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfter } from "~/lib/revalidation";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/feed";

export const meta: Route.MetaFunction = () => [{ title: "Feed · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const url = new URL(request.url);
  const tab = parseFeedTab(url.searchParams.get("tab"), viewer !== null);
  const cursor = url.searchParams.get("cursor");
  // The "listening now" strip loads itself once the page is up (/api/listening-now): the
  // document stays within its 60 KB budget and one statement for its posts.
  const page = await listFeed({ viewerId: viewer?.id ?? null, tab, cursor });
  // Only an empty home feed pays for who to follow and trending artists, so a normal /feed
  // stays one statement for its posts, plus one for the "listening now" strip (first page).
  const discovery =
    viewer && tab === "following" && !cursor && page.posts.length === 0
      ? await loadDiscovery(viewer.id)
      : null;
  return {
    viewerId: viewer?.id ?? null,
    defaultAudience: viewer?.defaultAudience ?? "everyone",
    tab,
    page,
    isFirstPage: !cursor,
    discovery,
    isComposing: url.searchParams.get("compose") === "1",
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const parsed = await parsePostForm(request);
  if (!parsed.ok) {
    const { form: _form, ...failure } = parsed;
    return data(failure, { status: 400 });
  }
  const clientId = parsed.form.get("clientId");
  // A refusal (an AppError) becomes this action's data at the edge, shown in the composer.
  await createPost({
    viewerId: viewer.id,
    input: parsed.input,
    image: parsed.image,
    clientId: typeof clientId === "string" ? clientId : null,
  });
  return redirectWithToast("/feed", {
    type: "success",
    title: "Shared",
    description: `“${parsed.input.title}” is on your feed.`,
  });
}

/**
 * A post shared while the network is down comes back as a NetworkFailure for the composer to
 * show and send again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return keepOnNetworkFailure(serverAction);
}

// A like or a report changes nothing else on the page; the button already shows it.
export const shouldRevalidate = skipRevalidationAfter("/api/like", "/api/report");

function tabUrl(tab: FeedTab, cursor?: string) {
  const params = new URLSearchParams({ tab });
  if (cursor) params.set("cursor", cursor);
  return `/feed?${params}`;
}

export default function Feed({ loaderData, actionData }: Route.ComponentProps) {
  const { viewerId, tab, page, isFirstPage, discovery, isComposing, defaultAudience } = loaderData;
  const navigation = useNavigation();
  const isSwitching =
    navigation.state === "loading" &&
    navigation.location.pathname === "/feed" &&
    navigation.formMethod === undefined;
  const isSignedIn = viewerId !== null;
  const listTop = useRef<HTMLDivElement>(null);
  const newPosts = useLiveNewPosts({
    tab,
    enabled: isSignedIn && isFirstPage,
    firstPage: page.posts,
    pageUrl: tabUrl(tab),
  });
  const revealNewPosts = () => {
    newPosts.reveal();
    // Bring the top of the list into view (it is where the new posts go), unless it already is.
    const top = listTop.current;
    if (top && top.getBoundingClientRect().top < 0) {
      const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      top.scrollIntoView({ behavior: reduce ? "auto" : "smooth", block: "start" });
    }
  };

  const empty =
    tab === "following" ? (
      <div className="flex flex-col gap-4">
        {discovery?.isNewInstance ? (
          <EmptyState icon="sparkles" title="This Soundtrail is new">
            You're one of the first people here. Share what you're listening to above, and invite
            your friends: what they share shows up here.
          </EmptyState>
        ) : (
          <EmptyState
            icon="radio"
            title="Your feed is quiet"
            action={
              <ButtonLink to={tabUrl("everyone")} variant="secondary">
                See what everyone is sharing
              </ButtonLink>
            }
          >
            Share something above, or follow people to see their music here.
          </EmptyState>
        )}
        {viewerId && discovery ? <DiscoverPanel discovery={discovery} viewerId={viewerId} /> : null}
      </div>
    ) : (
      <EmptyState
        icon="disc-3"
        title="No posts yet"
        action={
          isSignedIn ? null : (
            <ButtonLink to="/auth/signup">Join Soundtrail to share yours</ButtonLink>
          )
        }
      >
        Nobody has shared any music here yet. Posts appear here as soon as they do.
      </EmptyState>
    );

  return (
    <>
      <PageHeader title={isSignedIn ? "Your feed" : "Public feed"}>
        What people on this Soundtrail are listening to, newest first.
      </PageHeader>

      {isSignedIn ? (
        <div className="mb-6">
          <Composer
            action="/feed"
            failure={isNetworkFailure(actionData) ? undefined : actionData}
            values={isNetworkFailure(actionData) ? undefined : actionData?.values}
            networkFailure={isNetworkFailure(actionData) ? actionData : null}
            initiallyExpanded={isComposing}
            expandHref="/feed?compose=1#composer"
            defaultAudience={defaultAudience}
          />
        </div>
      ) : (
        <section
          aria-labelledby="join-heading"
          className="mb-6 flex flex-col items-start gap-3 rounded-xl border border-border bg-accent p-5 text-accent-foreground sm:flex-row sm:items-center"
        >
          <div className="flex-1">
            <h2 id="join-heading" className="font-semibold">
              Share your music journey with friends
            </h2>
            <p className="text-sm">
              Join to post what you're listening to, follow friends and react to their finds.
            </p>
          </div>
          <div className="flex gap-2">
            <ButtonLink to="/auth/signup">Join Soundtrail</ButtonLink>
            <ButtonLink to="/auth/login" variant="secondary">
              Sign in
            </ButtonLink>
          </div>
        </section>
      )}

      {isSignedIn && isFirstPage ? <ListeningNow /> : null}

      {isSignedIn ? (
        <nav aria-label="Feed" className="mb-4 flex gap-1 rounded-lg border border-border p-1">
          {(["following", "everyone"] as const).map((t) => (
            <Link
              key={t}
              to={tabUrl(t)}
              aria-current={tab === t ? "page" : undefined}
              prefetch="intent"
              // /feed is this page's own route: nothing to discover.
              discover="none"
              // .tab-link (app.css): the current tab by aria-current.
              className="tab-link"
            >
              {t === "following" ? "Following" : "Everyone"}
            </Link>
          ))}
        </nav>
      ) : null}

      {!isFirstPage ? (
        <p className="mb-4 text-sm">
          <Link to={tabUrl(tab)} className="font-medium text-primary underline">
            Back to the newest posts
          </Link>
        </p>
      ) : null}

      <div ref={listTop} className="scroll-mt-20" />
      <NewPostsNotice
        count={newPosts.count}
        isLoading={newPosts.isLoading}
        onReveal={revealNewPosts}
      />
      {isSwitching ? (
        <div
          className="flex flex-col gap-4"
          role="status"
          aria-busy="true"
          aria-label="Loading posts"
        >
          <PostSkeleton />
          <PostSkeleton />
          <PostSkeleton />
        </div>
      ) : (
        <FeedList
          leading={newPosts.leading}
          posts={page.posts}
          nextCursor={page.nextCursor}
          viewerId={viewerId}
          pageUrl={(cursor) => tabUrl(tab, cursor)}
          showFollow={tab === "everyone"}
          empty={empty}
          label={tab === "following" ? "Posts from you and people you follow" : "Public posts"}
        />
      )}
    </>
  );
}
