import {
  Accept,
  type Activity,
  Block,
  type Context,
  Create,
  Delete,
  Follow,
  Like,
  Note,
  PUBLIC_COLLECTION,
  Reject,
  Tombstone,
  Undo,
  Update,
} from "@fedify/fedify";
import { Temporal } from "@js-temporal/polyfill";
import { eq } from "drizzle-orm";
import { FEDERATION_EVENT_KIND, type FederationEvent } from "~/core/federation-events.server";
import { defineJob, PermanentJobError } from "~/core/jobs/index.server";
import { getDb } from "~/db/client.server";
import { comments, posts, remoteComments, remotePosts } from "~/db/schema";
import { getEnv } from "~/lib/env.server";
import { queueDeliveries } from "./deliver.server";
import { federationContext, localActorDocument } from "./federation.server";
import { followKey, hasFollowOrRequest } from "./inbound-social.server";
import { DatabaseKvStore } from "./kv.server";
import { loadLocalPost, postToNote, postUri } from "./notes.server";
import {
  findRemotePerson,
  localUsernameOf,
  type RemotePerson,
  remoteFollowerInboxes,
} from "./remote.server";

const kv = new DatabaseKvStore();

/** The id of the `Follow` a local person sends a remote one (it names both). */
export function followId(ctx: Context<void>, username: string, remoteUserId: string): URL {
  return new URL(`/u/${username}#follows/${remoteUserId}`, ctx.canonicalOrigin);
}

function likeActivity(
  ctx: Context<void>,
  username: string,
  postId: string,
  objectUri: string,
): Like {
  return new Like({
    id: new URL(`/u/${username}#likes/${postId}`, ctx.canonicalOrigin),
    actor: ctx.getActorUri(username),
    object: new URL(objectUri),
  });
}

async function remotePostUri(postId: string): Promise<string | null> {
  const [row] = await getDb()
    .select({ uri: remotePosts.objectUri })
    .from(remotePosts)
    .where(eq(remotePosts.postId, postId));
  return row?.uri ?? null;
}

async function send(ctx: Context<void>, sender: string, inboxes: string[], activity: Activity) {
  await queueDeliveries(getDb(), ctx, { sender, inboxes, activity });
}

/** A local person's follow request to a remote person, as the `Follow` we send. */
function followOf(ctx: Context<void>, username: string, remote: RemotePerson): Follow {
  return new Follow({
    id: followId(ctx, username, remote.userId),
    actor: ctx.getActorUri(username),
    object: new URL(remote.actorUri),
  });
}

/** Decides what activity an event sends, and queues its deliveries (one job per inbox). */
export async function federateEvent(event: FederationEvent): Promise<void> {
  const ctx = federationContext();
  const db = getDb();
  switch (event.type) {
    case "postCreated":
    case "postUpdated": {
      const username = await localUsernameOf(db, event.authorId);
      if (!username) return;
      const inboxes = await remoteFollowerInboxes(db, event.authorId);
      const post = await loadLocalPost(db, event.postId);
      if (!post) return;
      if (post.audience === "only_me") {
        // Never leaves the server; one that became only-me is taken back.
        if (event.type === "postUpdated") {
          await send(ctx, username, inboxes, deleteOf(ctx, username, post.id));
        }
        return;
      }
      const note = postToNote(ctx, post);
      const stamp = (post.editedAt ?? post.createdAt).getTime();
      const activity =
        event.type === "postCreated"
          ? new Create({
              id: new URL(`/post/${post.id}#create`, ctx.canonicalOrigin),
              actor: ctx.getActorUri(username),
              object: note,
              published: note.published,
              tos: note.toIds,
              ccs: note.ccIds,
            })
          : new Update({
              id: new URL(`/post/${post.id}#update-${stamp}`, ctx.canonicalOrigin),
              actor: ctx.getActorUri(username),
              object: note,
              updated: Temporal.Instant.fromEpochMilliseconds(stamp),
              tos: note.toIds,
              ccs: note.ccIds,
            });
      await send(ctx, username, inboxes, activity);
      return;
    }
    case "profileUpdated": {
      // Their name, bio, picture or approval setting changed: followers elsewhere get the
      // actor document again (Mastodon updates a profile only from an embedded Person).
      const username = await localUsernameOf(db, event.userId);
      if (!username) return;
      const person = await localActorDocument(ctx, username);
      if (!person) return;
      const inboxes = await remoteFollowerInboxes(db, event.userId);
      await send(
        ctx,
        username,
        inboxes,
        new Update({
          id: new URL(`/u/${username}#updates/${Date.now()}`, ctx.canonicalOrigin),
          actor: ctx.getActorUri(username),
          object: person,
          tos: [PUBLIC_COLLECTION],
          ccs: [ctx.getFollowersUri(username)],
        }),
      );
      return;
    }
    case "postDeleted": {
      const username = await localUsernameOf(db, event.authorId);
      if (!username) return;
      const inboxes = await remoteFollowerInboxes(db, event.authorId);
      await send(ctx, username, inboxes, deleteOf(ctx, username, event.postId));
      return;
    }
    case "postLiked":
    case "postUnliked": {
      const username = await localUsernameOf(db, event.likerId);
      const author = await findRemotePerson(db, event.authorId);
      const objectUri = await remotePostUri(event.postId);
      if (!username || !author || !objectUri) return;
      const like = likeActivity(ctx, username, event.postId, objectUri);
      const activity =
        event.type === "postLiked"
          ? like
          : new Undo({
              id: new URL(
                `/u/${username}#unlikes/${event.postId}/${Date.now()}`,
                ctx.canonicalOrigin,
              ),
              actor: ctx.getActorUri(username),
              object: like,
            });
      await send(ctx, username, [author.inbox], activity);
      return;
    }
    case "commentAdded": {
      const username = await localUsernameOf(db, event.commenterId);
      if (!username) return;
      const author = await findRemotePerson(db, event.authorId);
      const replyToAuthor = event.replyToAuthorId
        ? await findRemotePerson(db, event.replyToAuthorId)
        : null;
      if (!author && !replyToAuthor) return;
      const [comment] = await db
        .select({ content: comments.content, createdAt: comments.createdAt })
        .from(comments)
        .where(eq(comments.commentId, event.commentId));
      if (!comment) return;
      // What it answers: the remote comment when it answers one, else the post.
      let inReplyTo: string | null = null;
      if (event.replyToId) {
        const [parent] = await db
          .select({ uri: remoteComments.objectUri })
          .from(remoteComments)
          .where(eq(remoteComments.commentId, event.replyToId));
        inReplyTo = parent?.uri ?? null;
      }
      inReplyTo ??= (await remotePostUri(event.postId)) ?? postUri(ctx, event.postId).href;
      const [post] = await db
        .select({ audience: posts.audience })
        .from(posts)
        .where(eq(posts.id, event.postId));
      const recipients = [author, replyToAuthor].filter((p): p is RemotePerson => p !== null);
      const isPublic = post?.audience === "everyone";
      const escaped = comment.content
        .replace(/&/g, "&amp;")
        .replace(/</g, "&lt;")
        .replace(/>/g, "&gt;");
      const note = new Note({
        id: new URL(`/ap/comments/${event.commentId}`, ctx.canonicalOrigin),
        attribution: ctx.getActorUri(username),
        content: `<p>${escaped.replace(/\n/g, "<br>")}</p>`,
        replyTarget: new URL(inReplyTo),
        published: Temporal.Instant.from(comment.createdAt.toISOString()),
        tos: recipients.map((r) => new URL(r.actorUri)),
        ccs: isPublic ? [PUBLIC_COLLECTION] : [],
      });
      await send(
        ctx,
        username,
        recipients.map((r) => r.inbox),
        new Create({
          id: new URL(`/ap/comments/${event.commentId}#create`, ctx.canonicalOrigin),
          actor: ctx.getActorUri(username),
          object: note,
          tos: note.toIds,
          ccs: note.ccIds,
        }),
      );
      return;
    }
    case "followRequested": {
      const username = await localUsernameOf(db, event.requesterId);
      const target = await findRemotePerson(db, event.targetId);
      if (!username || !target) return;
      await send(ctx, username, [target.inbox], followOf(ctx, username, target));
      return;
    }
    case "followAccepted":
    case "followRequestClosed": {
      // A local person answers a remote follower's request.
      const requester = await findRemotePerson(db, event.requesterId);
      const localTarget = await localUsernameOf(db, event.targetId);
      if (requester && localTarget) {
        const following = await hasFollowOrRequest(event.requesterId, event.targetId);
        if (event.type === "followRequestClosed" && following) return;
        const id = await kv.get<string>(followKey(requester.userId, event.targetId));
        const follow = new Follow({
          id: id ? new URL(id) : null,
          actor: new URL(requester.actorUri),
          object: ctx.getActorUri(localTarget),
        });
        const values = {
          id: new URL(
            `/u/${localTarget}#${event.type === "followAccepted" ? "accepts" : "rejects"}/${requester.userId}/${Date.now()}`,
            ctx.canonicalOrigin,
          ),
          actor: ctx.getActorUri(localTarget),
          object: follow,
        };
        await send(
          ctx,
          localTarget,
          [requester.inbox],
          event.type === "followAccepted" ? new Accept(values) : new Reject(values),
        );
        return;
      }
      // A local person withdrew their request to follow a remote one.
      const target = await findRemotePerson(db, event.targetId);
      const localRequester = await localUsernameOf(db, event.requesterId);
      if (event.type === "followRequestClosed" && target && localRequester) {
        if (await hasFollowOrRequest(event.requesterId, event.targetId)) return;
        await send(ctx, localRequester, [target.inbox], undoFollow(ctx, localRequester, target));
      }
      return;
    }
    case "userUnfollowed": {
      const username = await localUsernameOf(db, event.followerId);
      const target = await findRemotePerson(db, event.followeeId);
      if (!username || !target) return;
      await send(ctx, username, [target.inbox], undoFollow(ctx, username, target));
      return;
    }
    case "userBlocked": {
      const username = await localUsernameOf(db, event.blockerId);
      const target = await findRemotePerson(db, event.blockedId);
      if (!username || !target) return;
      await send(
        ctx,
        username,
        [target.inbox],
        new Block({
          id: new URL(`/u/${username}#blocks/${target.userId}/${Date.now()}`, ctx.canonicalOrigin),
          actor: ctx.getActorUri(username),
          object: new URL(target.actorUri),
        }),
      );
      return;
    }
    default:
      return;
  }
}

function undoFollow(ctx: Context<void>, username: string, target: RemotePerson): Undo {
  return new Undo({
    id: new URL(`/u/${username}#unfollows/${target.userId}/${Date.now()}`, ctx.canonicalOrigin),
    actor: ctx.getActorUri(username),
    object: followOf(ctx, username, target),
  });
}

function deleteOf(ctx: Context<void>, username: string, postId: string): Delete {
  return new Delete({
    id: new URL(`/post/${postId}#delete`, ctx.canonicalOrigin),
    actor: ctx.getActorUri(username),
    object: new Tombstone({ id: postUri(ctx, postId) }),
    tos: [PUBLIC_COLLECTION],
  });
}

/** Turns a queued event into deliveries (see `federateEvent`). */
export const federationEventJob = defineJob<Record<string, unknown>>({
  kind: FEDERATION_EVENT_KIND,
  concurrency: 2,
  maxAttempts: 5,
  parse(payload) {
    if (!payload || typeof (payload as { type?: unknown }).type !== "string") {
      throw new PermanentJobError("an event without a type");
    }
    return payload as Record<string, unknown>;
  },
  async run(job) {
    if (!getEnv().FEDERATION) return undefined;
    await federateEvent(job.payload as unknown as FederationEvent);
    return undefined;
  },
});
