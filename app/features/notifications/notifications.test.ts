import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { mailOutbox } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import { addComment, deleteComment } from "~/features/comments/index.server";
import { followUser, unfollowUser } from "~/features/follows/index.server";
import { likePost, unlikePost } from "~/features/likes/index.server";
import {
  createMailTransport,
  createUnsubscribeToken,
  deliverDueMail,
  readUnsubscribeToken,
  setMailTransport,
} from "~/features/mail/index.server";
import {
  listNotifications,
  markAllRead,
  markRead,
  notificationsAfter,
  unreadCount,
} from "~/features/notifications/inbox.server";
import { deletePost, updatePost } from "~/features/posts/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { startSmtpSink } from "../../../tests/support/smtp-sink";
import { createTestPost, postInput } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { describeNotification, notificationHref } from "./describe";
import {
  getNotificationPreferences,
  isSubscribedTo,
  setEmailPreference,
  setNotificationPreference,
} from "./preferences.server";

withTestDatabase();

async function inbox(userId: string) {
  return (await listNotifications({ viewerId: userId, limit: 50 })).notifications;
}

async function mailsTo(email: string) {
  return getDb().select().from(mailOutbox).where(eq(mailOutbox.toAddress, email));
}

describe("notification rules", () => {
  it("groups likes on one post, never notifies your own like, and an unlike takes it back", async () => {
    const ana = await createTestUser({ displayName: "Ana" });
    const ben = await createTestUser({ displayName: "Ben" });
    const cleo = await createTestUser({ displayName: "Cleo" });
    const dev = await createTestUser({ displayName: "Dev" });
    const post = await createTestPost(ana.id, { title: "Blue in Green" });

    await likePost({ viewerId: ana.id, postId: post });
    expect(await inbox(ana.id)).toEqual([]);

    await likePost({ viewerId: ben.id, postId: post });
    await likePost({ viewerId: cleo.id, postId: post });
    await likePost({ viewerId: dev.id, postId: post });
    let [like, ...rest] = await inbox(ana.id);
    expect(rest).toEqual([]);
    expect(like?.kind).toBe("like");
    expect(like?.actorCount).toBe(3);
    expect(like?.actors.map((a) => a.displayName)).toEqual(["Dev", "Cleo", "Ben"]);
    expect(like?.isRead).toBe(false);
    expect(like && describeNotification(like)).toBe(
      "Dev and 2 others liked your post “Blue in Green”",
    );
    expect(like && notificationHref(like)).toBe(`/post/${post}`);
    expect(await unreadCount(ana.id)).toBe(1);

    await unlikePost({ viewerId: dev.id, postId: post });
    [like] = await inbox(ana.id);
    expect(like?.actorCount).toBe(2);
    expect(like && describeNotification(like)).toBe("Cleo and Ben liked your post “Blue in Green”");

    await unlikePost({ viewerId: cleo.id, postId: post });
    await unlikePost({ viewerId: ben.id, postId: post });
    expect(await inbox(ana.id)).toEqual([]);
    expect(await unreadCount(ana.id)).toBe(0);
  });

  it("starts a new notification once the grouped one was read", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser({ displayName: "Ben" });
    const cleo = await createTestUser({ displayName: "Cleo" });
    const post = await createTestPost(ana.id);
    await likePost({ viewerId: ben.id, postId: post });
    await markAllRead(ana.id);
    expect(await unreadCount(ana.id)).toBe(0);
    await likePost({ viewerId: cleo.id, postId: post });
    const [newest, older] = await inbox(ana.id);
    expect(newest?.isRead).toBe(false);
    expect(newest?.actors.map((a) => a.displayName)).toEqual(["Cleo"]);
    expect(older?.isRead).toBe(true);
    expect(older?.actors.map((a) => a.displayName)).toEqual(["Ben"]);
    expect(await unreadCount(ana.id)).toBe(1);
  });

  it("tells the post's author of comments, a comment's author of replies, and each person of mentions — once each", async () => {
    const ana = await createTestUser({ displayName: "Ana" });
    const ben = await createTestUser({ displayName: "Ben" });
    const cleo = await createTestUser({ displayName: "Cleo", username: "cleo_mentions" });
    const post = await createTestPost(ana.id, { title: "So What" });

    const first = await addComment({ viewerId: ben.id, postId: post, content: "What a solo" });
    let [comment] = await inbox(ana.id);
    expect(comment?.kind).toBe("comment");
    expect(comment?.commentExcerpt).toBe("What a solo");
    expect(comment && notificationHref(comment)).toBe(`/post/${post}#comments`);

    // Ana answers Ben and mentions Cleo (and herself, which tells nobody).
    await addComment({
      viewerId: ana.id,
      postId: post,
      content: `@cleo_mentions listen to this, and @${ana.username}`,
      replyToId: first.id,
    });
    const [reply] = await inbox(ben.id);
    expect(reply?.kind).toBe("reply");
    expect(reply && describeNotification(reply)).toBe("Ana replied to your comment on “So What”");
    const [mention] = await inbox(cleo.id);
    expect(mention?.kind).toBe("mention");
    expect(mention && describeNotification(mention)).toBe("Ana mentioned you in “So What”");
    expect(await inbox(ana.id)).toHaveLength(1);

    // Ben replies to himself and mentions Ana, the post's author: one "comment" for Ana.
    await addComment({
      viewerId: ben.id,
      postId: post,
      content: `thanks @${ana.username}`,
      replyToId: first.id,
    });
    [comment] = await inbox(ana.id);
    expect(await inbox(ana.id)).toHaveLength(1);
    expect(comment?.actorCount).toBe(1);
    expect(comment?.commentExcerpt).toBe(`thanks @${ana.username}`);
    expect(await inbox(ben.id)).toHaveLength(1);
  });

  it("refuses a reply to a comment of another post", async () => {
    const ana = await createTestUser();
    const postA = await createTestPost(ana.id);
    const postB = await createTestPost(ana.id);
    const onA = await addComment({ viewerId: ana.id, postId: postA, content: "first" });
    await expect(
      addComment({ viewerId: ana.id, postId: postB, content: "x", replyToId: onA.id }),
    ).rejects.toThrow(/replying to/);
  });

  it("notifies mentions in a post only to people who may see it", async () => {
    const ana = await createTestUser({ displayName: "Ana" });
    const fan = await createTestUser({ username: "fan_of_ana" });
    const stranger = await createTestUser({ username: "a_stranger" });
    await followUser({ viewerId: fan.id, targetId: ana.id });
    await markAllRead(ana.id);
    await createTestPost(ana.id, {
      audience: "followers",
      note: "with @fan_of_ana and @a_stranger and @nobody_here",
    });
    await createTestPost(ana.id, { audience: "only_me", note: "@fan_of_ana secret" });
    const mentions = await inbox(fan.id);
    expect(mentions).toHaveLength(1);
    expect(mentions[0]?.kind).toBe("mention");
    expect(await inbox(stranger.id)).toEqual([]);
  });

  it("shows nothing of a post the recipient may no longer see, even after it was renamed", async () => {
    const ana = await createTestUser({ displayName: "Ana" });
    const fan = await createTestUser({ username: "fan_reader" });
    await followUser({ viewerId: fan.id, targetId: ana.id });
    const postId = await createTestPost(ana.id, {
      audience: "followers",
      title: "Old title",
      note: "hey @fan_reader",
    });
    await addComment({ viewerId: ana.id, postId, content: "secret words for @fan_reader" });
    expect((await inbox(fan.id)).map((n) => n.post?.title)).toContain("Old title");

    await updatePost({
      viewerId: ana.id,
      postId,
      input: postInput({ audience: "only_me", title: "Renamed in private", note: "hidden" }),
    });
    const seen = await inbox(fan.id);
    const after = await notificationsAfter({ recipientId: fan.id, afterSeq: 0 });
    for (const view of [...seen, ...after]) {
      expect(view.post).toBeNull();
      expect(view.commentExcerpt).toBeNull();
    }
    expect(JSON.stringify([seen, after])).not.toMatch(/Renamed in private|secret words/);
  });

  it("an unlike on a post the viewer may no longer see reveals no like count", async () => {
    const ana = await createTestUser();
    const fan = await createTestUser();
    await followUser({ viewerId: fan.id, targetId: ana.id });
    const postId = await createTestPost(ana.id, { audience: "followers" });
    await likePost({ viewerId: fan.id, postId });
    await unfollowUser({ viewerId: fan.id, targetId: ana.id });
    await expect(unlikePost({ viewerId: fan.id, postId })).rejects.toMatchObject({
      code: "not_found",
    });
    // The like itself is gone: people can always take their own like back.
    await followUser({ viewerId: fan.id, targetId: ana.id });
    expect(await unlikePost({ viewerId: fan.id, postId })).toEqual({ liked: false, likeCount: 0 });
  });

  it("groups new followers, and an unfollow takes its notification back", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser({ displayName: "Ben" });
    const cleo = await createTestUser({ displayName: "Cleo" });
    await followUser({ viewerId: ben.id, targetId: ana.id });
    await followUser({ viewerId: cleo.id, targetId: ana.id });
    const [follow] = await inbox(ana.id);
    expect(follow && describeNotification(follow)).toBe("Cleo and Ben started following you");
    expect(follow && notificationHref(follow)).toBe("/profile");
    await unfollowUser({ viewerId: cleo.id, targetId: ana.id });
    const [after] = await inbox(ana.id);
    expect(after && describeNotification(after)).toBe("Ben started following you");
    expect(after && notificationHref(after)).toBe(`/u/${ben.username}`);
    await unfollowUser({ viewerId: ben.id, targetId: ana.id });
    expect(await inbox(ana.id)).toEqual([]);
  });

  it("says nothing across a block, and a block removes what the other person caused", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser({ username: "ben_blocked" });
    const post = await createTestPost(ana.id);
    await likePost({ viewerId: ben.id, postId: post });
    expect(await unreadCount(ana.id)).toBe(1);
    await blockUser({ viewerId: ana.id, targetId: ben.id });
    expect(await inbox(ana.id)).toEqual([]);
    expect(await unreadCount(ana.id)).toBe(0);
    // Ben mentions Ana in a public post: nothing reaches her.
    await createTestPost(ben.id, { note: `hey @${ana.username}` });
    expect(await inbox(ana.id)).toEqual([]);
    // And Ana mentioning Ben tells him nothing either.
    await createTestPost(ana.id, { note: "@ben_blocked" });
    expect(await inbox(ben.id)).toEqual([]);
  });

  it("drops notifications with the post or comment they are about", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const post = await createTestPost(ana.id);
    await likePost({ viewerId: ben.id, postId: post });
    const comment = await addComment({ viewerId: ben.id, postId: post, content: "nice" });
    expect(await inbox(ana.id)).toHaveLength(2);
    await deleteComment({ viewerId: ben.id, commentId: comment.id });
    expect((await inbox(ana.id)).map((n) => n.kind)).toEqual(["like"]);
    await deletePost({ viewerId: ana.id, postId: post });
    expect(await inbox(ana.id)).toEqual([]);
  });

  it("marks one or all read, only the viewer's own", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const cleo = await createTestUser();
    const post = await createTestPost(ana.id);
    await likePost({ viewerId: ben.id, postId: post });
    await followUser({ viewerId: cleo.id, targetId: ana.id });
    expect(await unreadCount(ana.id)).toBe(2);
    const [newest] = await inbox(ana.id);
    if (!newest) throw new Error("no notification");
    await markRead({ viewerId: cleo.id, id: newest.id });
    expect(await unreadCount(ana.id)).toBe(2);
    await markRead({ viewerId: ana.id, id: newest.id });
    expect(await unreadCount(ana.id)).toBe(1);
    await markAllRead(ana.id);
    expect(await unreadCount(ana.id)).toBe(0);
    expect((await inbox(ana.id)).every((n) => n.isRead)).toBe(true);
  });

  it("pages newest first by seq, and lists what came after a seq oldest first", async () => {
    const ana = await createTestUser();
    const posts = [];
    for (let i = 0; i < 5; i++) posts.push(await createTestPost(ana.id, { title: `Song ${i}` }));
    const fans = await Promise.all([0, 1, 2, 3, 4].map(() => createTestUser()));
    for (const [i, fan] of fans.entries()) {
      await likePost({ viewerId: fan.id, postId: posts[i] as string });
    }
    const first = await listNotifications({ viewerId: ana.id, limit: 2 });
    expect(first.notifications.map((n) => n.post?.title)).toEqual(["Song 4", "Song 3"]);
    const second = await listNotifications({
      viewerId: ana.id,
      limit: 2,
      cursor: first.nextCursor,
    });
    expect(second.notifications.map((n) => n.post?.title)).toEqual(["Song 2", "Song 1"]);
    const third = await listNotifications({
      viewerId: ana.id,
      limit: 2,
      cursor: second.nextCursor,
    });
    expect(third.notifications.map((n) => n.post?.title)).toEqual(["Song 0"]);
    expect(third.nextCursor).toBeNull();
    expect(
      (await listNotifications({ viewerId: ana.id, cursor: "'; drop" })).notifications,
    ).toHaveLength(5);

    const after = await notificationsAfter({
      recipientId: ana.id,
      afterSeq: second.notifications[0]?.seq ?? 0,
    });
    expect(after.map((n) => n.post?.title)).toEqual(["Song 3", "Song 4"]);
  });
});

describe("notification preferences and e-mail", () => {
  it("stores per-kind choices with sensible defaults", async () => {
    const ana = await createTestUser();
    const defaults = await getNotificationPreferences(ana.id);
    expect(defaults.like).toEqual({ inApp: true, email: false });
    expect(defaults.comment).toEqual({ inApp: true, email: true });
    await setNotificationPreference({ userId: ana.id, kind: "like", email: true });
    await setNotificationPreference({ userId: ana.id, kind: "follow", inApp: false });
    const saved = await getNotificationPreferences(ana.id);
    expect(saved.like).toEqual({ inApp: true, email: true });
    expect(saved.follow).toEqual({ inApp: false, email: true });
  });

  it("turns one kind's e-mail off from the mail's unsubscribe link", async () => {
    const ana = await createTestUser();
    const token = createUnsubscribeToken({ userId: ana.id, kind: "comment" });
    const target = readUnsubscribeToken(token);
    expect(target).toEqual({ userId: ana.id, kind: "comment" });
    expect(readUnsubscribeToken(token.replace(".comment.", ".like."))).toBeNull();
    if (!target) throw new Error("token not read");
    expect(await isSubscribedTo(target)).toBe(true);
    expect(await setEmailPreference({ ...target, isSubscribed: false })).toBe(true);
    expect(await isSubscribedTo(target)).toBe(false);
    expect((await getNotificationPreferences(ana.id)).comment).toEqual({
      inApp: true,
      email: false,
    });
  });

  it("leaves out a kind turned off in the app", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    await setNotificationPreference({ userId: ana.id, kind: "follow", inApp: false, email: false });
    await followUser({ viewerId: ben.id, targetId: ana.id });
    expect(await inbox(ana.id)).toEqual([]);
  });

  it("mails what the preferences ask for through the mail layer, once, with an unsubscribe link", async () => {
    const sink = await startSmtpSink();
    setMailTransport(createMailTransport({ smtpUrl: sink.url, mailDir: "/nonexistent" }));
    try {
      const ana = await createTestUser({ displayName: "Ana" });
      const ben = await createTestUser({ displayName: "Ben" });
      const post = await createTestPost(ana.id, { title: "Naima" });
      // A like mails nobody by default; a comment does.
      await likePost({ viewerId: ben.id, postId: post });
      expect(await mailsTo(ana.email)).toHaveLength(0);
      await addComment({ viewerId: ben.id, postId: post, content: "Coltrane at his gentlest" });
      // Unlike and like again: still no second mail for the same like once likes mail.
      await setNotificationPreference({ userId: ana.id, kind: "like", email: true });
      await unlikePost({ viewerId: ben.id, postId: post });
      await likePost({ viewerId: ben.id, postId: post });
      await unlikePost({ viewerId: ben.id, postId: post });
      await likePost({ viewerId: ben.id, postId: post });
      const queued = await mailsTo(ana.email);
      expect(queued.map((m) => m.subject).sort()).toEqual([
        "Ben commented on your post “Naima”",
        "Ben liked your post “Naima”",
      ]);
      await deliverDueMail();
      const received = sink.received.filter((m) => m.to.includes(ana.email));
      expect(received).toHaveLength(2);
      // Quoted-printable soft line breaks and folded headers undone.
      const unfold = (raw: string) => raw.replace(/=\r?\n/g, "").replace(/\r?\n[ \t]+/g, " ");
      for (const mail of received) {
        expect(unfold(mail.raw)).toMatch(
          /^List-Unsubscribe: <http:\/\/localhost:3000\/unsubscribe\?token=/m,
        );
      }
      const body = received.map((m) => unfold(m.raw)).join("\n");
      expect(body).toContain("Coltrane at his gentlest");
      expect(body).toContain(`/post/${post}`);
    } finally {
      setMailTransport(undefined);
      await sink.close();
    }
  });

  it("mails nobody for a guest or an unconfirmed address", async () => {
    const ana = await createTestUser();
    const ben = await createTestUser();
    const { user } = await import("~/db/schema");
    await getDb().update(user).set({ emailVerified: false }).where(eq(user.id, ana.id));
    await followUser({ viewerId: ben.id, targetId: ana.id });
    expect(await mailsTo(ana.email)).toHaveLength(0);
    expect(await inbox(ana.id)).toHaveLength(1);
  });
});
