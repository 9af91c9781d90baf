import {
  Accept,
  Activity,
  type Block,
  Follow,
  type InboxContext,
  Like,
  Reject,
  type Undo,
} from "@fedify/fedify";
import { and, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { followRequests, follows, profiles } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import { removeAuthorFromTimeline } from "~/features/feed/index.server";
import {
  acceptFollowRequest,
  cancelFollowRequest,
  followUser,
  unfollowUser,
} from "~/features/follows/index.server";
import { likePost, unlikePost } from "~/features/likes/index.server";
import { queueDeliveries } from "./deliver.server";
import { DatabaseKvStore } from "./kv.server";
import { findLocalPerson, type RemotePerson, remoteActorOf } from "./remote.server";

const kv = new DatabaseKvStore();

/** Where we remember the id of a remote person's `Follow` (an `Accept` names it later). */
export function followKey(remoteUserId: string, localUserId: string) {
  return ["soundtrail", "follow", remoteUserId, localUserId] as const;
}

/** The local person an actor URI of ours names, or null. */
async function localActor(ctx: InboxContext<void>, uri: URL | null) {
  if (!uri) return null;
  const parsed = ctx.parseUri(uri);
  if (parsed?.type !== "actor") return null;
  return findLocalPerson(parsed.identifier);
}

/** Our post an object URI names (`/post/{id}` on this server), or null. */
export function localPostId(
  ctx: InboxContext<void> | { canonicalOrigin: string },
  uri: URL | null,
): string | null {
  if (!uri || uri.origin !== new URL(ctx.canonicalOrigin).origin) return null;
  const match = /^\/post\/([0-9a-f-]{36})$/i.exec(uri.pathname);
  return match?.[1] ?? null;
}

/** Sends `activity` from `sender` to the remote person's inbox, as a durable job. */
async function reply(
  ctx: InboxContext<void>,
  sender: string,
  to: RemotePerson,
  activity: Accept | Reject,
) {
  await queueDeliveries(getDb(), ctx, { sender, inboxes: [to.inbox], activity });
}

function acceptFor(
  ctx: InboxContext<void>,
  username: string,
  follow: Follow,
  kind: "accept" | "reject",
) {
  const values = {
    id: new URL(`/u/${username}#${kind}s/${crypto.randomUUID()}`, ctx.canonicalOrigin),
    actor: ctx.getActorUri(username),
    object: new Follow({ id: follow.id, actor: follow.actorId, object: follow.objectId }),
  };
  return kind === "accept" ? new Accept(values) : new Reject(values);
}

/**
 * A remote `Follow` of a local person: a follower (an `Accept` goes back at once), or a follow
 * request when they approve their followers (the `Accept` goes when they accept, see
 * outbound.server.ts), or a `Reject` across a block. The same notifications as a local follow.
 */
export async function inboundFollow(ctx: InboxContext<void>, follow: Follow): Promise<void> {
  if (!follow.id) return;
  const target = await localActor(ctx, follow.objectId);
  if (!target) return;
  const remote = await remoteActorOf(ctx, follow);
  if (!remote) return;
  await kv.set(followKey(remote.userId, target.userId), follow.id.href);
  try {
    const state = await followUser({ viewerId: remote.userId, targetId: target.userId });
    if (state.following)
      await reply(ctx, target.username, remote, acceptFor(ctx, target.username, follow, "accept"));
  } catch (error) {
    if (error instanceof AppError) {
      await reply(ctx, target.username, remote, acceptFor(ctx, target.username, follow, "reject"));
      return;
    }
    throw error;
  }
}

/** The local person who sent the `Follow` an `Accept`/`Reject` answers, or null. */
async function followerOf(ctx: InboxContext<void>, answer: Accept | Reject) {
  const object = await answer.getObject({ documentLoader: ctx.documentLoader }).catch(() => null);
  if (object instanceof Follow) return localActor(ctx, object.actorId);
  // Only the id came: ours are /u/{username}#follows/… (outbound.server.ts).
  const id = answer.objectId;
  if (!id || id.origin !== new URL(ctx.canonicalOrigin).origin) return null;
  const match = /^\/u\/([^/]+)$/.exec(id.pathname);
  return match?.[1] && id.hash.startsWith("#follows/")
    ? findLocalPerson(decodeURIComponent(match[1]))
    : null;
}

/** Their server accepted a local person's follow: the request becomes a follow. */
export async function inboundAccept(ctx: InboxContext<void>, accept: Accept): Promise<void> {
  const local = await followerOf(ctx, accept);
  if (!local) return;
  const remote = await remoteActorOf(ctx, accept);
  if (!remote) return;
  try {
    await acceptFollowRequest({ viewerId: remote.userId, requesterId: local.userId });
  } catch (error) {
    // No request waits (accepted before, or withdrawn): nothing to do.
    if (!(error instanceof AppError)) throw error;
  }
}

/** Their server refused (or ended) a local person's follow. */
export async function inboundReject(ctx: InboxContext<void>, reject: Reject): Promise<void> {
  const local = await followerOf(ctx, reject);
  if (!local) return;
  const remote = await remoteActorOf(ctx, reject);
  if (!remote) return;
  await cancelFollowRequest({ viewerId: local.userId, targetId: remote.userId });
  await getDb().transaction(async (tx) => {
    await tx
      .delete(follows)
      .where(and(eq(follows.followerId, local.userId), eq(follows.followeeId, remote.userId)));
    await removeAuthorFromTimeline(tx, { userId: local.userId, authorId: remote.userId });
  });
}

/** `Undo` of their `Follow` or `Like` (the undone activity must be theirs). */
export async function inboundUndo(ctx: InboxContext<void>, undo: Undo): Promise<void> {
  const object = await undo.getObject({ documentLoader: ctx.documentLoader }).catch(() => null);
  if (!(object instanceof Activity)) return;
  if (object.actorId?.href !== undo.actorId?.href) return;
  const remote = await remoteActorOf(ctx, undo);
  if (!remote) return;
  if (object instanceof Follow) {
    const target = await localActor(ctx, object.objectId);
    if (!target) return;
    await unfollowUser({ viewerId: remote.userId, targetId: target.userId });
    await cancelFollowRequest({ viewerId: remote.userId, targetId: target.userId });
    await kv.delete(followKey(remote.userId, target.userId));
  } else if (object instanceof Like) {
    const postId = localPostId(ctx, object.objectId);
    if (!postId) return;
    await unlikePost({ viewerId: remote.userId, postId }).catch((error) => {
      if (!(error instanceof AppError)) throw error;
    });
  }
}

/** A remote person blocks a local one: a block row (follows both ways end). */
export async function inboundBlock(ctx: InboxContext<void>, block: Block): Promise<void> {
  const target = await localActor(ctx, block.objectId);
  if (!target) return;
  const remote = await remoteActorOf(ctx, block);
  if (!remote) return;
  await blockUser({ viewerId: remote.userId, targetId: target.userId }).catch((error) => {
    if (!(error instanceof AppError)) throw error;
  });
}

/** A remote `Like` of a local post: a like like any other (notification included). */
export async function inboundLike(ctx: InboxContext<void>, like: Like): Promise<void> {
  const postId = localPostId(ctx, like.objectId);
  if (!postId) return;
  const remote = await remoteActorOf(ctx, like);
  if (!remote) return;
  await likePost({ viewerId: remote.userId, postId }).catch((error) => {
    // A post they may not see (followers-only, blocked) or gone: nothing happens.
    if (!(error instanceof AppError)) throw error;
    logger.info({ postId, actor: remote.actorUri }, "federation: a like of a post they cannot see");
  });
}

/** Is there a pending follow request (or a follow) from `requesterId` to `targetId`? */
export async function hasFollowOrRequest(requesterId: string, targetId: string): Promise<boolean> {
  const [row] = await getDb()
    .select({
      ok: sql<boolean>`exists (select 1 from ${followRequests} where requester_id = ${requesterId} and target_id = ${targetId})
        or exists (select 1 from ${follows} where follower_id = ${requesterId} and followee_id = ${targetId})`,
    })
    .from(profiles)
    .where(eq(profiles.userId, targetId));
  return Boolean(row?.ok);
}
