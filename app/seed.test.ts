import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { recognizeLink } from "~/core/streaming-links";
import { getDb } from "~/db/client.server";
import { verifyPassword } from "~/features/auth/password.server";
import { listListeningNow } from "~/features/journey/listening-now.server";
import { unreadCount } from "~/features/notifications/index.server";
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

  it("leaves a living demo: unread notifications, playable links, friends playing now", async () => {
    // Every demo person with liked posts has unread notifications, made by the app's own path
    // (grouped: one per post, several likers on it).
    const unread = await unreadCount("seed-ana_rivera");
    expect(unread).toBeGreaterThan(0);
    const perPerson = rowsOf<{ people: number; grouped: number }>(
      await getDb().execute(sql`select
        (select count(distinct recipient_id)::int from notifications
          where read_at is null and recipient_id like 'seed-%') as people,
        (select count(*)::int from notification_actors na join notifications n
          on n.id = na.notification_id where n.recipient_id like 'seed-%') as grouped`),
    )[0];
    expect(perPerson?.people).toBeGreaterThanOrEqual(25);
    // More likers than notifications: likes on one post share one notification.
    const notifications = rowsOf<{ n: number }>(
      await getDb().execute(
        sql`select count(*)::int as n from notifications where recipient_id like 'seed-%'`,
      ),
    )[0]?.n;
    expect(perPerson?.grouped).toBeGreaterThan(notifications ?? 0);

    // Real track and album link shapes, never a search page; most can play in place.
    const links = rowsOf<{ link_url: string | null }>(
      await getDb().execute(sql`select link_url from posts where author_id like 'seed-%'`),
    );
    const playable = links.filter((r) => recognizeLink(r.link_url)?.embedUrl);
    expect(playable.length * 2).toBeGreaterThanOrEqual(links.length);
    expect(links.some((r) => r.link_url?.includes("/search"))).toBe(false);
    for (const r of links) {
      if (!r.link_url?.startsWith("https://open.spotify.com/")) continue;
      expect(r.link_url).toMatch(
        /^https:\/\/open\.spotify\.com\/(track|album|artist|playlist)\/[0-9A-Za-z]{22}$/,
      );
    }

    // Friends playing now fill Ana's strip.
    const strip = await listListeningNow({ viewerId: "seed-ana_rivera" });
    expect(strip.length).toBeGreaterThanOrEqual(2);
  });

  it("derives valid, stable UUIDs", () => {
    expect(seedUuid("post:1")).toBe(seedUuid("post:1"));
    expect(seedUuid("post:1")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
