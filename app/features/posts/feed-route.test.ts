import { RouterContextProvider } from "react-router";
import { describe, expect, it } from "vitest";
import { countStatements } from "~/db/client.server";
import { followUser } from "~/features/follows/index.server";
import { type Viewer, viewerContext } from "~/lib/context.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as feedRoute from "~/routes/_app/feed";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";

const { loader } = atTheEdge(feedRoute);

withTestDatabase();

function contextFor(viewer: { id: string; username: string } | null) {
  const context = new RouterContextProvider();
  context.set(
    viewerContext,
    viewer
      ? ({
          id: viewer.id,
          username: viewer.username,
          displayName: viewer.username,
          avatarUrl: null,
          isAdmin: false,
        } as unknown as Viewer)
      : null,
  );
  return context;
}

/** Calls the route's loader the way React Router would, with only what it reads. */
function callLoader(request: Request, context: RouterContextProvider) {
  return loader({ request, context, params: {} } as unknown as Parameters<typeof loader>[0]);
}

describe("the /feed loader", () => {
  it.each(["following", "everyone"])(
    "reads a full page of the %s tab with one SQL statement (the session is resolved before it; the listening-now strip loads itself after the page)",
    async (tab) => {
      const ana = await createTestUser();
      const ben = await createTestUser();
      await followUser({ viewerId: ben.id, targetId: ana.id });
      for (let i = 0; i < 25; i++) await createTestPost(ana.id);
      const request = new Request(`http://localhost:3000/feed?tab=${tab}`);
      const { result, statements } = await countStatements(async () =>
        callLoader(request, contextFor(ben)),
      );
      expect(result.page.posts).toHaveLength(20);
      expect(result.page.nextCursor).not.toBeNull();
      expect(statements).toBe(1);
    },
  );

  it("signed out, reads public posts with one statement", async () => {
    const ana = await createTestUser();
    const postId = await createTestPost(ana.id);
    const request = new Request("http://localhost:3000/feed");
    const { result, statements } = await countStatements(async () =>
      callLoader(request, contextFor(null)),
    );
    expect(result.tab).toBe("everyone");
    expect(result.page.posts.length).toBeGreaterThan(0);
    expect(result.page.posts.map((post) => post.id)).toContain(postId);
    expect(statements).toBe(1);
  });
});
