import { data } from "react-router";
import { requireUser } from "~/features/auth/guards.server";
import { JourneySummarySection } from "~/features/journey/components/journey-summary";
import { RecentListensSection } from "~/features/journey/components/recent-listens";
import { loadJourneySummary, ownerOf } from "~/features/journey/journey-page.server";
import { listLovedTracks, listRecentListens } from "~/features/journey/listenbrainz/recent.server";
import { ProfileView } from "~/features/people/components/profile-view";
import { loadProfilePage } from "~/features/people/profile-page.server";
import { useLiveRevalidation } from "~/features/realtime";
import { skipRevalidationAfter } from "~/lib/revalidation";
import type { Route } from "./+types/profile";

export const meta: Route.MetaFunction = ({ data: loaderData }) => [
  { title: loaderData ? `${loaderData.profile.displayName} · Soundtrail` : "Profile · Soundtrail" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const cursor = new URL(request.url).searchParams.get("cursor");
  const page = await loadProfilePage({ viewerId: viewer.id, username: viewer.username, cursor });
  if (!page) throw data("Your profile could not be found", { status: 404 });
  const [journey, recentListens, lovedTracks] = await Promise.all([
    loadJourneySummary({ viewerId: viewer.id, owner: ownerOf(page.profile) }),
    listRecentListens({
      viewerId: viewer.id,
      ownerId: page.profile.id,
      cursor: new URL(request.url).searchParams.get("listens"),
    }),
    listLovedTracks({ viewerId: viewer.id, ownerId: page.profile.id }),
  ]);
  return { ...page, journey, recentListens, lovedTracks, viewerId: viewer.id };
}

export const shouldRevalidate = skipRevalidationAfter("/api/like", "/api/report");

export default function Profile({ loaderData }: Route.ComponentProps) {
  // What the person's players send shows here as it arrives (recent listens, now playing).
  useLiveRevalidation(
    (event) => event.type === "listens" && event.data.userId === loaderData.viewerId,
  );
  return (
    <ProfileView
      data={loaderData}
      viewerId={loaderData.viewerId}
      basePath="/profile"
      journey={
        <>
          <RecentListensSection
            listens={loaderData.recentListens}
            loved={loaderData.lovedTracks}
            ownerId={loaderData.profile.id}
            isSignedIn
            basePath="/profile"
          />
          <JourneySummarySection summary={loaderData.journey} isSignedIn />
        </>
      }
    />
  );
}
