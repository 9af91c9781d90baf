import { data, Link } from "react-router";
import { buttonClasses } from "~/components/ui/button";
import { EmptyState } from "~/components/ui/empty-state";
import { Icon } from "~/components/ui/icon";
import { getViewer } from "~/features/auth/guards.server";
import { listPeople, type PeopleList } from "~/features/follows/follows.server";
import { PersonRow } from "~/features/people/components/person-row";
import { getProfile } from "~/features/people/people.server";
import { DiscoverPanel } from "~/features/search/components/discover-panel";
import { loadDiscovery } from "~/features/search/discovery.server";
import { cn } from "~/lib/utils";
import type { Route } from "./+types/user-people";

const LISTS: Record<PeopleList, string> = {
  followers: "Followers",
  following: "Following",
  friends: "Friends",
};

function isList(value: string): value is PeopleList {
  return value in LISTS;
}

export const meta: Route.MetaFunction = ({ data: loaderData }) => [
  {
    title: loaderData
      ? `${LISTS[loaderData.list]} of ${loaderData.profile.displayName} · Soundtrail`
      : "Not found · Soundtrail",
  },
];

/** `/u/:username/followers|following|friends` (friends = mutual follows), 30 a page. */
export async function loader({ params, context, request }: Route.LoaderArgs) {
  const notFound = () => data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 });
  if (!isList(params.list)) throw notFound();
  const viewer = getViewer(context);
  const viewerId = viewer?.id ?? null;
  const profile = await getProfile({ viewerId, username: params.username });
  if (!profile) throw notFound();
  const pageParam = Number(new URL(request.url).searchParams.get("page") ?? "1");
  const page = Number.isInteger(pageParam) && pageParam > 0 && pageParam < 10_000 ? pageParam : 1;
  const { people, hasMore } = await listPeople({
    viewerId,
    userId: profile.id,
    list: params.list,
    page,
  });
  // Following nobody yet, on one's own list: who to follow and what is trending.
  const discovery =
    viewerId === profile.id && params.list === "following" && page === 1 && people.length === 0
      ? await loadDiscovery(viewerId)
      : null;
  return { profile, list: params.list, people, hasMore, page, viewerId, discovery };
}

export default function UserPeople({ loaderData }: Route.ComponentProps) {
  const { profile, list, people, hasMore, page, viewerId, discovery } = loaderData;
  const base = `/u/${profile.username}`;
  return (
    <div className="flex flex-col gap-4">
      <p>
        <Link
          to={base}
          className="inline-flex items-center gap-1 text-sm font-medium text-muted-foreground hover:text-foreground"
        >
          <Icon name="arrow-left" className="size-4" />
          {profile.displayName}
        </Link>
      </p>
      <h1 className="text-2xl font-bold">
        {LISTS[list]} <span className="text-muted-foreground">of @{profile.username}</span>
      </h1>
      <nav aria-label="People lists" className="flex gap-1 rounded-lg border border-border p-1">
        {(Object.keys(LISTS) as PeopleList[]).map((key) => (
          <Link
            key={key}
            to={`${base}/${key}`}
            aria-current={key === list ? "page" : undefined}
            className={cn(
              "flex-1 rounded-md px-3 py-2 text-center text-sm font-medium hover:bg-muted hover:text-foreground",
              key === list
                ? "bg-accent text-accent-foreground hover:bg-accent"
                : "text-muted-foreground",
            )}
          >
            {LISTS[key]}
          </Link>
        ))}
      </nav>
      {people.length === 0 && discovery && viewerId ? (
        <>
          <EmptyState icon="users" title="You don't follow anyone yet">
            {discovery.isNewInstance
              ? "This Soundtrail is new: when people join and share, you can follow them here."
              : "Follow people to see what they share on your feed."}
          </EmptyState>
          <DiscoverPanel discovery={discovery} viewerId={viewerId} />
        </>
      ) : people.length === 0 ? (
        <EmptyState icon="users" title="Nobody here yet">
          {list === "friends"
            ? "Friends are people who follow each other."
            : list === "followers"
              ? `Nobody follows ${profile.displayName} yet.`
              : `${profile.displayName} does not follow anyone yet.`}
        </EmptyState>
      ) : (
        <ul className="divide-y divide-border rounded-xl border border-border bg-card px-4">
          {people.map((person) => (
            <li key={person.id}>
              <PersonRow person={person} viewerId={viewerId} />
            </li>
          ))}
        </ul>
      )}
      <div className="flex justify-between">
        {page > 1 ? (
          <Link to={`${base}/${list}?page=${page - 1}`} className={buttonClasses("secondary")}>
            Previous
          </Link>
        ) : (
          <span />
        )}
        {hasMore ? (
          <Link to={`${base}/${list}?page=${page + 1}`} className={buttonClasses("secondary")}>
            Next
          </Link>
        ) : null}
      </div>
    </div>
  );
}
