import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { SEED_PASSWORD, seedDatabase } from "~/seed.server";
import {
  ADMIN_URL,
  createEmptyDatabase,
  freePorts,
  pgQuery,
  runOps,
  type ServerProcess,
  signedInAs,
  signInOverHttp,
  startServer,
  stopServer,
  tableDigests,
  waitFor,
  waitForReady,
} from "../tests/support/ops-servers";
import { productionBuild } from "../tests/support/production-build";

/*
 * `npm run db:move` on a seeded embedded database: the demo community plus what using it
 * leaves behind (sessions, a like and a comment with their notifications, the comment's mail in
 * the outbox, rate-limit rows, avatars as images). After the move every table holds the same
 * rows (compared by content, not just counted), and a browser signed in before the move is
 * still signed in on the PostgreSQL-backed server. Needs PostgreSQL: runs under `npm run test:pg`.
 */

describe.skipIf(!ADMIN_URL)("npm run db:move from PGlite to PostgreSQL", () => {
  let dataDir: string;
  let target: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let buildDir: string;
  let server: ServerProcess | undefined;
  let anaCookie: string;
  let anaPost: string;
  let other: { email: string; username: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "st-move-"));
    target = await createEmptyDatabase("st_move");
    buildDir = await productionBuild();
    const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
    try {
      await migrateDatabase(handle);
      await seedDatabase(handle.db);
      // Jobs waiting and done (their ids are an identity column, copied as they are).
      await handle.db.execute(sql`insert into jobs (kind, payload, key, status)
        values ('unfurl.link', '{"url":"https://open.spotify.com/track/x"}', 'move-test', 'queued'),
               ('feed.fanout', '{"postId":"00000000-0000-0000-0000-000000000000"}', null, 'done')`);
      const [post] = rowsOf<{ id: string }>(
        await handle.db.execute(sql`select p.id from posts p join profiles pr on pr.user_id = p.author_id
          where pr.username = 'ana_rivera' and p.audience = 'everyone' order by p.created_at desc limit 1`),
      );
      const [person] = rowsOf<{ email: string; username: string }>(
        await handle.db.execute(sql`select u.email, u.username from "user" u
          where u.username <> 'ana_rivera' order by u.username limit 1`),
      );
      if (!post || !person) throw new Error("the seed has no post of Ana or no other person");
      anaPost = post.id;
      other = person;
    } finally {
      await handle.close();
    }
  }, 300_000);

  afterAll(async () => {
    await stopServer(server);
    await target?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("moves every row, and whoever was signed in stays signed in", async () => {
    // On the embedded database: Ana signs in; another person likes and comments her post.
    const [port = 0] = await freePorts(1);
    server = startServer("pglite", port, buildDir, { DATA_DIR: dataDir });
    await waitForReady(server);
    const base = server.base;
    anaCookie = await signInOverHttp(
      base,
      "ana_rivera@demo.soundtrail.test",
      SEED_PASSWORD,
      "10.5.0.1",
    );
    expect(await signedInAs(base, anaCookie)).toBe("ana_rivera");
    const otherCookie = await signInOverHttp(base, other.email, SEED_PASSWORD, "10.5.0.2");
    const liked = await fetch(`${base}/api/like`, {
      method: "POST",
      headers: { Cookie: otherCookie, Origin: base },
      body: new URLSearchParams({ postId: anaPost, intent: "like" }),
    });
    expect(liked.status).toBe(200);
    await liked.body?.cancel();
    const commented = await fetch(`${base}/post/${anaPost}`, {
      method: "POST",
      headers: { Cookie: otherCookie, Origin: base },
      body: new URLSearchParams({ intent: "add-comment", content: "Moved with everything!" }),
      redirect: "manual",
    });
    expect(commented.status).toBeLessThan(400);
    await commented.body?.cancel();
    expect(await stopServer(server)).toBe(0);
    server = undefined;

    // What the embedded database holds, table by table.
    const source = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
    const before = await tableDigests(async (text) => rowsOf(await source.pglite!.query(text)));
    await source.close();
    expect(before.session?.rows).toBeGreaterThanOrEqual(2);
    expect(before.notifications?.rows).toBeGreaterThanOrEqual(2);
    expect(before.mail_outbox?.rows).toBeGreaterThanOrEqual(1);
    expect(before.media?.rows).toBeGreaterThan(0);
    expect(before.rate_limits?.rows).toBeGreaterThan(0);

    // The command, as an operator runs it.
    const moved = await runOps(["move", "--to", target.url], { DATA_DIR: dataDir });
    expect(moved.code, moved.output).toBe(0);
    expect(moved.output).toContain("every row count equal on both sides");

    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      const after = await tableDigests(pgQuery(client));
      expect(after).toEqual(before);
      // The notification counter goes on from where it was, not from 1 again.
      const [seq] = (
        await client.query<{ last: string; max: string }>(
          "select (select last_value from notification_seq)::text as last, (select max(seq) from notifications)::text as max",
        )
      ).rows;
      expect(Number(seq?.last)).toBeGreaterThanOrEqual(Number(seq?.max));
    } finally {
      await client.end();
    }

    // A second move into the now non-empty database is refused.
    const again = await runOps(["move", "--to", target.url], { DATA_DIR: dataDir });
    expect(again.code).toBe(1);
    expect(again.output).toContain("not empty");

    // The same DATA_DIR (its generated auth secret) on DATABASE_URL: Ana is still signed in.
    const [port2 = 0] = await freePorts(1);
    server = startServer("postgres", port2, buildDir, {
      DATA_DIR: dataDir,
      DATABASE_URL: target.url,
    });
    await waitForReady(server);
    expect(await signedInAs(server.base, anaCookie)).toBe("ana_rivera");
    const bell = await waitFor("the notifications page", async () => {
      const r = await fetch(`${server?.base}/notifications`, { headers: { Cookie: anaCookie } });
      return r.status === 200 ? r.text() : undefined;
    });
    expect(bell).toContain("Moved with everything!");
  }, 240_000);
});
