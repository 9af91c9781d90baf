import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { verifyPassword } from "~/features/auth/password.server";
import { getProfile } from "~/features/people/people.server";
import { listFeed } from "~/features/posts/feed.server";
import { withTestDatabase } from "../tests/support/test-database";
import { SEED_PASSWORD, seedDatabase, seedUuid } from "./seed.server";

withTestDatabase();

/** Rows of a raw query (node-postgres and PGlite both answer `{ rows }`). */
function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

async function counts() {
  const result = await getDb().execute(sql`select
    (select count(*)::int from "user") as users,
    (select count(*)::int from profiles) as profiles,
    (select count(*)::int from posts) as posts,
    (select count(*)::int from follows) as follows,
    (select count(*)::int from post_likes) as likes,
    (select count(*)::int from comments) as comments,
    (select count(*)::int from home_timeline) as timeline,
    (select count(*)::int from listens) as listens,
    (select count(*)::int from media) as media`);
  return rowsOf<Record<string, number>>(result)[0];
}

describe("npm run seed", () => {
  it("fills a believable community, and running it again adds nothing", async () => {
    const summary = await seedDatabase(getDb());
    expect(summary.people).toBeGreaterThanOrEqual(30);
    expect(summary.posts).toBeGreaterThanOrEqual(300);
    const first = await counts();
    expect(first).toMatchObject({
      users: summary.people,
      profiles: summary.people,
      media: summary.people,
    });
    expect(first?.posts).toBe(summary.posts);
    expect(first?.likes).toBeGreaterThan(500);
    expect(first?.comments).toBeGreaterThan(100);
    // Three months of plays each, for the journey.
    expect(first?.listens).toBe(summary.listens);
    expect(summary.listens).toBeGreaterThan(summary.people * 300);

    const again = await seedDatabase(getDb(), Date.now() + 60_000);
    expect(again.listens).toBe(0);
    expect(await counts()).toEqual(first);
    // Two full seeds (30 people, their pictures, posts and three months of plays each): about
    // 15 s on a quiet 2-core machine, past the default 30 s when the machine is shared.
  }, 180_000);

  it("seeded people can sign in with the demo password and have a home feed", async () => {
    const rows = await getDb().execute(
      sql`select password from account where user_id = 'seed-ana_rivera' and provider_id = 'credential'`,
    );
    const hash = rowsOf<{ password: string }>(rows)[0]?.password ?? "";
    expect(await verifyPassword({ hash, password: SEED_PASSWORD })).toBe(true);
    const profile = await getProfile({ viewerId: null, username: "ana_rivera" });
    expect(profile?.avatarUrl).toMatch(/^\/media\/[0-9a-f-]{36}$/);
    expect(profile?.followingCount).toBeGreaterThan(0);
    const feed = await listFeed({ viewerId: "seed-ana_rivera", tab: "following" });
    expect(feed.posts).toHaveLength(20);
  });

  it("derives valid, stable UUIDs", () => {
    expect(seedUuid("post:1")).toBe(seedUuid("post:1"));
    expect(seedUuid("post:1")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
