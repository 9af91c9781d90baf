import { describe, expect, it } from "vitest";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { hasAnyPosts, loadDiscovery } from "./discovery.server";

withTestDatabase();

// One database for the file: the cases run in order, from an empty instance to a busy one.
describe("what an empty page offers", () => {
  it("on a truly empty instance: nothing to suggest, and it says it is new", async () => {
    const newcomer = await createTestUser({ username: "disc_new" });
    expect(await hasAnyPosts()).toBe(false);
    // The viewer's own posts do not make the instance busy for them.
    await createTestPost(newcomer.id, { artist: "Solo Artist" });
    const discovery = await loadDiscovery(newcomer.id);
    expect(discovery.isNewInstance).toBe(true);
    expect(discovery.suggestions).toEqual([]);
    expect(discovery.trendingArtists).toEqual([]);
    expect(await hasAnyPosts()).toBe(true);
  });

  it("never says new once others have posted, even when nothing of theirs is public", async () => {
    const viewer = await createTestUser({ username: "disc_viewer" });
    const quiet = await createTestUser({ username: "disc_quiet" });
    await createTestPost(quiet.id, { artist: "Hidden Band", audience: "followers" });
    const discovery = await loadDiscovery(viewer.id);
    expect(discovery.trendingArtists.map((a) => a.name)).not.toContain("Hidden Band");
    expect(discovery.suggestions.map((s) => s.username)).not.toContain("disc_quiet");
    expect(discovery.isNewInstance).toBe(false);
  });

  it("on a busy instance: who to follow and the artists posted about this week", async () => {
    const viewer = await createTestUser({ username: "disc_reader" });
    const busy = await createTestUser({ username: "disc_busy" });
    for (let i = 0; i < 3; i++) await createTestPost(busy.id, { artist: "Khruangbin" });
    await createTestPost(busy.id, { artist: "Little Simz" });
    const discovery = await loadDiscovery(viewer.id);
    expect(discovery.isNewInstance).toBe(false);
    expect(discovery.suggestions.map((s) => s.username)).toContain("disc_busy");
    expect(discovery.suggestions.map((s) => s.username)).not.toContain("disc_reader");
    const artists = discovery.trendingArtists.map((a) => a.name);
    expect(artists[0]).toBe("Khruangbin");
    expect(artists).toContain("Little Simz");
    expect(discovery.trendingArtists[0]?.postCount).toBe(3);
  });
});
