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

function FeedWithOnePost() {
  return <PostCard post={post} viewerId="b" />;
}

const Stub = createRoutesStub([{ path: "/feed", Component: FeedWithOnePost }]);

/** The card as a signed-in reader (not its author) gets it from the server. */
function render(): string {
  return renderToString(<Stub initialEntries={["/feed"]} />);
}

describe("post card markup", () => {
  it("draws its icons from the sprite, not as inline paths", () => {
    const html = render();
    expect(html).not.toMatch(/<path|<circle|<rect/);
    const uses = html.match(/<use href="[^"]*sprite[^"#]*#[\w-]+"/g) ?? [];
    expect(uses.length).toBeGreaterThanOrEqual(5);
  });

  it("renders no menu items while the menu is closed, and no player frame before hydration", () => {
    const html = render();
    expect(html).toContain("More actions for “Roads”");
    expect(html).not.toContain("Report post");
    expect(html).not.toContain("<iframe");
    expect(html).toContain("Open in YouTube");
  });

  it("stays lean: well under the 5 KB it used to weigh", () => {
    const article = render().match(/<article\b[\s\S]*<\/article>/)?.[0] ?? "";
    expect(article.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(article)).toBeLessThan(3 * 1024);
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
