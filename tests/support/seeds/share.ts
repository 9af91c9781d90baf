import { posts } from "~/db/schema";
import { E2E_MEMBER, SHARED_POSTS } from "../e2e-accounts";
import type { Seed } from "../e2e-seed";

/** The shared-link specs' posts: one public, one for followers only (never previewed). */
export const seedShareFixtures: Seed = async (db) => {
  const createdAt = new Date(Date.now() - 60 * 86_400_000);
  await db.insert(posts).values([
    {
      id: SHARED_POSTS.public.id,
      authorId: E2E_MEMBER.id,
      kind: "track",
      title: SHARED_POSTS.public.title,
      artist: SHARED_POSTS.public.artist,
      note: SHARED_POSTS.public.note,
      audience: "everyone",
      createdAt,
    },
    {
      id: SHARED_POSTS.followersOnly.id,
      authorId: E2E_MEMBER.id,
      kind: "track",
      title: SHARED_POSTS.followersOnly.title,
      artist: SHARED_POSTS.followersOnly.artist,
      note: SHARED_POSTS.followersOnly.note,
      audience: "followers",
      createdAt,
    },
  ]);
};
