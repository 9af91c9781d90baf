import { spawnSync } from "node:child_process";
import { renderToString } from "react-dom/server";
import { createRoutesStub } from "react-router";
import { describe, expect, it } from "vitest";
import { PostCard, type PostCardData } from "./post-card";

/*
 * The post card's weight (ARCHITECTURE §9: icons from one sprite, no markup for closed menus).
 * Bytes and markup only; `npm run bench -- html-size` measures the whole /feed document.
 */

const post: PostCardData = {
  id: "00000000-0000-4000-8000-000000000001",
  kind: "track",
  title: "Roads",
  artist: "Portishead",
  album: "Dummy",
  linkUrl: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
  note: "On repeat tonight #trip",
  mood: "chill",
  audience: "everyone",
  createdAt: "2026-11-20T10:00:00.000Z",
  editedAt: null,
  author: { id: "a", username: "alice", displayName: "Alice Liddell", avatarUrl: null },
  image: null,
  preview: null,
  likeCount: 3,
  commentCount: 1,
  viewerHasLiked: true,
  viewerFollowsAuthor: true,
};

/** The same post once its link preview arrived (title, artist, artwork, the service's player). */
const unfurled: PostCardData = {
  ...post,
  preview: {
    title: "Roads (Live at Roseland NYC)",
    artist: "Portishead",
    embedUrl: "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
    art: `/art/${"a".repeat(64)}.webp`,
  },
};
let shown = post;

function FeedWithOnePost() {
  return <PostCard post={shown} viewerId="b" />;
}

const Stub = createRoutesStub([{ path: "/feed", Component: FeedWithOnePost }]);

/** The same card as the second one of a list renders it. */
function FeedWithOneQuietPost() {
  return <PostCard post={post} viewerId="b" discover={false} />;
}

const QuietStub = createRoutesStub([{ path: "/feed", Component: FeedWithOneQuietPost }]);

/** The card as a signed-in reader (not its author) gets it from the server. */
function render(card: PostCardData = post): string {
  shown = card;
  return renderToString(<Stub initialEntries={["/feed"]} />);
}

describe("post card markup", () => {
  it("carries no icon markup: its icons are CSS masks (app.css, card-icons.css)", () => {
    const html = render();
    expect(html).not.toMatch(/<svg|<path|<use/);
    expect(html).toContain('class="post-audience" data-audience="everyone"');
  });

  it("renders no menu items while the menu is closed, and no player frame before hydration", () => {
    const html = render();
    expect(html).toContain("More actions for “Roads”");
    expect(html).not.toContain("Report post");
    expect(html).not.toContain("<iframe");
    expect(html).toContain("Open in YouTube");
  });

  it("stays within the budget of 2 KB per card (issue 17)", () => {
    const article = render().match(/<article\b[\s\S]*<\/article>/)?.[0] ?? "";
    expect(article.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(article)).toBeLessThanOrEqual(2048);
  });

  it("carries React Router's data-discover only when asked (one card of a list is enough)", () => {
    expect(render()).toContain("data-discover");
    expect(renderToString(<QuietStub initialEntries={["/feed"]} />)).not.toContain("data-discover");
  });

  it("shows the link's artwork and what the service says, with no player frame, still lean", () => {
    const article = render(unfurled).match(/<article\b[\s\S]*<\/article>/)?.[0] ?? "";
    expect(article).toContain(`src="/art/${"a".repeat(64)}.webp"`);
    expect(article).toContain("Roads (Live at Roseland NYC) · Portishead");
    expect(article).not.toContain("<iframe");
    expect(article).not.toContain("youtube-nocookie");
    // What the preview adds is its text and the art's longer file name, no markup to speak of.
    const plain = render().match(/<article\b[\s\S]*<\/article>/)?.[0] ?? "";
    const added = Buffer.byteLength(article) - Buffer.byteLength(plain);
    const text = Buffer.byteLength("Roads (Live at Roseland NYC) · Portishead");
    expect(added).toBeLessThan(text + 48 + 40);
  });
});

describe("icon sprite", () => {
  it("is what scripts/generate-icons.mjs generates from lucide-react", () => {
    const check = spawnSync(process.execPath, ["scripts/generate-icons.mjs", "--check"], {
      encoding: "utf8",
    });
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
  });
});
