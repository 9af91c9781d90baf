import { sql } from "drizzle-orm";
import { type DatabaseHandle, openDatabase, setDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { drainFanOut } from "~/features/feed/fanout-jobs.server";
import { createPost } from "~/features/posts/posts.server";
import { timed } from "./lib/dataset";
import { type BudgetRow, log, ms, percentile, type StepOutcome } from "./lib/report";
import { tempDataDir } from "./lib/server";

/**
 * Issue 17 item 6: creating a post whose author has 10,000 followers. Budget: its p99 ≤ 3× the
 * p99 of a plain post (an author with 10 followers), measured the same way in the same run;
 * reported with it, the time until every follower's timeline holds the post.
 *
 * In process, through the app's own `createPost` (what the composer's action calls after
 * parsing): PGlite on disk in a temp DATA_DIR, migrated with the app's migrations. The
 * followers' timelines are filled by the fan-out worker (`drainFanOut`, what the server runs
 * in the background); "until every timeline has it" is timed from the call to the moment a
 * count of the post's timeline rows reaches followers + 1.
 */

const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 10_000);
const PLAIN_FOLLOWERS = 10;
const BUDGET_RATIO = 3;

async function people(handle: DatabaseHandle): Promise<void> {
  const run = (statement: string) => handle.db.execute(sql.raw(statement));
  await run(`
    insert into "user" (id, name, email, email_verified, username, created_at, updated_at)
    select id, 'Fan ' || id, id || '@bench.soundtrail.test', true, replace(id, '-', '_'), now(), now()
    from (
      select 'bench-f-' || i as id from generate_series(1, ${FOLLOWERS}) i
      union all select 'bench-star' union all select 'bench-plain'
    ) people`);
  await run(`
    insert into profiles (user_id, email, display_name, username, created_at)
    select id, email, name, username, created_at from "user" where id like 'bench-%'`);
  await run(`
    insert into follows (follower_id, followee_id)
    select 'bench-f-' || i, 'bench-star' from generate_series(1, ${FOLLOWERS}) i
    union all
    select 'bench-f-' || i, 'bench-plain' from generate_series(1, ${PLAIN_FOLLOWERS}) i`);
  await run("analyze");
}

async function timelineRows(handle: DatabaseHandle, postId: string): Promise<number> {
  const result = (await handle.db.execute(
    sql`select count(*)::int as n from home_timeline where post_id = ${postId}::uuid`,
  )) as unknown as { rows: { n: number }[] };
  return result.rows[0]?.n ?? 0;
}

interface Sample {
  request: number;
  everywhere: number;
}

async function postOnce(
  handle: DatabaseHandle,
  authorId: string,
  followers: number,
  i: number,
): Promise<Sample> {
  const started = performance.now();
  const { id } = await createPost({
    viewerId: authorId,
    input: {
      kind: "track",
      title: `Bench track ${i}`,
      artist: "Bench Artist",
      album: undefined,
      linkUrl: undefined,
      mood: undefined,
      note: `Post ${i} for the fan-out bench.`,
      audience: "everyone",
    },
  });
  const request = performance.now() - started;
  // What the server's background worker does after the commit.
  await drainFanOut();
  const rows = await timelineRows(handle, id);
  if (rows !== followers + 1) {
    throw new Error(`post ${id}: ${rows} timeline rows, expected ${followers + 1}`);
  }
  return { request, everywhere: performance.now() - started };
}

export async function benchFanout(): Promise<StepOutcome> {
  const runs = Number(process.env.BENCH_FANOUT_RUNS ?? 60);
  const data = tempDataDir("fanout");
  let opened: DatabaseHandle | null = null;
  try {
    opened = await openDatabase({ dataDir: data.dir });
    const handle = opened;
    await migrateDatabase(handle);
    setDatabase(handle);
    await timed("fanout", `${FOLLOWERS} followers`, () => people(handle));
    const star: Sample[] = [];
    const plain: Sample[] = [];
    log(`fanout: ${runs} posts each, alternating …`);
    for (let i = 0; i < runs + 5; i++) {
      const a = await postOnce(handle, "bench-plain", PLAIN_FOLLOWERS, i);
      const b = await postOnce(handle, "bench-star", FOLLOWERS, i);
      // The first five are warm-up.
      if (i >= 5) {
        plain.push(a);
        star.push(b);
      }
    }
    const p = (samples: Sample[], key: keyof Sample, q: number) =>
      percentile(
        samples.map((s) => s[key]),
        q,
      );
    const ratio = p(star, "request", 99) / p(plain, "request", 99);
    const rows: BudgetRow[] = [
      {
        step: "fanout",
        metric: `post p99, author with ${FOLLOWERS} followers ÷ ${PLAIN_FOLLOWERS} followers`,
        measured: `${ratio.toFixed(2)}× (${ms(p(star, "request", 99))} vs ${ms(p(plain, "request", 99))}; p50 ${ms(p(star, "request", 50))} vs ${ms(p(plain, "request", 50))})`,
        budget: `≤ ${BUDGET_RATIO}×`,
        pass: ratio <= BUDGET_RATIO,
      },
      {
        step: "fanout",
        metric: `until all ${FOLLOWERS} timelines have it`,
        measured: `p50 ${ms(p(star, "everywhere", 50))}, p99 ${ms(p(star, "everywhere", 99))}`,
        budget: "—",
        pass: null,
      },
    ];
    return {
      step: "fanout",
      rows,
      notes: [
        `PGlite on disk; ${runs} posts per author after 5 warm-up, alternating; createPost() in process, then the fan-out worker drained (drainFanOut) and the post's timeline rows counted.`,
      ],
      seconds: 0,
    };
  } finally {
    setDatabase(undefined);
    await opened?.close();
    data.cleanup();
  }
}
