import { describe, expect, it } from "vitest";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { sharePreviewMeta } from "./share-preview";
import { loadSharePreview } from "./share-preview.server";

withTestDatabase();

describe("the sign-in page's preview of a shared link", () => {
  it("previews a public post as text, with Open Graph tags", async () => {
    const ana = await createTestUser({ displayName: "Ana" });
    const id = await createTestPost(ana.id, {
      title: "Sour Times",
      artist: "Portishead",
      note: "<b>trip-hop</b>",
    });
    const preview = await loadSharePreview({ path: `/post/${id}` });
    expect(preview).toMatchObject({
      kind: "post",
      title: "Sour Times",
      artist: "Portishead",
      note: "<b>trip-hop</b>",
      author: { displayName: "Ana", username: ana.username },
    });
    if (!preview) throw new Error("no preview");
    const meta = sharePreviewMeta(preview);
    expect(meta).toContainEqual({
      property: "og:title",
      content: "Ana shared Sour Times by Portishead",
    });
    expect(meta).toContainEqual({ property: "og:description", content: "<b>trip-hop</b>" });
    // No picture of its own and no link preview: the generated cover, as a PNG, is its image.
    expect(preview).toMatchObject({ art: expect.stringMatching(/^\/art\/[0-9a-f]{16}\.webp$/) });
    const image = meta.find((m) => "property" in m && m.property === "og:image");
    expect(image).toMatchObject({
      content: expect.stringMatching(/^https?:\/\/.+\/art\/[0-9a-f]{16}\.png$/),
    });
    expect(meta).toContainEqual({ name: "twitter:card", content: "summary" });
  });

  it.each(["followers", "only_me"])("never previews a post for %s", async (audience) => {
    const ana = await createTestUser();
    const id = await createTestPost(ana.id, { audience, title: "Hidden" });
    expect(await loadSharePreview({ path: `/post/${id}` })).toBeNull();
  });

  it("previews nothing for an unknown, malformed or other path", async () => {
    for (const path of [
      "/post/00000000-0000-4000-8000-000000000000",
      "/post/not-a-uuid",
      "/post/%E0%A4%A",
      "/u/nobody_here",
      "/u/..",
      "/settings",
      null,
    ]) {
      expect(await loadSharePreview({ path })).toBeNull();
    }
  });

  it("previews a profile, counting only public posts", async () => {
    const ben = await createTestUser({ displayName: "Ben" });
    await createTestPost(ben.id);
    await createTestPost(ben.id, { audience: "followers" });
    for (const path of [`/u/${ben.username}`, `/u/${ben.username.toUpperCase()}/followers`]) {
      expect(await loadSharePreview({ path })).toMatchObject({
        kind: "profile",
        displayName: "Ben",
        username: ben.username,
        postCount: 1,
      });
    }
  });
});
