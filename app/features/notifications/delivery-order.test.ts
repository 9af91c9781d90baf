import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { notificationsAfter } from "~/features/notifications/inbox.server";
import { notifyPostLiked } from "~/features/notifications/notify.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";

withTestDatabase();

const WRITERS = 24;

describe("live delivery order", () => {
  // On PostgreSQL (npm run test:pg) the writers are truly concurrent connections: a seq taken
  // early and committed late used to be skipped by a reader that had moved past it.
  it("a reader that follows `seq` sees every notification of many concurrent writers, once", async () => {
    const author = await createTestUser();
    const likers = await Promise.all(Array.from({ length: WRITERS }, () => createTestUser()));
    const postIds: string[] = [];
    for (let i = 0; i < WRITERS; i++) postIds.push(await createTestPost(author.id));

    const seen = new Map<string, number>();
    let lastSeq = 0;
    let writing = true;
    const read = async () => {
      const rows = await notificationsAfter({ recipientId: author.id, afterSeq: lastSeq });
      for (const row of rows) {
        seen.set(row.id, (seen.get(row.id) ?? 0) + 1);
        lastSeq = Math.max(lastSeq, row.seq);
      }
    };
    const reader = (async () => {
      while (writing) {
        await read();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();

    await Promise.all(
      likers.map((liker, i) =>
        getDb().transaction(async (tx) => {
          await notifyPostLiked(tx, {
            postId: postIds[i] as string,
            authorId: author.id,
            likerId: liker.id,
          });
          // Commit late and in a shuffled order: earlier seqs finish after later ones.
          await tx.execute(sql`select pg_sleep(${((i * 7) % 5) * 0.01})`);
        }),
      ),
    );
    writing = false;
    await reader;
    await read();

    expect(seen.size).toBe(WRITERS);
    expect([...seen.values()].every((times) => times === 1)).toBe(true);
  });
});
