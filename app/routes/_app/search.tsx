import { redirect, useNavigation } from "react-router";
import { PageHeader } from "~/components/ui/page-header";
import { requireUser } from "~/features/auth/guards.server";
import { looksLikeRemotePerson, lookupRemotePerson } from "~/features/federation/index.server";
import { SearchBox } from "~/features/search/components/search-box";
import { SearchResults } from "~/features/search/components/search-results";
import { SearchTabs } from "~/features/search/components/search-tabs";
import { SEARCH_TYPE_LABELS } from "~/features/search/query";
import { loadSearchPage } from "~/features/search/search-page.server";
import { skipRevalidationAfter } from "~/lib/revalidation";
import type { Route } from "./+types/search";

export const meta: Route.MetaFunction = ({ data }) => [
  {
    title: data?.q
      ? `${data.q} · ${SEARCH_TYPE_LABELS[data.type]} · Search · Soundtrail`
      : "Search · Soundtrail",
  },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  // `@ana@other.host` or a profile URL elsewhere: the remote person, found over ActivityPub,
  // opens as a profile here (with Follow).
  const q = new URL(request.url).searchParams.get("q") ?? "";
  if (looksLikeRemotePerson(q)) {
    const remote = await lookupRemotePerson(q);
    if (remote) throw redirect(`/u/${encodeURIComponent(remote.username)}`);
  }
  const data = await loadSearchPage({
    viewerId: viewer.id,
    params: new URL(request.url).searchParams,
  });
  return { ...data, viewerId: viewer.id };
}

// Following someone from the results changes nothing else here; the button shows it.
export const shouldRevalidate = skipRevalidationAfter("/api/follow");

export default function Search({ loaderData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isSearching = navigation.state === "loading" && navigation.location.pathname === "/search";
  return (
    <>
      <PageHeader title="Search">Find people, posts, artists, albums, tracks and #tags.</PageHeader>
      <SearchBox q={loaderData.q} type={loaderData.type} className="mb-4" />
      <SearchTabs q={loaderData.q} type={loaderData.type} />
      <div aria-busy={isSearching || undefined} className={isSearching ? "opacity-60" : undefined}>
        <SearchResults data={loaderData} viewerId={loaderData.viewerId} />
      </div>
    </>
  );
}
