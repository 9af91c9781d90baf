import { sql } from "drizzle-orm";
import { runMaintenance } from "~/core/maintenance.server";
import { type DatabaseHandle, openDatabase, rowsOf, setDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { datasetDir, generateDataset, timed } from "./lib/dataset";
import { type BudgetRow, log, ms, percentile, type StepOutcome } from "./lib/report";

/**
 * Issue 19: maintenance of the embedded database on the 1M-post data set after a period of use
 * (likes toggled, posts edited, sessions, codes and rate-limit windows expired). Measures each
 * step (how long it held PGlite's one connection), what a concurrent primary-key lookup waited,
 * and the dead rows and sizes before and after. See docs/decisions/019-embedded-maintenance.md.
 */

const CHURN = {
  likesToggled: Number(process.env.BENCH_CHURN_LIKES ?? 100_000),
  postsEdited: Number(process.env.BENCH_CHURN_POSTS ?? 20_000),
  expiredSessions: 50_000,
  expiredWindows: 100_000,
  expiredCodes: 20_000,
};

async function tableFacts(handle: DatabaseHandle) {
  await handle.db.execute(sql`select pg_stat_force_next_flush()`);
  return rowsOf<{ name: string; dead: number; live: number; mb: number }>(
    await handle.db.execute(sql`select relname as name, n_dead_tup::int as dead,
      n_live_tup::int as live,
      round(pg_total_relation_size(relid) / 1048576.0, 1)::float as mb
      from pg_stat_user_tables where schemaname = 'public' order by relname`),
  );
}

export async function benchMaintenance(): Promise<StepOutcome> {
  const postCount = Number(process.env.BENCH_POSTS ?? 1_000_000);
  const data = datasetDir("maintenance", postCount);
  let opened: DatabaseHandle | null = null;
  try {
    opened = await openDatabase({ dataDir: data.dir });
    const handle = opened;
    await migrateDatabase(handle);
    setDatabase(handle);
    const facts = data.reused
      ? [`data set reused from ${data.dir} (BENCH_DATA_DIR)`]
      : await generateDataset(handle, postCount, "maintenance");
    if (!data.reused) data.markGenerated();
    const run = (text: string) => handle.db.execute(sql.raw(text));
    await timed("maintenance", "VACUUM ANALYZE after generation", () => run("vacuum analyze"));

    await timed("maintenance", "a period of use (churn)", async () => {
      await run(`create temp table toggled as
        select post_id, user_id, created_at from post_likes limit ${CHURN.likesToggled}`);
      await run(
        "delete from post_likes using toggled t where post_likes.post_id = t.post_id and post_likes.user_id = t.user_id",
      );
      await run("insert into post_likes (post_id, user_id, created_at) select * from toggled");
      await run("drop table toggled");
      await run(`update posts set note = note || ' (edited)'
        where id in (select id from posts order by created_at desc limit ${CHURN.postsEdited})`);
      await run(`insert into session (id, expires_at, token, updated_at, user_id)
        select 'bench-old-' || g, now() - interval '1 day', 'bench-old-token-' || g, now(),
          'bench-u-' || (1 + g % 1000)
        from generate_series(1, ${CHURN.expiredSessions}) g`);
      await run(`insert into rate_limits (key, count, reset_at)
        select 'bench:' || g, 1, now() - interval '1 minute'
        from generate_series(1, ${CHURN.expiredWindows}) g`);
      await run(`insert into verification (id, identifier, value, expires_at)
        select 'bench-code-' || g, 'bench-' || g, 'x', now() - interval '1 hour'
        from generate_series(1, ${CHURN.expiredCodes}) g`);
    });
    const before = await tableFacts(handle);

    // A request-like lookup in a loop the whole time, always one waiting.
    const ids = rowsOf<{ id: string }>(
      await run("select id from posts tablesample system (1) limit 500"),
    ).map((r) => r.id);
    const waits: number[] = [];
    let done = false;
    const concurrent = (async () => {
      let next = 0;
      while (!done) {
        const started = performance.now();
        await handle.db.execute(
          sql`select id, title from posts where id = ${ids[next++ % ids.length]}`,
        );
        waits.push(performance.now() - started);
      }
    })();
    const started = performance.now();
    const report = await runMaintenance(handle.db, { vacuum: true });
    const total = (performance.now() - started) / 1000;
    done = true;
    await concurrent;
    const after = await tableFacts(handle);

    const rows: BudgetRow[] = [
      {
        step: "maintenance",
        metric: "longest single step (connection held)",
        measured: ms(report.longestStepMs),
        budget: "—",
        pass: null,
      },
      {
        step: "maintenance",
        metric: "concurrent lookup wait, max / p99 / p50",
        measured: `${ms(Math.max(...waits))} / ${ms(percentile(waits, 99))} / ${ms(percentile(waits, 50))} (n=${waits.length})`,
        budget: "—",
        pass: null,
      },
      {
        step: "maintenance",
        metric: "whole run",
        measured: `${total.toFixed(1)} s, ${report.steps.length} steps`,
        budget: "—",
        pass: null,
      },
    ];
    const slowest = [...report.steps].sort((a, b) => b.ms - a.ms).slice(0, 8);
    const changed = before
      .map((b) => ({ b, a: after.find((x) => x.name === b.name) }))
      .filter(({ b, a }) => b.dead > 0 || (a && a.mb !== b.mb));
    const notes = [
      ...facts,
      `churn: ${JSON.stringify(CHURN)}`,
      `purged: ${JSON.stringify(report.purged)}; vacuumed: ${report.vacuumed.join(", ")}; analyzed: ${report.analyzed.join(", ") || "none"}`,
      `slowest steps: ${slowest
        .map(
          (s) =>
            `${s.kind}${"table" in s ? ` ${s.table}` : ""}${"rows" in s ? ` (${s.rows} rows)` : ""} ${ms(s.ms)}`,
        )
        .join("; ")}`,
      `dead rows and total size (table + indexes) before → after: ${changed
        .map(({ b, a }) => `${b.name} ${b.dead} dead ${b.mb} MB → ${a?.dead} dead ${a?.mb} MB`)
        .join("; ")}`,
    ];
    log(`maintenance: longest step ${ms(report.longestStepMs)}`);
    return { step: "maintenance", rows, notes, seconds: 0 };
  } finally {
    setDatabase(undefined);
    await opened?.close();
    data.cleanup();
  }
}
