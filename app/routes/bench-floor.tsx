import { benchFeedData } from "~/features/posts/bench-fixture.server";
import type { Route } from "./+types/bench-floor";

/**
 * `/bench/floor`: the framework's floor for `npm run bench` (bench/feed-ssr.ts). The same 20
 * posts' loader data as `/bench/fixture` and `/feed`, rendered as the plainest list — no
 * layout, no components, no styles. `/feed` ÷ this, in one run, is what Soundtrail's pages
 * cost on top of React Router itself. 404 unless the server runs with SOUNDTRAIL_BENCH=1.
 */

export const meta: Route.MetaFunction = () => [
  { title: "Feed floor · Soundtrail" },
  { name: "robots", content: "noindex" },
];

export function loader() {
  return benchFeedData();
}

export default function BenchFloor({ loaderData }: Route.ComponentProps) {
  return (
    <main>
      <h1>Your feed</h1>
      <ol>
        {loaderData.page.posts.map((post) => (
          <li key={post.id}>
            <a href={`/post/${post.id}`}>{post.title}</a> · {post.artist} ·{" "}
            {post.author.displayName ?? post.author.username}
            <p>{post.note}</p>
            <span>
              {post.likeCount} likes · {post.commentCount} comments
            </span>
          </li>
        ))}
      </ol>
    </main>
  );
}
