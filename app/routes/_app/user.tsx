import { data } from "react-router";
import { getViewer } from "~/features/auth/guards.server";
import { JourneySummarySection } from "~/features/journey/components/journey-summary";
import { RecentListensSection } from "~/features/journey/components/recent-listens";
import { loadJourneySummary, ownerOf } from "~/features/journey/journey-page.server";
import { listLovedTracks, listRecentListens } from "~/features/journey/listenbrainz/recent.server";
import { ProfileView } from "~/features/people/components/profile-view";
import { loadProfilePage } from "~/features/people/profile-page.server";
import { useLiveRevalidation } from "~/features/realtime";
import { getEnv } from "~/lib/env.server";
import { skipRevalidationAfter } from "~/lib/revalidation";
import type { Route } from "./+types/user";

export const meta: Route.MetaFunction = ({ data: loaderData }) => {
  if (!loaderData) return [{ title: "Profile not found · Soundtrail" }];
  const { profile, canonicalUrl } = loaderData;
  const title = `${profile.displayName} (@${profile.username}) · Soundtrail`;
  const description =
    profile.bio.slice(0, 200) || `${profile.displayName} shares their music journey on Soundtrail.`;
  return [
    { title },
    { tagName: "link", rel: "canonical", href: canonicalUrl },
    { property: "og:type", content: "profile" },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: canonicalUrl },
  ];
};

/** `/u/:username`: anybody's profile, showing only what the viewer may see. */
export async function loader({ params, context, request }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const cursor = new URL(request.url).searchParams.get("cursor");
  const page = await loadProfilePage({
    viewerId: viewer?.id ?? null,
    username: params.username,
    cursor,
  });
  if (!page) throw data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 });
  const base = getEnv().BASE_URL.replace(/\/$/, "");
  const [journey, recentListens, lovedTracks] = await Promise.all([
    loadJourneySummary({ viewerId: viewer?.id ?? null, owner: ownerOf(page.profile) }),
    listRecentListens({
      viewerId: viewer?.id ?? null,
      ownerId: page.profile.id,
      cursor: new URL(request.url).searchParams.get("listens"),
    }),
    listLovedTracks({ viewerId: viewer?.id ?? null, ownerId: page.profile.id }),
  ]);
  return {
    ...page,
    journey,
    recentListens,
    lovedTracks,
    viewerId: viewer?.id ?? null,
    canonicalUrl: `${base}/u/${page.profile.username}`,
  };
}

export const shouldRevalidate = skipRevalidationAfter("/api/like", "/api/report");

export default function UserProfile({ loaderData }: Route.ComponentProps) {
  // What this person's players send shows as it arrives, for readers their journey lets in
  // (the server tells only them).
  useLiveRevalidation(
    (event) => event.type === "listens" && event.data.userId === loaderData.profile.id,
  );
  return (
    <ProfileView
      data={loaderData}
      viewerId={loaderData.viewerId}
      basePath={`/u/${loaderData.profile.username}`}
      journey={
        <>
          <RecentListensSection
            listens={loaderData.recentListens}
            loved={loaderData.lovedTracks}
            ownerId={loaderData.profile.id}
            isSignedIn={loaderData.viewerId !== null}
            basePath={`/u/${loaderData.profile.username}`}
          />
          <JourneySummarySection
            summary={loaderData.journey}
            isSignedIn={loaderData.viewerId !== null}
          />
        </>
      }
    />
  );
}
