import { data } from "react-router";
import { getViewer, requireUser } from "~/features/auth/guards.server";
import { chapterSchema, saveChapter } from "~/features/journey/chapters.server";
import { JourneyPage } from "~/features/journey/components/journey-view";
import { RecentListensSection } from "~/features/journey/components/recent-listens";
import { getVisibleNowPlaying } from "~/features/journey/index.server";
import { loadJourney } from "~/features/journey/journey-page.server";
import { listLovedTracks, listRecentListens } from "~/features/journey/listenbrainz/recent.server";
import { postRecap, recapPostSchema } from "~/features/journey/recap.server";
import { getProfile } from "~/features/people/people.server";
import { useLiveRevalidation } from "~/features/realtime";
import { formFailure, formStrings, invalidForm } from "~/lib/forms";
import { forForm } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
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
  const [view, nowPlaying, recentListens, lovedTracks] = await Promise.all([
    loadJourney({
      viewerId,
      owner: { id: profile.id, username: profile.username, displayName: profile.displayName },
      params: url.searchParams,
    }),
    getVisibleNowPlaying({ viewerId, userId: profile.id }),
    listRecentListens({ viewerId, ownerId: profile.id, cursor: url.searchParams.get("listens") }),
    listLovedTracks({ viewerId, ownerId: profile.id }),
  ]);
  return {
    view,
    isSignedIn: viewerId !== null,
    ownerId: profile.id,
    nowPlaying,
    recentListens,
    lovedTracks,
    query: Object.fromEntries(url.searchParams),
  };
}

/**
 * Titles and annotates one of the viewer's own chapters (nobody else's: 404), or posts the
 * viewer's own recap card to the feed (on someone else's journey: 404).
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const values = formStrings(await request.formData());
  if (values.intent === "recap-post") return postRecapAction(viewer, params.username, values);
  if (values.intent !== "chapter") {
    return data({ ...formFailure({}, "Unknown action."), values }, { status: 400 });
  }
  const parsed = chapterSchema.safeParse(values);
  if (!parsed.success) {
    return data({ ...invalidForm(parsed.error), values }, { status: 400 });
  }
  await forForm({ values }, () => saveChapter({ userId: viewer.id, ...parsed.data }));
  const url = new URL(request.url);
  return redirectWithToast(
    `/u/${encodeURIComponent(params.username)}/journey${url.search}#chapters`,
    {
      type: "success",
      title: "Chapter saved",
    },
  );
}

async function postRecapAction(
  viewer: { id: string; username: string; displayName: string },
  username: string,
  values: Record<string, string>,
) {
  if (viewer.username.toLowerCase() !== username.toLowerCase()) {
    return data(
      { ...formFailure({}, "You can post only your own recap card."), values },
      { status: 404 },
    );
  }
  const parsed = recapPostSchema.safeParse(values);
  if (!parsed.success) {
    return data({ ...invalidForm(parsed.error), values }, { status: 400 });
  }
  const periodParams = new URLSearchParams();
  for (const name of ["period", "from", "to", "chapter"]) {
    if (values[name] !== undefined) periodParams.set(name, values[name]);
  }
  const { title } = await forForm({ values }, () =>
    postRecap({
      owner: { id: viewer.id, username: viewer.username, displayName: viewer.displayName },
      params: periodParams,
      audience: parsed.data.audience,
      note: parsed.data.note,
    }),
  );
  return redirectWithToast("/feed", {
    type: "success",
    title: "Recap posted",
    description: `“${title}” is on your feed.`,
  });
}

export default function UserJourney({ loaderData, actionData }: Route.ComponentProps) {
  const { view, isSignedIn, ownerId } = loaderData;
  const profilePath = `/u/${view.owner.username}`;
  // Listens, "now playing" and the journey's numbers follow what the person's players send,
  // for readers the journey lets in (the server tells only them).
  useLiveRevalidation((event) => event.type === "listens" && event.data.userId === ownerId);
  return (
    <JourneyPage
      view={view}
      basePath={`${profilePath}/journey`}
      profilePath={profilePath}
      isSignedIn={isSignedIn}
      chapterResult={actionData}
      recapResult={actionData}
      listens={
        <RecentListensSection
          listens={loaderData.recentListens}
          loved={loaderData.lovedTracks}
          nowPlaying={loaderData.nowPlaying}
          ownerId={ownerId}
          isSignedIn={isSignedIn}
          basePath={`${profilePath}/journey`}
          query={loaderData.query}
        />
      }
    />
  );
}
