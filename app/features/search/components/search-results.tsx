import type { ReactNode } from "react";
import { Link } from "react-router";
import { EmptyState } from "~/components/ui/empty-state";
import { Icon } from "~/components/ui/icon";
import { FollowSuggestions } from "~/features/people";
import { cn } from "~/lib/utils";
import {
  MUSIC_SECTION_LABELS,
  type MusicSection,
  SEARCH_TYPES,
  type SearchHrefOptions,
  searchHref,
} from "../query";
import type { PostResult, TagResult } from "../search.server";
import type { SearchPageData } from "../search-page.server";
import { DiscoverPanel } from "./discover-panel";
import { MusicResultRow } from "./music-result";
import { PagedResults } from "./paged-results";
import { PersonResultRow } from "./person-result";
import { PostResultCard } from "./post-result";
import { TagChip } from "./tag-chip";
import { TrendingArtistList } from "./trending-artists";

function Section({
  id,
  title,
  more,
  children,
}: {
  id: string;
  title: string;
  more?: { to: string; label: string } | null;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={`${id}-heading`} className="mb-8">
      <div className="mb-2 flex items-baseline justify-between gap-3">
        <h2 id={`${id}-heading`} className="text-lg font-semibold">
          {title}
        </h2>
        {more ? (
          <Link to={more.to} className="text-sm font-medium text-primary hover:underline">
            {more.label}
          </Link>
        ) : null}
      </div>
      {children}
    </section>
  );
}

function PostList({
  posts,
  terms,
  label,
}: {
  posts: PostResult[];
  terms: readonly string[];
  label: string;
}) {
  return (
    <ul aria-label={label} className="flex flex-col gap-3">
      {posts.map((post) => (
        <li key={post.id}>
          <PostResultCard post={post} terms={terms} />
        </li>
      ))}
    </ul>
  );
}

function TagList({
  tags,
  label,
  className,
}: {
  tags: TagResult[];
  label: string;
  className?: string;
}) {
  return (
    <ul aria-label={label} className={cn("flex flex-wrap gap-2", className)}>
      {tags.map((t) => (
        <li key={t.id}>
          <TagChip tag={t.tag} postCount={t.postCount} />
        </li>
      ))}
    </ul>
  );
}

function NoResults({ data, viewerId }: { data: SearchPageData; viewerId: string }) {
  const others = SEARCH_TYPES.filter((t) => t !== data.type && t !== "top");
  return (
    <div className="flex flex-col gap-4">
      <EmptyState icon="search-x" title={`No results for “${data.q}”`}>
        <p>Nothing you can see here matches that{data.type !== "top" ? " in this tab" : ""}.</p>
        <ul className="mt-3 list-inside list-disc text-left text-sm">
          <li>Check the spelling, or try fewer or shorter words.</li>
          <li>Search an artist, album or song title, a name, or a #tag.</li>
          {data.type !== "top" ? (
            <li>
              Look in{" "}
              <Link to={searchHref({ q: data.q })} className="font-medium text-primary underline">
                all results
              </Link>
              {others.length > 0 ? " or another tab" : ""}.
            </li>
          ) : null}
        </ul>
        {data.fallback.length > 0 ? (
          <div className="mt-4">
            <p className="mb-2 text-sm font-medium text-foreground">Popular this week</p>
            <TagList tags={data.fallback} label="Popular tags" className="justify-center" />
          </div>
        ) : null}
      </EmptyState>
      <DiscoverPanel
        discovery={{
          suggestions: data.fallbackPeople,
          trendingArtists: data.fallbackArtists,
          isNewInstance: false,
        }}
        viewerId={viewerId}
      />
    </div>
  );
}

function BackTo({ to, children }: { to: string; children: ReactNode }) {
  return (
    <p className="mb-4 text-sm">
      <Link to={to} className="inline-flex items-center gap-1 font-medium text-primary underline">
        <Icon name="arrow-left" className="size-4" />
        {children}
      </Link>
    </p>
  );
}

/** Everything below the search box and tabs, for each kind of result page. */
export function SearchResults({ data, viewerId }: { data: SearchPageData; viewerId: string }) {
  const { q, terms } = data;
  const postsUrl = (type: "posts" | "tags" | "music", extra: SearchHrefOptions) => {
    return (cursor: string) => searchHref({ ...extra, q, type, cursor });
  };

  if (data.view === "explore") {
    const { trendingTags, trendingArtists, suggestions } = data.explore;
    return (
      <div className="flex flex-col">
        <Section id="trending-tags" title="Trending tags this week">
          {trendingTags.length > 0 ? (
            <TagList tags={trendingTags} label="Trending tags" />
          ) : (
            <p className="text-sm text-muted-foreground">
              No tags this week yet. Add a #tag to a post’s note and it shows up here.
            </p>
          )}
        </Section>
        <Section id="trending-artists" title="Artists people posted about this week">
          {trendingArtists.length > 0 ? (
            <TrendingArtistList artists={trendingArtists} />
          ) : (
            <p className="text-sm text-muted-foreground">
              Nobody posted about an artist this week.
            </p>
          )}
        </Section>
        <FollowSuggestions suggestions={suggestions} viewerId={viewerId} />
      </div>
    );
  }

  if (data.isEmpty && data.view !== "musicPosts" && data.view !== "tagPosts") {
    return <NoResults data={data} viewerId={viewerId} />;
  }

  switch (data.view) {
    case "top": {
      const { people, posts, music, tags } = data.top;
      return (
        <>
          {people.length > 0 ? (
            <Section
              id="top-people"
              title="People"
              more={{ to: searchHref({ q, type: "people" }), label: "All people" }}
            >
              <ul aria-label="People" className="divide-y divide-border">
                {people.map((p) => (
                  <li key={p.id}>
                    <PersonResultRow person={p} viewerId={viewerId} terms={terms} />
                  </li>
                ))}
              </ul>
            </Section>
          ) : null}
          {posts.length > 0 ? (
            <Section
              id="top-posts"
              title="Posts"
              more={{ to: searchHref({ q, type: "posts" }), label: "All posts" }}
            >
              <PostList posts={posts} terms={terms} label="Posts" />
            </Section>
          ) : null}
          {music.length > 0 ? (
            <Section
              id="top-music"
              title="Music"
              more={{ to: searchHref({ q, type: "music" }), label: "All music" }}
            >
              <ul aria-label="Music" className="flex flex-col">
                {music.map((m) => (
                  <li key={m.id}>
                    <MusicResultRow item={m} q={q} terms={terms} />
                  </li>
                ))}
              </ul>
            </Section>
          ) : null}
          {tags.length > 0 ? (
            <Section
              id="top-tags"
              title="Tags"
              more={{ to: searchHref({ q, type: "tags" }), label: "All tags" }}
            >
              <TagList tags={tags} label="Tags" />
            </Section>
          ) : null}
        </>
      );
    }
    case "people":
      return (
        <PagedResults
          page={data.page}
          pageUrl={(cursor) => searchHref({ q, type: "people", cursor })}
          label={`People matching “${q}”`}
          listClassName="divide-y divide-border"
          itemNoun="people"
          renderItem={(p) => <PersonResultRow person={p} viewerId={viewerId} terms={terms} />}
        />
      );
    case "posts":
      // Each result's title is an h3: an h2 above them keeps the outline whole (axe heading-order).
      return (
        <>
          <h2 className="sr-only">{`Posts matching “${q}”`}</h2>
          <PagedResults
            page={data.page}
            pageUrl={postsUrl("posts", {})}
            label={`Posts matching “${q}”`}
            itemNoun="posts"
            renderItem={(p) => <PostResultCard post={p} terms={terms} />}
          />
        </>
      );
    case "music":
      return (
        <>
          {data.sections.map(({ section, page }) =>
            page.items.length > 0 ? (
              <MusicSectionBlock
                key={section}
                section={section}
                q={q}
                more={page.nextCursor !== null}
              >
                <ul aria-label={MUSIC_SECTION_LABELS[section]} className="flex flex-col">
                  {page.items.map((m) => (
                    <li key={m.id}>
                      <MusicResultRow item={m} q={q} terms={terms} />
                    </li>
                  ))}
                </ul>
              </MusicSectionBlock>
            ) : null,
          )}
        </>
      );
    case "musicSection":
      return (
        <>
          <BackTo to={searchHref({ q, type: "music" })}>All music results</BackTo>
          <h2 className="mb-2 text-lg font-semibold">{MUSIC_SECTION_LABELS[data.section]}</h2>
          <PagedResults
            page={data.page}
            pageUrl={(cursor) => searchHref({ q, type: "music", section: data.section, cursor })}
            label={MUSIC_SECTION_LABELS[data.section]}
            listClassName="flex flex-col"
            renderItem={(m) => <MusicResultRow item={m} q={q} terms={terms} />}
          />
        </>
      );
    case "musicPosts": {
      const { item } = data;
      const title =
        item.section === "artists"
          ? item.name
          : `${item.name}${item.artist ? ` · ${item.artist}` : ""}`;
      const extra =
        item.section === "artists"
          ? { artist: item.name }
          : item.section === "albums"
            ? { album: item.name, artist: item.artist ?? null }
            : { track: item.name, artist: item.artist ?? null };
      return (
        <>
          {q ? <BackTo to={searchHref({ q, type: "music" })}>All music results</BackTo> : null}
          <h2 className="mb-3 text-lg font-semibold">Posts about {title}</h2>
          {data.page.items.length === 0 ? (
            <p className="text-muted-foreground">No posts about it that you can see.</p>
          ) : (
            <PagedResults
              page={data.page}
              pageUrl={postsUrl("music", extra)}
              label={`Posts about ${title}`}
              itemNoun="posts"
              renderItem={(p) => <PostResultCard post={p} terms={terms} />}
            />
          )}
        </>
      );
    }
    case "tags":
      return (
        <PagedResults
          page={data.page}
          pageUrl={(cursor) => searchHref({ q, type: "tags", cursor })}
          label={`Tags matching “${q}”`}
          listClassName="flex flex-wrap gap-2"
          itemNoun="tags"
          renderItem={(t) => <TagChip tag={t.tag} postCount={t.postCount} />}
        />
      );
    case "tagPosts":
      return (
        <>
          <h2 className="mb-3 flex items-center gap-1 text-lg font-semibold">
            <Icon name="hash" className="size-5 text-primary" />
            <span className="sr-only">Tag </span>
            {data.tag}
            {data.postCount !== null ? (
              <span className="ml-2 text-sm font-normal text-muted-foreground">
                {data.postCount} {data.postCount === 1 ? "post" : "posts"}
              </span>
            ) : null}
          </h2>
          {data.page.items.length === 0 ? (
            <p className="text-muted-foreground">No posts with this tag that you can see yet.</p>
          ) : (
            <PagedResults
              page={data.page}
              pageUrl={postsUrl("tags", {})}
              label={`Posts tagged #${data.tag}`}
              itemNoun="posts"
              renderItem={(p) => <PostResultCard post={p} terms={terms} />}
            />
          )}
        </>
      );
  }
}

function MusicSectionBlock({
  section,
  q,
  more,
  children,
}: {
  section: MusicSection;
  q: string;
  more: boolean;
  children: ReactNode;
}) {
  const label = MUSIC_SECTION_LABELS[section];
  return (
    <Section
      id={`music-${section}`}
      title={label}
      more={
        more
          ? { to: searchHref({ q, type: "music", section }), label: `More ${label.toLowerCase()}` }
          : null
      }
    >
      {children}
    </Section>
  );
}
