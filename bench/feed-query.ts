import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import {
  countStatements,
  type DatabaseHandle,
  openDatabase,
  setDatabase,
} from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { listFeed } from "~/features/feed/feed.server";
import { type BudgetRow, log, ms, percentile, type StepOutcome } from "./lib/report";
import { tempDataDir } from "./lib/server";

/**
 * ARCHITECTURE §9: the home feed query ("Following", first page) p99 ≤ 3 ms on PGlite with 1M
 * posts, for every follow pattern: 5 inactive follows, 150 and 1000.
 *
 * The data is generated in SQL (generate_series) into a fresh PGlite database migrated with the
 * app's migrations, and `home_timeline` holds what the app's fan-out on write
 * (app/features/feed/timeline.server.ts) would have produced: every post in its author's
 * timeline, and every post except "only me" in the timelines of the author's followers.
 */

const BUDGET_MS = 3;

interface Pattern {
  viewerId: string;
  label: string;
}

const PATTERNS: Pattern[] = [
  { viewerId: "bench-v-5", label: "5 inactive follows" },
  { viewerId: "bench-v-150", label: "150 follows" },
  { viewerId: "bench-v-1000", label: "1000 follows" },
];

async function timed(label: string, work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  log(`feed-query: ${label} in ${seconds.toFixed(1)} s`);
  return seconds;
}

/** Bulk-generates people, posts, follows, blocks, likes, comments and home timelines. */
async function generate(handle: DatabaseHandle, postCount: number): Promise<string[]> {
  const db = handle.db;
  // Active authors: ~100 posts each at 1M posts, never fewer than 2000 (1000 are followed).
  const authors = Math.max(2000, Math.round(postCount / 100 / 1000) * 1000);
  const now = new Date().toISOString();
  const run = (statement: string) => db.execute(sql.raw(statement));
  const facts: string[] = [];

  await timed(`${authors + 8} people and profiles`, async () => {
    await run(`
      insert into "user" (id, name, email, email_verified, username, created_at, updated_at)
      select id, 'Bench ' || id, id || '@bench.soundtrail.test', true, replace(id, '-', '_'),
        timestamp '2024-01-01', timestamp '2024-01-01'
      from (
        select 'bench-u-' || i as id from generate_series(1, ${authors}) i
        union all select 'bench-quiet-' || i from generate_series(1, 5) i
        union all select unnest(array['bench-v-5', 'bench-v-150', 'bench-v-1000'])
      ) people`);
    await run(`
      insert into profiles (user_id, email, display_name, username, avatar_url, bio, created_at)
      select id, email, name, username, '/media/' || md5(id)::uuid, 'Here for the music.', created_at
      from "user" where id like 'bench-%'`);
  });

  // Posts newest first by g, one every 31 s (~1 year for 1M); the authors take turns, so each
  // one's posts are spread over the whole year. 85% everyone, 10% followers, 5% only me.
  const chunk = 250_000;
  await timed(`${postCount} posts`, async () => {
    for (let lo = 1; lo <= postCount; lo += chunk) {
      const hi = Math.min(postCount, lo + chunk - 1);
      await run(`
        insert into posts (id, author_id, kind, title, artist, album, link_url, note, mood, audience, created_at)
        select md5('bench-post-' || g)::uuid,
          'bench-u-' || (1 + (g::bigint * 7919) % ${authors}),
          (array['track', 'track', 'album', 'artist', 'playlist'])[1 + g % 5],
          'Track number ' || g,
          'Artist ' || (g % 5000),
          case when g % 3 = 0 then null else 'Album ' || (g % 20000) end,
          case when g % 2 = 0 then 'https://open.spotify.com/track/' || substr(md5(g::text), 1, 22) end,
          'On repeat all week, the second half is something else. #tag' || (g % 100),
          case when g % 5 < 3 then (array['happy', 'chill', 'energetic'])[1 + g % 5] end,
          case when g % 20 = 0 then 'only_me' when g % 10 = 1 then 'followers' else 'everyone' end,
          timestamptz '${now}' - g * interval '31 seconds'
        from generate_series(${lo}, ${hi}) g`);
      log(`feed-query:   posts ${hi}/${postCount}`);
    }
    // The quiet five posted twice each, long ago; the viewers posted 10 times each lately.
    await run(`
      insert into posts (id, author_id, kind, title, artist, note, audience, created_at)
      select md5('bench-quiet-post-' || q || '-' || k)::uuid, 'bench-quiet-' || q, 'album',
        'Old favourite ' || k, 'Artist ' || q, '', 'everyone',
        timestamptz '${now}' - (200 + q * 10 + k) * interval '1 day'
      from generate_series(1, 5) q, generate_series(1, 2) k`);
    await run(`
      insert into posts (id, author_id, kind, title, artist, note, audience, created_at)
      select md5('bench-own-post-' || v || '-' || k)::uuid, v, 'track', 'My pick ' || k,
        'Artist ' || k, 'Mine.', 'everyone',
        timestamptz '${now}' - (k * 9 + 1) * interval '1 day'
      from unnest(array['bench-v-5', 'bench-v-150', 'bench-v-1000']) v, generate_series(1, 10) k`);
  });

  await timed("follows and blocks", async () => {
    const follow = (follower: string, followees: string) =>
      run(`
        insert into follows (follower_id, followee_id, created_at)
        select '${follower}', f, timestamp '2024-01-02' from (${followees}) t(f)
        on conflict do nothing`);
    await follow("bench-v-5", `select 'bench-quiet-' || k from generate_series(1, 5) k`);
    await follow(
      "bench-v-150",
      `select 'bench-u-' || (1 + (k * 67) % ${authors}) from generate_series(1, 150) k`,
    );
    await follow(
      "bench-v-1000",
      `select 'bench-u-' || (1 + (k * 7) % ${authors}) from generate_series(1, 1000) k`,
    );
    // Everyone else follows 10 people (their own timelines are not generated; see README).
    await run(`
      insert into follows (follower_id, followee_id, created_at)
      select 'bench-u-' || i, 'bench-u-' || (1 + (i - 1 + k * 97) % ${authors}), timestamp '2024-01-02'
      from generate_series(1, ${authors}) i, generate_series(1, 10) k
      on conflict do nothing`);
    await run(`
      insert into blocks (blocker_id, blocked_id)
      select v, 'bench-u-' || (${authors} - k)
      from unnest(array['bench-v-5', 'bench-v-150', 'bench-v-1000']) v, generate_series(0, 4) k
      union all
      select 'bench-u-' || i, 'bench-u-' || (1 + (i * 31) % ${authors})
      from generate_series(1, 1000) i where 1 + (i * 31) % ${authors} <> i
      on conflict do nothing`);
  });

  await timed("likes and comments", async () => {
    for (let lo = 1; lo <= postCount; lo += chunk) {
      const hi = Math.min(postCount, lo + chunk - 1);
      // Every other post gets 3 likes; the viewers like one post in 50.
      await run(`
        insert into post_likes (post_id, user_id, created_at)
        select md5('bench-post-' || g)::uuid, 'bench-u-' || (1 + (g::bigint * 31 + k * 977) % ${authors}),
          timestamptz '${now}' - g * interval '31 seconds' + k * interval '1 minute'
        from generate_series(${lo}, ${hi}) g, generate_series(1, 3) k
        where g % 2 = 0
        union all
        select md5('bench-post-' || g)::uuid, v, timestamptz '${now}' - g * interval '31 seconds'
        from generate_series(${lo}, ${hi}) g, unnest(array['bench-v-5', 'bench-v-150', 'bench-v-1000']) v
        where g % 50 = 0
        on conflict do nothing`);
      // One post in five has a comment.
      await run(`
        insert into comments (comment_id, post_id, user_id, content, created_at)
        select md5('bench-comment-' || g)::uuid, md5('bench-post-' || g)::uuid,
          'bench-u-' || (1 + (g::bigint * 13) % ${authors}), 'Great pick, thanks for sharing!',
          timestamptz '${now}' - g * interval '31 seconds' + interval '1 hour'
        from generate_series(${lo}, ${hi}) g
        where g % 5 = 0`);
      log(`feed-query:   likes and comments ${hi}/${postCount}`);
    }
  });

  await timed("home timelines (fan-out on write)", async () => {
    // fanOutPost: every post goes into its author's own timeline …
    await run(`
      insert into home_timeline (user_id, created_at, post_id, author_id)
      select author_id, created_at, id, author_id from posts`);
    // … and, unless "only me", into each follower's (the viewers'; see README).
    await run(`
      insert into home_timeline (user_id, created_at, post_id, author_id)
      select f.follower_id, p.created_at, p.id, p.author_id
      from follows f join posts p on p.author_id = f.followee_id
      where f.follower_id in ('bench-v-5', 'bench-v-150', 'bench-v-1000') and p.audience <> 'only_me'
      on conflict do nothing`);
  });

  const counts = await db.execute(
    sql.raw(`select
      (select count(*) from "user")::int as people,
      (select count(*) from posts)::int as posts,
      (select count(*) from follows)::int as follows,
      (select count(*) from post_likes)::int as likes,
      (select count(*) from comments)::int as comments,
      (select count(*) from home_timeline)::int as timeline`),
  );
  const c = (counts as unknown as { rows: Record<string, number>[] }).rows[0] ?? {};
  facts.push(
    `data: ${c.people} people (${authors} active authors), ${c.posts} posts, ${c.follows} follows, ` +
      `${c.likes} likes, ${c.comments} comments, ${c.timeline} home_timeline rows`,
  );
  const perViewer = await db.execute(
    sql.raw(`select user_id, count(*)::int as n from home_timeline
      where user_id in ('bench-v-5', 'bench-v-150', 'bench-v-1000') group by user_id order by n`),
  );
  facts.push(
    `timeline rows per viewer: ${(
      perViewer as unknown as { rows: { user_id: string; n: number }[] }
    ).rows
      .map((r) => `${r.user_id} ${r.n}`)
      .join(", ")}`,
  );
  return facts;
}

/**
 * EXPLAIN ANALYZE of the exact statement listFeed sends (captured from the PGlite client), to
 * tell planning time from execution time.
 */
/** Every EXPLAIN ANALYZE in full, written next to the temp data (path in the notes). */
const planLog: string[] = [];
const PLAN_FILE = path.join(tmpdir(), "soundtrail-bench-feed-query-plans.txt");

async function explain(handle: DatabaseHandle, viewerId: string): Promise<string> {
  const pglite = handle.pglite;
  if (!pglite) return "n/a";
  const original = pglite.query.bind(pglite);
  let captured: { text: string; params: unknown[] } | null = null;
  pglite.query = ((text: string, params?: unknown[], options?: unknown) => {
    captured ??= { text, params: params ?? [] };
    return original(text, params as never, options as never);
  }) as typeof pglite.query;
  try {
    await listFeed({ viewerId, tab: "following" });
  } finally {
    pglite.query = original;
  }
  if (!captured) return "n/a";
  const { text, params } = captured as { text: string; params: unknown[] };
  const plan = await pglite.query<{ "QUERY PLAN": string }>(
    `explain (analyze, buffers off) ${text}`,
    params,
  );
  const lines = plan.rows.map((r) => r["QUERY PLAN"]);
  planLog.push(`-- ${viewerId}\n${lines.join("\n")}\n`);
  const time = (label: string) =>
    lines.find((l) => l.trim().startsWith(label))?.replace(/^.*: /, "");
  const shape = (line: string | undefined) =>
    line
      ?.trim()
      .replace(/^->\s*/, "")
      .replace(/\s+\(cost=.*$/, "");
  const driver = lines.find((l) => /on home_timeline/.test(l));
  return `planning ${time("Planning Time")}, execution ${time("Execution Time")}; ${shape(lines[0])}${driver ? ` … ${shape(driver)}` : ""}`;
}

/**
 * `runs` timed calls per pattern after up to 100 warm-up calls; a pattern stops early after
 * `maxSeconds` (a slow plan at 1M posts would otherwise take many minutes), with at least 50.
 */
async function measure(
  runs: number,
  maxSeconds: number,
): Promise<{ pattern: Pattern; samples: number[]; posts: number }[]> {
  const out = [];
  const call = (pattern: Pattern) => listFeed({ viewerId: pattern.viewerId, tab: "following" });
  for (const pattern of PATTERNS) {
    const check = await countStatements(() => call(pattern));
    if (check.statements !== 1) {
      throw new Error(
        `listFeed sent ${check.statements} statements for ${pattern.label}, expected 1`,
      );
    }
    const warmUntil = performance.now() + 5_000;
    for (let i = 0; i < Math.min(100, runs) && performance.now() < warmUntil; i++) {
      await call(pattern);
    }
    const samples: number[] = [];
    const stopAt = performance.now() + maxSeconds * 1000;
    while (samples.length < runs && (samples.length < 50 || performance.now() < stopAt)) {
      const started = performance.now();
      await call(pattern);
      samples.push(performance.now() - started);
    }
    out.push({ pattern, samples, posts: check.result.posts.length });
  }
  return out;
}

export async function benchFeedQuery(): Promise<StepOutcome> {
  const postCount = Number(process.env.BENCH_POSTS ?? 1_000_000);
  const runs = Number(process.env.BENCH_QUERY_RUNS ?? 1000);
  const maxSeconds = Number(process.env.BENCH_QUERY_SECONDS ?? 20);
  if (!Number.isInteger(postCount) || postCount < 1000)
    throw new Error("BENCH_POSTS must be ≥ 1000");
  const inMemory = process.env.BENCH_QUERY_MEMORY === "1";
  const data = tempDataDir("query");
  let opened: DatabaseHandle | null = null;
  try {
    opened = await openDatabase({ dataDir: inMemory ? "memory://" : data.dir });
    const handle = opened;
    await migrateDatabase(handle);
    setDatabase(handle);
    const started = performance.now();
    const facts = await generate(handle, postCount);
    const generation = (performance.now() - started) / 1000;
    log(`feed-query: generation took ${generation.toFixed(1)} s`);

    const rows: BudgetRow[] = [];
    const notes = [
      `PGlite ${inMemory ? "in memory" : "on disk (a temp DATA_DIR, as the app runs)"}; generation took ${generation.toFixed(1)} s`,
      ...facts,
      `up to ${runs} sequential listFeed({ viewerId, tab: "following" }) calls per pattern and phase (at most ${maxSeconds} s, at least 50; n in the table) after up to 100 warm-up calls, ` +
        "timed around the call (SQL + row mapping); 1 statement each (checked).",
    ];
    for (const [phase, label] of [
      ["as loaded", "as loaded (no ANALYZE; PGlite runs no autovacuum)"],
      ["after ANALYZE", "after ANALYZE"],
    ] as const) {
      if (phase === "after ANALYZE") {
        await timed("ANALYZE", () => handle.db.execute(sql`analyze`));
      }
      log(`feed-query: timing ${label} …`);
      planLog.push(`==== ${label}\n`);
      for (const pattern of PATTERNS) {
        notes.push(`${phase}, ${pattern.label}: ${await explain(handle, pattern.viewerId)}`);
      }
      for (const { pattern, samples, posts } of await measure(runs, maxSeconds)) {
        const p50 = percentile(samples, 50);
        const p99 = percentile(samples, 99);
        rows.push({
          step: "feed-query",
          metric: `p99 ${pattern.label}, ${phase}`,
          measured: `${ms(p99)} (p50 ${ms(p50)}, n=${samples.length}, ${posts} posts)`,
          budget: `≤ ${BUDGET_MS} ms`,
          pass: p99 <= BUDGET_MS,
        });
      }
    }
    writeFileSync(PLAN_FILE, planLog.join("\n"));
    notes.push(`full plans: ${PLAN_FILE}`);
    return { step: "feed-query", rows, notes, seconds: 0 };
  } finally {
    setDatabase(undefined);
    await opened?.close();
    data.cleanup();
  }
}
