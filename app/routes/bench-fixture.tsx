import { Link } from "react-router";
import { AppHeader } from "~/components/layout/app-header";
import { SiteFooter } from "~/components/layout/site-footer";
import { PageHeader } from "~/components/ui/page-header";
import { benchFeedData } from "~/features/posts/bench-fixture.server";
import { Composer } from "~/features/posts/components/composer";
import { FeedList } from "~/features/posts/components/feed-list";
import type { Route } from "./+types/bench-fixture";

/**
 * `/bench/fixture`: the signed-in "Following" feed page with 20 made-up posts and no database
 * access, for `npm run bench` (bench/feed-ssr.ts) to compare against the real `/feed`. It
 * renders the same components and serialises the same amount of loader data, so the difference
 * between the two is what the database costs. It exists only when the server runs with
 * SOUNDTRAIL_BENCH=1; everywhere else it answers 404.
 */

export const meta: Route.MetaFunction = () => [
  { title: "Feed · Soundtrail" },
  { name: "robots", content: "noindex" },
];

export function loader() {
  return benchFeedData();
}

function tabUrl(tab: "following" | "everyone", cursor?: string) {
  const params = new URLSearchParams({ tab });
  if (cursor) params.set("cursor", cursor);
  return `/feed?${params}`;
}

export default function BenchFixture({ loaderData }: Route.ComponentProps) {
  const { viewerId, page } = loaderData;
  return (
    <div className="flex min-h-dvh flex-col">
      <AppHeader
        viewer={{ displayName: "Ana Rivera", username: "ana_rivera", isAdmin: false }}
        colorMode="system"
      />
      <main id="main" className="mx-auto w-full max-w-3xl flex-1 px-4 py-8">
        <PageHeader title="Your feed">
          What people on this Soundtrail are listening to, newest first.
        </PageHeader>
        <div className="mb-6">
          <Composer action="/feed" expandHref="/feed?compose=1#composer" />
        </div>
        <nav aria-label="Feed" className="mb-4 flex gap-1 rounded-lg border border-border p-1">
          <Link
            to={tabUrl("following")}
            aria-current="page"
            className="flex-1 rounded-md bg-accent px-3 py-2 text-center text-sm font-medium text-accent-foreground"
          >
            Following
          </Link>
          <Link
            to={tabUrl("everyone")}
            className="flex-1 rounded-md px-3 py-2 text-center text-sm font-medium text-muted-foreground"
          >
            Everyone
          </Link>
        </nav>
        <div className="scroll-mt-20" />
        <FeedList
          posts={page.posts}
          nextCursor={page.nextCursor}
          viewerId={viewerId}
          pageUrl={(cursor) => tabUrl("following", cursor)}
          empty={null}
          label="Posts from you and people you follow"
        />
      </main>
      <SiteFooter isSignedIn />
    </div>
  );
}
