import fc from "fast-check";
import { RouterContextProvider } from "react-router";
import { describe, expect, it } from "vitest";
import { countStatements } from "~/db/client.server";
import { type Viewer, viewerContext } from "~/lib/context.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as searchRoute from "~/routes/_app/search";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";

const { loader } = atTheEdge(searchRoute);

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

function callLoader(url: string, viewer: { id: string; username: string } | null) {
  return loader({
    request: new Request(`http://localhost:3000${url}`),
    context: contextFor(viewer),
    params: {},
  } as unknown as Parameters<typeof loader>[0]);
}

describe("the /search loader", () => {
  it("sends a signed-out visitor to sign in, remembering the search", async () => {
    const thrown = await callLoader("/search?q=radiohead", null).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    const location = (thrown as Response).headers.get("location") ?? "";
    expect(location).toMatch(/^\/auth\/login/);
  });

  it("reads each tab with a small constant number of statements", async () => {
    const ana = await createTestUser({ username: "route_ana" });
    for (let i = 0; i < 30; i++) {
      await createTestPost(ana.id, { note: `loud guitars #routetag ${i}`, artist: "Route Band" });
    }
    const budgets: [string, number][] = [
      ["/search?q=guitars", 4],
      ["/search?q=route_ana&type=people", 1],
      ["/search?q=guitars&type=posts", 1],
      ["/search?q=route&type=music", 1],
      ["/search?q=route&type=music&section=artists", 1],
      ["/search?q=route&type=music&artist=Route%20Band", 1],
      ["/search?q=rout&type=tags", 1],
      ["/search?q=%23routetag&type=tags", 2],
    ];
    for (const [url, budget] of budgets) {
      const { result, statements } = await countStatements(() => callLoader(url, ana));
      expect(result.isEmpty, url).toBe(false);
      expect(statements, url).toBeLessThanOrEqual(budget);
    }
    const tag = await callLoader("/search?q=%23routetag&type=tags", ana);
    expect(tag.view === "tagPosts" && tag.postCount).toBe(30);
    expect(tag.view === "tagPosts" && tag.page.items).toHaveLength(20);
  });

  it("says nothing matched and offers this week's tags", async () => {
    const ana = await createTestUser();
    await createTestPost(ana.id, { note: "#nowplaying" });
    const result = await callLoader("/search?q=qqqqzzzzxxxx&type=posts", ana);
    expect(result.isEmpty).toBe(true);
    expect(result.fallback.map((t) => t.tag)).toContain("nowplaying");
  });

  it("answers any query string with a page, never an error (property)", async () => {
    const ana = await createTestUser();
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "binary" }),
        fc.constantFrom("top", "people", "posts", "music", "tags", "nonsense", ""),
        fc.option(fc.string(), { nil: null }),
        fc.option(fc.constantFrom("artists", "albums", "tracks", "x"), { nil: null }),
        async (q, type, cursor, section) => {
          const params = new URLSearchParams({ q, type });
          if (cursor !== null) params.set("cursor", cursor);
          if (section !== null) params.set("section", section);
          const result = await callLoader(`/search?${params}`, ana);
          expect(typeof result.view).toBe("string");
        },
      ),
      { numRuns: 40 },
    );
  });
});
