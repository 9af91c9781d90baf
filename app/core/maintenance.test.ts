import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, rowsOf } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import {
  type MaintenanceReport,
  type MaintenanceStep,
  PURGE_BATCH,
  runMaintenance,
} from "./maintenance.server";

/*
 * Maintenance of the embedded database on a data set with many dead rows: expired sessions,
 * codes and rate-limit windows to purge, likes toggled on and off (dead rows in post_likes and
 * its indexes), posts edited. The run must purge what is expired and nothing else, leave no dead
 * rows behind in the tables it vacuumed, make their space reusable (the same volume of new rows
 * fits in the old size) or give it back (trailing pages truncated), and hold PGlite's single
 * connection one short step at a time: a concurrent query always gets its turn between two steps,
 * and no purge step touches more than PURGE_BATCH rows.
 */

const PEOPLE = 100;
const POSTS = 200;
const EXPIRED_SESSIONS = 4_500;
const EXPIRED_WINDOWS = 12_000;
const EXPIRED_CODES = 2_200;

let handle: DatabaseHandle;
const run = async (text: string) => handle.db.execute(sql.raw(text));
const one = async <T>(text: string) => rowsOf<T>(await run(text))[0] as T;

async function stats(table: string) {
  await run("select pg_stat_force_next_flush()");
  return one<{ dead: number; live: number; size: number }>(
    `select n_dead_tup::int as dead, n_live_tup::int as live,
       pg_relation_size('"${table}"')::int as size
     from pg_stat_user_tables where relname = '${table}'`,
  );
}

/** Likes every post by every person (20,000 rows). */
const likeEverything = () =>
  run(`insert into post_likes (post_id, user_id)
    select p.id, u.id from posts p cross join "user" u where u.id like 'mnt-%'`);

describe("maintenance of the embedded database", () => {
  beforeAll(async () => {
    handle = await openDatabase({});
    await migrateDatabase(handle);
    await run(`insert into "user" (id, name, email, email_verified, username)
      select 'mnt-' || g, 'Person ' || g, 'mnt' || g || '@example.org', true, 'mnt_' || g
      from generate_series(1, ${PEOPLE}) g`);
    await run(`insert into posts (id, author_id, kind, title, artist, note, audience)
      select md5('mnt-post-' || g)::uuid, 'mnt-' || (1 + g % ${PEOPLE}), 'track', 'Song ' || g,
        'Artist ' || g, 'first version', 'everyone'
      from generate_series(1, ${POSTS}) g`);
    // Live rows first, then the expired ones (so the expired fill the tables' last pages).
    await run(`insert into session (id, expires_at, token, updated_at, user_id)
      select 'live-' || g, now() + interval '7 days', 'live-token-' || g, now(), 'mnt-' || g
      from generate_series(1, ${PEOPLE}) g`);
    await run(`insert into session (id, expires_at, token, updated_at, user_id)
      select 'old-' || g, now() - interval '1 day', 'old-token-' || g, now(), 'mnt-' || (1 + g % ${PEOPLE})
      from generate_series(1, ${EXPIRED_SESSIONS}) g`);
    await run(`insert into rate_limits (key, count, reset_at)
      select 'live:' || g, 1, now() + interval '1 hour' from generate_series(1, 50) g`);
    await run(`insert into rate_limits (key, count, reset_at)
      select 'sign-in:ip:10.0.' || (g / 250) || '.' || (g % 250), 3, now() - interval '5 minutes'
      from generate_series(1, ${EXPIRED_WINDOWS}) g`);
    await run(`insert into verification (id, identifier, value, expires_at)
      select 'code-' || g, 'email-otp-' || g, 'hash', now() - interval '1 hour'
      from generate_series(1, ${EXPIRED_CODES}) g`);
    await run(`insert into verification (id, identifier, value, expires_at)
      values ('valid-code', 'email-otp-valid', 'hash', now() + interval '10 minutes')`);
    // Likes toggled: on, off, on, off — 40,000 dead rows in post_likes and its indexes.
    for (let i = 0; i < 2; i++) {
      await likeEverything();
      await run("delete from post_likes");
    }
    // Every post edited three times.
    for (let i = 0; i < 3; i++) await run(`update posts set note = 'edit ${i} ' || note`);
  }, 120_000);

  afterAll(async () => {
    await handle?.close();
  });

  let report: MaintenanceReport;
  let beforeLikes: Awaited<ReturnType<typeof stats>>;
  let beforeWindows: Awaited<ReturnType<typeof stats>>;
  /** Maintenance steps and concurrent queries in the order they finished. */
  const order: ("step" | "query")[] = [];

  it("runs step by step while other queries keep getting their turn", async () => {
    beforeLikes = await stats("post_likes");
    beforeWindows = await stats("rate_limits");
    expect(beforeLikes.dead).toBeGreaterThanOrEqual(2 * PEOPLE * POSTS);

    // The event loop's turns (what /healthz and every new connection need), as they happen.
    const ticks: number[] = [];
    let stepsSoFar = 0;
    let ticking = true;
    const tick = () => {
      ticks.push(stepsSoFar);
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // A request that queries the database in a loop, always with one query waiting.
    let done = false;
    const concurrent = (async () => {
      while (!done) {
        await handle.db.execute(sql`select 1`);
        order.push("query");
        // A request ends and the event loop turns (as maintenance lets it between steps).
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    report = await runMaintenance(handle.db, {
      vacuum: true,
      onStep: () => {
        order.push("step");
        stepsSoFar++;
      },
    });
    done = true;
    await concurrent;
    ticking = false;
    // The event loop turned after every step (a timer ran with each count of steps done).
    const turnedAfter = new Set(ticks);
    for (let k = 1; k < report.steps.length; k++) {
      expect(turnedAfter.has(k), `the event loop turned after step ${k}`).toBe(true);
    }

    // Between any two steps, the waiting query ran: no other query ever waited for more than
    // one step. (PGlite serves its queue first in, first out.)
    const steps = order.flatMap((kind, i) => (kind === "step" ? [i] : []));
    expect(steps.length).toBe(report.steps.length);
    for (let k = 1; k < steps.length; k++) {
      const between = order.slice((steps[k - 1] ?? 0) + 1, steps[k]);
      expect(between, `between steps ${k - 1} and ${k}`).toContain("query");
    }
    // No purge statement touched more than a batch.
    const purges = report.steps.filter(
      (s): s is Extract<MaintenanceStep, { kind: "purge" }> => s.kind === "purge",
    );
    for (const purge of purges) expect(purge.rows).toBeLessThanOrEqual(PURGE_BATCH);
    expect(purges.filter((p) => p.table === "rate_limits")).toHaveLength(
      Math.floor(EXPIRED_WINDOWS / PURGE_BATCH) + 1,
    );
    // One statement per table vacuumed or analyzed; never a database-wide VACUUM.
    const tableSteps = report.steps.filter((s) => s.kind === "vacuum" || s.kind === "analyze");
    expect(new Set(tableSteps.map((s) => ("table" in s ? s.table : ""))).size).toBe(
      tableSteps.length,
    );
    process.stdout.write(
      `maintenance: ${report.steps.length} steps, longest ${report.longestStepMs.toFixed(1)} ms; ` +
        `vacuumed ${report.vacuumed.join(", ")}; analyzed ${report.analyzed.join(", ")}\n`,
    );
  });

  it("purges what expired and keeps what is still valid", async () => {
    expect(report.purged).toMatchObject({
      session: EXPIRED_SESSIONS,
      rate_limits: EXPIRED_WINDOWS,
      verification: EXPIRED_CODES,
    });
    expect(await one<{ n: number }>("select count(*)::int as n from session")).toEqual({
      n: PEOPLE,
    });
    expect(await one<{ n: number }>("select count(*)::int as n from rate_limits")).toEqual({
      n: 50,
    });
    expect(
      await one<{ id: string }>("select id from verification where id = 'valid-code'"),
    ).toEqual({ id: "valid-code" });
    expect(await one<{ n: number }>("select count(*)::int as n from posts")).toEqual({ n: POSTS });
  });

  it("leaves no dead rows in the tables it vacuumed, and the space comes back", async () => {
    expect(report.vacuumed).toEqual(
      expect.arrayContaining(["post_likes", "posts", "rate_limits", "session", "verification"]),
    );
    for (const table of report.vacuumed) expect((await stats(table)).dead, table).toBe(0);

    // rate_limits: the expired windows filled its last pages; VACUUM truncated them.
    const windows = await stats("rate_limits");
    expect(windows.size).toBeLessThan(beforeWindows.size / 4);

    // post_likes: the same 20,000 likes again fit in the space the dead ones left.
    const sizeBefore = (await stats("post_likes")).size;
    await likeEverything();
    const afterLikes = await stats("post_likes");
    expect(afterLikes.live + afterLikes.dead).toBeGreaterThan(0);
    expect(afterLikes.size).toBeLessThanOrEqual(Math.max(sizeBefore, beforeLikes.size));
    expect(await one<{ n: number }>("select count(*)::int as n from post_likes")).toEqual({
      n: PEOPLE * POSTS,
    });
  });

  it("a second run right after has nothing left to do", async () => {
    const again = await runMaintenance(handle.db, { vacuum: true });
    expect(Object.values(again.purged).every((n) => n === 0)).toBe(true);
    expect(again.vacuumed).toEqual([]);
  });
});

describe("maintenance across a restart of the embedded database", () => {
  it("still vacuums the dead rows counted before the restart (the statistics start from zero)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "st-maintenance-"));
    try {
      let db = await openDatabase({ dataDir: dir });
      await migrateDatabase(db);
      await db.db.execute(sql`insert into rate_limits (key, count, reset_at)
        select 'kept:' || g, 1, now() + interval '1 hour' from generate_series(1, 3000) g`);
      await db.db.execute(sql`update rate_limits set count = 2`);
      // A run that stops right after counting (a shutdown), before it vacuumed anything.
      let counted = false;
      const cut = await runMaintenance(db.db, {
        vacuum: true,
        onStep: (step) => {
          if (step.kind === "stats") counted = true;
        },
        shouldStop: () => counted,
      });
      expect(cut.vacuumed).toEqual([]);
      await db.close();
      db = await openDatabase({ dataDir: dir });
      try {
        await db.db.execute(sql`select pg_stat_force_next_flush()`);
        const [fresh] = rowsOf<{ dead: number }>(
          await db.db.execute(sql`select n_dead_tup::int as dead from pg_stat_user_tables
            where relname = 'rate_limits'`),
        );
        expect(fresh?.dead).toBe(0);
        const after = await runMaintenance(db.db, { vacuum: true });
        expect(after.vacuumed).toContain("rate_limits");
        const again = await runMaintenance(db.db, { vacuum: true });
        expect(again.vacuumed).not.toContain("rate_limits");
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
