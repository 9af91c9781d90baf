import { account, comments, posts, profiles, reports, user } from "~/db/schema";
import { hashPassword } from "~/features/auth/password.server";
import {
  BULK_COUNT,
  bulkAccount,
  E2E_ADMIN,
  E2E_MEMBER,
  E2E_PASSWORD,
  E2E_TARGET,
  REPORTED_COMMENT,
  SEEDED_COMMENTS,
  SEEDED_POST_TITLE,
} from "../e2e-accounts";
import type { Seed } from "../e2e-seed";

/** The admin spec's fixtures: an admin, a member and a moderation target who can sign in, 250 accounts, comments. */
export const seedAdminFixtures: Seed = async (db) => {
  const hash = await hashPassword(E2E_PASSWORD);
  const now = Date.now();
  const people = [
    { ...E2E_ADMIN, roles: ["admin"], createdAt: new Date(now - 10 * 86_400_000) },
    { ...E2E_MEMBER, roles: [], createdAt: new Date(now - 9 * 86_400_000) },
    { ...E2E_TARGET, roles: [], createdAt: new Date(now - 7 * 86_400_000) },
  ];
  for (const person of people) {
    await db.insert(user).values({
      id: person.id,
      name: person.displayName,
      email: person.email,
      emailVerified: true,
      username: person.username,
      createdAt: person.createdAt,
    });
    await db.insert(account).values({
      id: `${person.id}-credential`,
      accountId: person.id,
      providerId: "credential",
      userId: person.id,
      password: hash,
      updatedAt: person.createdAt,
    });
    await db.insert(profiles).values({
      userId: person.id,
      email: person.email,
      displayName: person.displayName,
      username: person.username,
      roles: person.roles,
      createdAt: person.createdAt,
    });
  }

  const bulk = Array.from({ length: BULK_COUNT }, (_, i) => ({
    ...bulkAccount(i + 1),
    // Newest first = bulk_001 first, so batches of 100 are 001–100, 101–200, 201–250.
    createdAt: new Date(now - 8 * 86_400_000 - (i + 1) * 1000),
  }));
  await db.insert(user).values(
    bulk.map((b) => ({
      id: b.id,
      name: b.displayName ?? "",
      email: b.email,
      emailVerified: true,
      username: b.username,
      createdAt: b.createdAt,
    })),
  );
  await db.insert(profiles).values(
    bulk.map((b) => ({
      userId: b.id,
      email: b.email,
      displayName: b.displayName,
      username: b.username,
      createdAt: b.createdAt,
    })),
  );

  const [post] = await db
    .insert(posts)
    .values({
      authorId: E2E_MEMBER.id,
      kind: "track",
      title: SEEDED_POST_TITLE,
      artist: "The Fixtures",
      // Private, so other specs still see an empty public feed.
      audience: "only_me",
      createdAt: new Date(now - 7 * 86_400_000),
    })
    .returning({ id: posts.id });
  if (!post) throw new Error("seed post not inserted");
  const seeded = await db
    .insert(comments)
    .values(
      Array.from({ length: SEEDED_COMMENTS }, (_, i) => ({
        postId: post.id,
        userId: bulkAccount(i + 1).id,
        content: `Seeded comment ${i + 1}`,
        createdAt: new Date(now - 7 * 86_400_000 + (i + 1) * 60_000),
      })),
    )
    .returning({ commentId: comments.commentId, content: comments.content });
  const reported = seeded.find((comment) => comment.content === REPORTED_COMMENT);
  await db.insert(reports).values([
    { reporterId: bulkAccount(2).id, postId: post.id, reason: "copyright", details: "Not theirs" },
    { reporterId: bulkAccount(3).id, commentId: reported?.commentId, reason: "harassment" },
  ]);
};
