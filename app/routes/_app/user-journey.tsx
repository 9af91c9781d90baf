import { data } from "react-router";
import { JourneyPage } from "~/features/journey/components/journey-view";
import { loadJourney } from "~/features/journey/journey-page.server";
import { getProfile } from "~/features/people/people.server";
import { getViewer } from "~/lib/guards.server";
import type { Route } from "./+types/user-journey";

export const meta: Route.MetaFunction = ({ data: loaderData }) => [
  {
    title: loaderData
      ? `${loaderData.view.owner.displayName}'s journey · Soundtrail`
      : "Not found · Soundtrail",
  },
];

/**
 * `/u/:username/journey?period=week|month|year|all|custom&from=…&to=…`: someone's listening
 * journey, as the journey's audience rule lets the viewer see it (signed out included).
 */
export async function loader({ params, context, request }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const viewerId = viewer?.id ?? null;
  const url = new URL(request.url);
  const profile = await getProfile({ viewerId, username: params.username });
  if (!profile) throw data(`Page not found: ${url.pathname}`, { status: 404 });
  const view = await loadJourney({
    viewerId,
    owner: { id: profile.id, username: profile.username, displayName: profile.displayName },
    params: url.searchParams,
  });
  return { view, isSignedIn: viewerId !== null };
}

export default function UserJourney({ loaderData }: Route.ComponentProps) {
  const { view, isSignedIn } = loaderData;
  const profilePath = `/u/${view.owner.username}`;
  return (
    <JourneyPage
      view={view}
      basePath={`${profilePath}/journey`}
      profilePath={profilePath}
      isSignedIn={isSignedIn}
    />
  );
}
