// Helpers for the admin integration tests: route contexts, thrown data(), posts and comments.
import { RouterContextProvider } from "react-router";
import { getDb } from "~/db/client.server";
import { comments, posts } from "~/db/schema";
import { type Viewer, viewerContext } from "~/lib/context.server";

/** A request context as the root middleware would leave it for `viewer`. */
export function contextFor(viewer: Viewer | null): RouterContextProvider {
  const context = new RouterContextProvider();
  context.set(viewerContext, viewer);
  return context;
}

export function viewerOf(
  account: { id: string; username: string; displayName: string | null },
  isAdmin: boolean,
): Viewer {
  return {
    id: account.id,
    username: account.username,
    displayName: account.displayName ?? account.username,
    avatarUrl: null,
    isAdmin,
    isGuest: false,
  } as Viewer;
}

/** The status and body of a `data()` or Response a route threw or returned. */
export async function outcomeOf(run: () => unknown): Promise<{ status: number; body: unknown }> {
  let value: unknown;
  try {
    value = await run();
  } catch (error) {
    value = error;
  }
  if (value instanceof Response) {
    const text = await value.text();
    return { status: value.status, body: text ? JSON.parse(text) : null };
  }
  const thrown = value as { type?: unknown; init?: ResponseInit | null; data?: unknown } | null;
  if (thrown && typeof thrown === "object" && thrown.type === "DataWithResponseInit") {
    return { status: thrown.init?.status ?? 200, body: thrown.data };
  }
  if (value instanceof Error) throw value;
  return { status: 200, body: value };
}

/** Inserts a post by `authorId` (straight into the table). */
export async function insertPost(authorId: string, title = "Heroes", createdAt?: Date) {
  const [post] = await getDb()
    .insert(posts)
    .values({ authorId, kind: "track", title, artist: "David Bowie", createdAt })
    .returning({ id: posts.id });
  if (!post) throw new Error("no post");
  return post.id;
}

/** Inserts `n` comments on `postId` by `userId`, one millisecond apart (oldest first). */
export async function insertComments(postId: string, userId: string, n: number) {
  if (n === 0) return [];
  const base = Date.now() - n * 1000;
  return getDb()
    .insert(comments)
    .values(
      Array.from({ length: n }, (_, i) => ({
        postId,
        userId,
        content: `Comment ${i + 1}`,
        createdAt: new Date(base + i),
      })),
    )
    .returning({ commentId: comments.commentId, content: comments.content });
}
