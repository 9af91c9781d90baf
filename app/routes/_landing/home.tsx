import { ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import { Icon, type IconName } from "~/components/ui/icon";
import { postArtUrl } from "~/features/artwork/cover";
import { PostCard } from "~/features/posts/components/post-card";
import { listFeed } from "~/features/posts/feed.server";
import { hasAnyPosts } from "~/features/search/discovery.server";
import type { Route } from "./+types/home";

/** How many of the latest public posts the landing page shows. */
const LATEST_COUNT = 3;

export const meta: Route.MetaFunction = () => [
  { title: "Soundtrail" },
  { property: "og:title", content: "Soundtrail" },
  { property: "og:description", content: "Share your music journey with friends" },
  { property: "og:type", content: "website" },
  { property: "og:image", content: "/icon-512.png" },
  { name: "twitter:card", content: "summary" },
];

/** The latest public posts, as a signed-out visitor may see them (the only kind who gets here). */
export async function loader() {
  const page = await listFeed({ viewerId: null, tab: "everyone", limit: LATEST_COUNT });
  // "Brand new" only when nobody has posted anything at all, public or not.
  const isNewInstance = page.posts.length === 0 && !(await hasAnyPosts());
  return { posts: page.posts, isNewInstance };
}

const features: { icon: IconName; title: string; text: string }[] = [
  {
    icon: "disc-3",
    title: "Post what you're playing",
    text: "A track, an album, an artist — with a note, a mood and a link to your streaming service.",
  },
  {
    icon: "users",
    title: "Follow your friends",
    text: "See what the people you care about are listening to, newest first.",
  },
  {
    icon: "heart",
    title: "Like and comment",
    text: "React to a discovery, trade recommendations, start a conversation.",
  },
  {
    icon: "radio",
    title: "Live notifications",
    text: "Know the moment a friend likes your post or mentions you.",
  },
  {
    icon: "sparkles",
    title: "A music assistant",
    text: "Ask about your own journey: your top artists, your moods, what to play next.",
  },
  {
    icon: "message-circle",
    title: "Yours to host",
    text: "Runs on one machine out of the box, on PostgreSQL when your community grows.",
  },
];

export default function Home({ loaderData }: Route.ComponentProps) {
  const { posts, isNewInstance } = loaderData;
  return (
    <main id="main">
      <section className="mx-auto grid max-w-6xl items-center gap-10 px-4 py-16 sm:py-24 lg:grid-cols-[1fr_auto]">
        <div>
          <p className="text-sm font-semibold uppercase tracking-wider text-primary">Soundtrail</p>
          <h1 className="mt-3 max-w-3xl text-4xl font-black tracking-tight sm:text-6xl">
            Share your music journey with friends.
          </h1>
          <p className="mt-6 max-w-2xl text-lg text-muted-foreground">
            The songs that got you through the week, the album you can't stop replaying, the artist
            you just discovered — keep them in one place and see what your friends are playing.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <ButtonLink to="/auth/signup" size="lg">
              Create your account
            </ButtonLink>
            <ButtonLink to="/feed" variant="secondary" size="lg">
              Browse the public feed
            </ButtonLink>
          </div>
        </div>
        {posts.length > 0 ? (
          // The music people share here, as a wall of artwork (decorative: the posts are below).
          <div aria-hidden="true" className="grid grid-cols-3 gap-2 sm:gap-3">
            {posts.slice(0, 6).map((post) => (
              <img
                key={post.id}
                src={postArtUrl(post, post.preview?.art)}
                alt=""
                width={128}
                height={128}
                decoding="async"
                className="size-24 rounded-lg object-cover shadow-md sm:size-32"
              />
            ))}
          </div>
        ) : null}
      </section>

      <section aria-labelledby="features-title" className="border-y border-border bg-card">
        <div className="mx-auto max-w-6xl px-4 py-16">
          <h2 id="features-title" className="text-2xl font-bold">
            Everything a music friend needs
          </h2>
          <ul className="mt-8 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {features.map(({ icon, title, text }) => (
              <li key={title}>
                <Card className="h-full bg-background">
                  <Icon name={icon} className="size-6 text-primary" />
                  <h3 className="mt-3 font-semibold">{title}</h3>
                  <p className="mt-1 text-sm text-muted-foreground">{text}</p>
                </Card>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section aria-labelledby="activity-title" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="activity-title" className="text-2xl font-bold">
          Happening now
        </h2>
        <p className="mt-1 text-muted-foreground">The latest public posts on this instance.</p>
        {posts.length > 0 ? (
          <div className="mt-6 max-w-3xl">
            <ul aria-label="Latest public posts" className="flex flex-col gap-4">
              {posts.map((post) => (
                <li key={post.id}>
                  <PostCard post={post} viewerId={null} headingLevel={3} />
                </li>
              ))}
            </ul>
            <ButtonLink to="/feed" variant="secondary" className="mt-6">
              See the whole public feed
            </ButtonLink>
          </div>
        ) : (
          <div className="mt-6">
            <EmptyState
              icon="disc-3"
              title="No public posts yet"
              action={<ButtonLink to="/auth/signup">Be the first to share</ButtonLink>}
            >
              {isNewInstance
                ? "This Soundtrail is brand new. Public posts will show up here as soon as people start sharing."
                : "People here share with their followers for now. Join to follow them and see what they play."}
            </EmptyState>
          </div>
        )}
      </section>
    </main>
  );
}
