import {
  type Create,
  type Delete,
  type InboxContext,
  isActor,
  Link,
  Note,
  PropertyValue,
  PUBLIC_COLLECTION,
  type Update,
} from "@fedify/fedify";
import { and, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { getDb, rowsOf } from "~/db/client.server";
import { comments, posts, remoteActors, remoteComments, remotePosts, user } from "~/db/schema";
import { POST_KINDS, type PostKind } from "~/db/schema/enums";
import { addComment } from "~/features/comments/index.server";
import { fanOutPost } from "~/features/feed/index.server";
import { recordSocialEvent } from "~/features/notifications/index.server";
import { localPostId } from "./inbound-social.server";
import {
  findRemoteByUri,
  type RemotePerson,
  remoteActorOf,
  upsertRemoteActor,
} from "./remote.server";
import { htmlToText, sanitizeRemoteHtml } from "./sanitize.server";

/** What our post columns hold of a remote Note. */
interface NoteFields {
  kind: PostKind;
  title: string;
  artist: string | null;
  album: string | null;
  linkUrl: string | null;
  mood: string | null;
  note: string;
  contentHtml: string;
  audience: "everyone" | "followers";
}

function isHttpUrl(url: URL | null | undefined): url is URL {
  return Boolean(url && (url.protocol === "https:" || url.protocol === "http:"));
}

/**
 * Reads a Note: a Soundtrail note's music fields from its `soundtrail:*` PropertyValues (its
 * first paragraph, the music line, is not repeated in the note); any other server's note
 * (Mastodon …) becomes a track post titled by its first words. The HTML is sanitised with the
 * allow-list; the stored note is its plain text (cards render text, never markup).
 */
async function noteFields(ctx: InboxContext<void>, note: Note): Promise<NoteFields> {
  const props = new Map<string, string>();
  let linkUrl: string | null = null;
  for await (const attachment of note.getAttachments({ documentLoader: ctx.documentLoader })) {
    if (attachment instanceof PropertyValue) {
      const name = attachment.name?.toString() ?? "";
      const value = attachment.value?.toString() ?? "";
      if (name.startsWith("soundtrail:")) props.set(name.slice("soundtrail:".length), value);
    } else if (attachment instanceof Link && isHttpUrl(attachment.href) && !linkUrl) {
      linkUrl = attachment.href.href;
    }
  }
  const rawHtml = note.content?.toString() ?? "";
  const contentHtml = sanitizeRemoteHtml(rawHtml);
  const isSoundtrail = props.has("title");
  // A Soundtrail note's first paragraph is its music line (🎵 …), shown as the card instead.
  const body = isSoundtrail ? rawHtml.replace(/^\s*<p>🎵[\s\S]*?<\/p>/u, "") : rawHtml;
  const text = htmlToText(body);
  const firstLine = (text.split("\n").find((line) => line.trim() !== "") ?? "").trim();
  const kindProp = props.get("kind") as PostKind | undefined;
  const audience = [...note.toIds, ...note.ccIds].some((id) => id.href === PUBLIC_COLLECTION.href)
    ? "everyone"
    : "followers";
  return {
    kind: kindProp && POST_KINDS.includes(kindProp) ? kindProp : "track",
    title: (props.get("title") || note.name?.toString() || firstLine || "A note").slice(0, 200),
    artist: props.get("artist")?.slice(0, 200) || null,
    album: props.get("album")?.slice(0, 200) || null,
    linkUrl: linkUrl?.slice(0, 2000) ?? null,
    mood: props.get("mood")?.slice(0, 50) || null,
    note: text.slice(0, 2000),
    contentHtml,
    audience,
  };
}

/** Does any local person follow this remote one (so their posts have readers here)? */
async function hasLocalFollowers(remote: RemotePerson): Promise<boolean> {
  const [row] = rowsOf<{ ok: boolean }>(
    await getDb().execute(sql`
      select exists (
        select 1 from follows f
        where f.followee_id = ${remote.userId}
          and not exists (select 1 from ${remoteActors} r where r.user_id = f.follower_id)
      ) as ok`),
  );
  return Boolean(row?.ok);
}

/**
 * `Create` of a `Note`: a reply to one of our posts (or to a remote post stored here) becomes a
 * comment, notified like a local one; a post of someone local people follow is stored and
 * reaches their home feeds. The Note's author must be the activity's actor. The same Note
 * twice changes nothing.
 */
export async function handleInboundCreate(ctx: InboxContext<void>, create: Create): Promise<void> {
  const object = await create.getObject({ documentLoader: ctx.documentLoader });
  if (!(object instanceof Note) || !object.id) return;
  if (object.attributionId?.href !== create.actorId?.href) return;
  const remote = await remoteActorOf(ctx, create);
  if (!remote) return;
  const replyTarget = object.replyTargetId;
  if (replyTarget) {
    await storeReply(ctx, remote, object, replyTarget);
    return;
  }
  const [known] = await getDb()
    .select({ postId: remotePosts.postId })
    .from(remotePosts)
    .where(eq(remotePosts.objectUri, object.id.href));
  if (known) return;
  if (!(await hasLocalFollowers(remote))) return;
  const fields = await noteFields(ctx, object);
  const published = object.published ? new Date(object.published.epochMilliseconds) : new Date();
  const createdAt = published.getTime() > Date.now() ? new Date() : published;
  await getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(posts)
      .values({
        authorId: remote.userId,
        kind: fields.kind,
        title: fields.title,
        artist: fields.artist,
        album: fields.album,
        linkUrl: fields.linkUrl,
        note: fields.note,
        mood: fields.mood,
        audience: fields.audience,
        createdAt,
      })
      .returning({ id: posts.id, createdAt: posts.createdAt });
    if (!row) throw new Error("post insert returned nothing");
    const inserted = await tx
      .insert(remotePosts)
      .values({
        postId: row.id,
        objectUri: object.id?.href ?? "",
        contentHtml: fields.contentHtml,
        url: object.url instanceof URL ? object.url.href : null,
      })
      .onConflictDoNothing()
      .returning({ postId: remotePosts.postId });
    if (inserted.length === 0) {
      // Another delivery of the same Note won the race: this copy goes.
      await tx.delete(posts).where(eq(posts.id, row.id));
      return;
    }
    const fanOut = await fanOutPost(tx, {
      id: row.id,
      authorId: remote.userId,
      createdAt: row.createdAt,
      audience: fields.audience,
    });
    await recordSocialEvent(tx, {
      type: "postCreated",
      postId: row.id,
      authorId: remote.userId,
      mentions: [],
      announce: fanOut === "inline",
    });
  });
}

/** A remote reply: a comment on our post, or on a remote post stored here. */
async function storeReply(ctx: InboxContext<void>, remote: RemotePerson, note: Note, target: URL) {
  if (!note.id) return;
  const [known] = await getDb()
    .select({ id: remoteComments.commentId })
    .from(remoteComments)
    .where(eq(remoteComments.objectUri, note.id.href));
  if (known) return;
  let postId = localPostId(ctx, target);
  if (!postId) {
    const [stored] = await getDb()
      .select({ postId: remotePosts.postId })
      .from(remotePosts)
      .where(eq(remotePosts.objectUri, target.href));
    postId = stored?.postId ?? null;
  }
  let replyToId: string | null = null;
  if (!postId) {
    // A reply to a reply: the comment it answers, and that comment's post.
    const [parent] = await getDb()
      .select({ commentId: remoteComments.commentId, postId: comments.postId })
      .from(remoteComments)
      .innerJoin(comments, eq(comments.commentId, remoteComments.commentId))
      .where(eq(remoteComments.objectUri, target.href));
    const ours = /\/ap\/comments\/([0-9a-f-]{36})$/i.exec(target.pathname);
    if (parent) {
      postId = parent.postId;
      replyToId = parent.commentId;
    } else if (ours?.[1] && target.origin === new URL(ctx.canonicalOrigin).origin) {
      const [comment] = await getDb()
        .select({ postId: comments.postId })
        .from(comments)
        .where(eq(comments.commentId, ours[1]));
      postId = comment?.postId ?? null;
      replyToId = comment ? ours[1] : null;
    }
  }
  if (!postId) return;
  const content = htmlToText(note.content?.toString() ?? "").slice(0, 1000);
  if (!content) return;
  try {
    const { id } = await addComment({ viewerId: remote.userId, postId, content, replyToId });
    await getDb()
      .insert(remoteComments)
      .values({ commentId: id, objectUri: note.id.href })
      .onConflictDoNothing();
  } catch (error) {
    // A post they may not see, or a block: the reply is not stored.
    if (!(error instanceof AppError)) throw error;
  }
}

/** `Update` of their Note (the stored post follows) or of their actor (the profile follows). */
export async function handleInboundUpdate(ctx: InboxContext<void>, update: Update): Promise<void> {
  const object = await update.getObject({ documentLoader: ctx.documentLoader });
  if (!object?.id) return;
  if (isActor(object)) {
    if (object.id.href !== update.actorId?.href) return;
    await upsertRemoteActor(object);
    return;
  }
  if (!(object instanceof Note) || object.attributionId?.href !== update.actorId?.href) return;
  const remote = await findRemoteByUri(getDb(), update.actorId?.href ?? "");
  if (!remote) return;
  const [stored] = await getDb()
    .select({ postId: remotePosts.postId })
    .from(remotePosts)
    .innerJoin(posts, eq(posts.id, remotePosts.postId))
    .where(and(eq(remotePosts.objectUri, object.id.href), eq(posts.authorId, remote.userId)));
  if (!stored) return;
  const fields = await noteFields(ctx, object);
  await getDb().transaction(async (tx) => {
    await tx
      .update(posts)
      .set({
        kind: fields.kind,
        title: fields.title,
        artist: fields.artist,
        album: fields.album,
        linkUrl: fields.linkUrl,
        note: fields.note,
        mood: fields.mood,
        editedAt: sql`now()`,
      })
      .where(eq(posts.id, stored.postId));
    await tx
      .update(remotePosts)
      .set({ contentHtml: fields.contentHtml })
      .where(eq(remotePosts.postId, stored.postId));
  });
}

/**
 * `Delete` of their Note (a Tombstone or its id): the stored post or reply goes. `Delete` of
 * the actor itself: the remote person and all they left here go.
 */
export async function handleInboundDelete(ctx: InboxContext<void>, del: Delete): Promise<void> {
  const objectId = del.objectId;
  const actorId = del.actorId;
  if (!objectId || !actorId) return;
  const remote = await findRemoteByUri(getDb(), actorId.href);
  if (!remote) return;
  if (objectId.href === actorId.href) {
    await getDb().delete(user).where(eq(user.id, remote.userId));
    return;
  }
  await getDb().transaction(async (tx) => {
    const [stored] = await tx
      .select({ postId: remotePosts.postId })
      .from(remotePosts)
      .innerJoin(posts, eq(posts.id, remotePosts.postId))
      .where(and(eq(remotePosts.objectUri, objectId.href), eq(posts.authorId, remote.userId)));
    if (stored) {
      await tx.delete(posts).where(eq(posts.id, stored.postId));
      await recordSocialEvent(tx, {
        type: "postDeleted",
        postId: stored.postId,
        authorId: remote.userId,
      });
      return;
    }
    const [comment] = await tx
      .select({ commentId: remoteComments.commentId, postId: comments.postId })
      .from(remoteComments)
      .innerJoin(comments, eq(comments.commentId, remoteComments.commentId))
      .where(and(eq(remoteComments.objectUri, objectId.href), eq(comments.userId, remote.userId)));
    if (comment) {
      await tx.delete(comments).where(eq(comments.commentId, comment.commentId));
      await recordSocialEvent(tx, { type: "commentDeleted", postId: comment.postId });
    }
  });
  void ctx;
}
