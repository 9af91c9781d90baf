import type { ProcessedImage } from "~/features/media/media.server";
import { createPost } from "~/features/posts/posts.server";
import { type PostInput, postInputSchema } from "~/features/posts/schemas";

/** A valid composer input, with `overrides` applied (run through the real schema). */
export function postInput(overrides: Partial<Record<keyof PostInput, string>> = {}): PostInput {
  return postInputSchema.parse({
    kind: "track",
    title: "Weird Fishes/Arpeggi",
    artist: "Radiohead",
    album: "In Rainbows",
    note: "",
    audience: "everyone",
    ...overrides,
  });
}

/** Creates a post through the real createPost (fan-out included); returns its id. */
export async function createTestPost(
  authorId: string,
  overrides: Partial<Record<keyof PostInput, string>> = {},
  image?: ProcessedImage,
): Promise<string> {
  const { id } = await createPost({ viewerId: authorId, input: postInput(overrides), image });
  return id;
}
