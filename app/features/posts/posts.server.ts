import { and, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { queueFederationEvent } from "~/core/federation-events.server";
import { isUuid } from "~/core/ids";
import { POST_NOT_FOUND } from "~/core/visibility.server";
import { getDb, type Tx } from "~/db/client.server";
import { media, posts, profiles } from "~/db/schema";
import { fanOutPost, refanOutPost } from "~/features/feed/index.server";
import { type ProcessedImage, storeImage } from "~/features/media/index.server";
import { recordSocialEvent } from "~/features/notifications/index.server";
import { requestUnfurl } from "~/features/unfurl/index.server";
import type { Audience } from "./constants";
import { mentionedUsernames } from "./note";
import { type PostCardData, selectPostCards } from "./post-cards.server";
import type { PostInput } from "./schemas";

export interface CreatePostOptions {
  viewerId: string;
  input: PostInput;
  image?: ProcessedImage | null;
  /**
   * The id the author's browser chose for the post (its idempotency key, ADR 037): sending the
   * same post again after a lost answer finds the first one instead of posting it twice.
   */
  clientId?: string | null;
}

/**
 * Creates a post (and its image) and fans it out to the timelines, in one transaction. Without
 * an audience in the input, the author's default audience from privacy settings applies.
 */
export async function createPost(options: CreatePostOptions): Promise<{ id: string }> {
  const { viewerId } = options;
  const clientId = options.clientId || null;
  if (clientId !== null && !isUuid(clientId)) {
    throw new AppError("invalid", "This post's key is not valid. Reload the page and try again.");
  }
  const created = await getDb().transaction(async (tx) => {
    if (clientId) {
      const existing = await existingPostFor(tx, clientId, viewerId);
      if (existing) return { id: existing, fanOut: "inline" as const };
    }
    let audience = options.input.audience;
    if (!audience) {
      const [author] = await tx
        .select({ defaultAudience: profiles.defaultAudience })
        .from(profiles)
        .where(eq(profiles.userId, viewerId));
      audience = author?.defaultAudience ?? "everyone";
    }
    const input = { ...options.input, audience };
    const mediaId = options.image
      ? await storeImage(tx, { ownerId: viewerId, image: options.image })
      : null;
    const [row] = await tx
      .insert(posts)
      .values({
        ...(clientId ? { id: clientId } : {}),
        authorId: viewerId,
        ...postColumns(input),
        mediaId,
      })
      // Two sends of the same post racing: the second waits for the first and finds it.
      .onConflictDoNothing({ target: posts.id })
      .returning({ id: posts.id, createdAt: posts.createdAt });
    if (!row) {
      const existing = clientId ? await existingPostFor(tx, clientId, viewerId) : null;
      if (existing) return { id: existing, fanOut: "inline" as const };
      throw new Error("post insert returned nothing");
    }
    const fanOut = await fanOutPost(tx, {
      id: row.id,
      authorId: viewerId,
      createdAt: row.createdAt,
      audience: input.audience,
    });
    await recordSocialEvent(tx, {
      type: "postCreated",
      postId: row.id,
      authorId: viewerId,
      mentions: mentionedUsernames(input.note),
      // A queued fan-out announces the post itself, once every follower's timeline has it.
      announce: fanOut === "inline",
    });
    await requestUnfurl(tx, input.linkUrl);
    return { id: row.id, fanOut };
  });
  return { id: created.id };
}

/**
 * The viewer's post with this client-chosen id (a repeated send), null when there is none; an
 * id somebody else's post holds is refused rather than answered with their post.
 */
async function existingPostFor(tx: Tx, id: string, viewerId: string): Promise<string | null> {
  const [row] = await tx.select({ authorId: posts.authorId }).from(posts).where(eq(posts.id, id));
  if (!row) return null;
  if (row.authorId !== viewerId) {
    throw new AppError("conflict", "This post's key is taken. Reload the page and try again.");
  }
  return id;
}

/** A post's columns from the form's input (its audience already resolved). */
function postColumns(input: PostInput & { audience: Audience }) {
  return {
    kind: input.kind,
    title: input.title,
    artist: input.artist ?? null,
    album: input.album ?? null,
    linkUrl: input.linkUrl ?? null,
    note: input.note,
    mood: input.mood ?? null,
    audience: input.audience,
  };
}

/** The post as the viewer may see it, or null (unknown, malformed or hidden id alike). */
export async function getPost(options: {
  viewerId: string | null;
  postId: string;
}): Promise<PostCardData | null> {
  if (!isUuid(options.postId)) return null;
  const page = await selectPostCards({
    viewerId: options.viewerId,
    source: { kind: "post", postId: options.postId },
    limit: 1,
  });
  return page.posts[0] ?? null;
}

/** The viewer's own post for editing; anybody else's is "not found". */
export async function getOwnPost(options: {
  viewerId: string;
  postId: string;
}): Promise<PostCardData> {
  const post = await getPost(options);
  if (!post || post.author.id !== options.viewerId) throw new AppError("not_found", POST_NOT_FOUND);
  return post;
}

export interface UpdatePostOptions {
  viewerId: string;
  postId: string;
  input: PostInput;
  /** A new image replaces the old one. */
  image?: ProcessedImage | null;
  removeImage?: boolean;
}

/** Edits the viewer's own post; an audience change re-targets the timelines in the same transaction. */
export async function updatePost(options: UpdatePostOptions): Promise<void> {
  const { viewerId, postId } = options;
  if (!isUuid(postId)) throw new AppError("not_found", POST_NOT_FOUND);
  await getDb().transaction(async (tx) => {
    const [current] = await tx
      .select({ audience: posts.audience, mediaId: posts.mediaId, createdAt: posts.createdAt })
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.authorId, viewerId)))
      .for("update");
    if (!current) throw new AppError("not_found", POST_NOT_FOUND);
    const input = { ...options.input, audience: options.input.audience ?? current.audience };
    let mediaId = current.mediaId;
    if (options.image) {
      mediaId = await storeImage(tx, { ownerId: viewerId, image: options.image });
    } else if (options.removeImage) {
      mediaId = null;
    }
    await tx
      .update(posts)
      .set({ ...postColumns(input), mediaId, editedAt: sql`now()` })
      .where(eq(posts.id, postId));
    if (current.mediaId && current.mediaId !== mediaId) {
      await tx.delete(media).where(eq(media.id, current.mediaId));
    }
    await requestUnfurl(tx, input.linkUrl);
    // Other servers that have the post get the edit (`Update`, or `Delete` once it is only-me).
    await queueFederationEvent(tx, { type: "postUpdated", postId, authorId: viewerId });
    if (current.audience !== input.audience) {
      await refanOutPost(tx, {
        id: postId,
        authorId: viewerId,
        createdAt: current.createdAt,
        audience: input.audience,
      });
    }
  });
}

/**
 * Deletes the viewer's own post. Its likes, comments, reports and timeline rows go with it
 * (foreign-key cascades), its image too; notifications hook in through `recordSocialEvent`.
 */
export async function deletePost(options: { viewerId: string; postId: string }): Promise<void> {
  if (!isUuid(options.postId)) throw new AppError("not_found", POST_NOT_FOUND);
  await getDb().transaction(async (tx) => {
    const [deleted] = await tx
      .delete(posts)
      .where(and(eq(posts.id, options.postId), eq(posts.authorId, options.viewerId)))
      .returning({ id: posts.id, mediaId: posts.mediaId });
    if (!deleted) throw new AppError("not_found", POST_NOT_FOUND);
    if (deleted.mediaId) await tx.delete(media).where(eq(media.id, deleted.mediaId));
    await recordSocialEvent(tx, {
      type: "postDeleted",
      postId: deleted.id,
      authorId: options.viewerId,
    });
  });
}

export const SUGGEST_FIELDS = ["title", "artist", "album"] as const;
export type SuggestField = (typeof SUGGEST_FIELDS)[number];

/**
 * Composer autocomplete: distinct titles, artists or albums already posted here that start
 * with `prefix` (case-insensitive), most posted first. Only public posts and the viewer's own
 * count, so a private post's title never leaks.
 */
export async function suggestMusic(options: {
  viewerId: string;
  field: SuggestField;
  prefix: string;
  limit?: number;
}): Promise<string[]> {
  const prefix = options.prefix.trim().toLowerCase().slice(0, 100);
  if (!prefix) return [];
  const column = { title: posts.title, artist: posts.artist, album: posts.album }[options.field];
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await getDb()
    .select({ value: sql<string>`min(${column})` })
    .from(posts)
    .where(
      and(
        sql`lower(${column}) like ${pattern}`,
        sql`(${posts.audience} = 'everyone' or ${posts.authorId} = ${options.viewerId})`,
      ),
    )
    .groupBy(sql`lower(${column})`)
    .orderBy(sql`count(*) desc`, sql`lower(${column})`)
    .limit(Math.min(options.limit ?? 8, 20));
  return rows.map((r) => r.value);
}
