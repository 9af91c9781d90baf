import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { log } from "./report";
import { tempDataDir } from "./server";

/**
 * The 1M-post data set shared by the `feed-query` and `search-query` steps (see bench/README.md),
 * made with generate_series in a fresh database migrated with the app's migrations.
 */

const sqlArray = (values: string[]) =>
  `(array[${values.map((v) => `'${v.replaceAll("'", "''")}'`).join(", ")}])`;

/** 40 × 50 display names (accents included), as the people search sees them. */
const FIRST_NAMES = sqlArray(
  "Ana Björk João Zoë Chloé Mateo Lucía Noah Émile Sofía Liam Maya Ingrid Kenji Aisha Omar Freya Léa Nils Inès Marta Tomás Hana Yusuf Elif Sven Clara Hugo Nora Pablo Iris Jonas Amélie Rui Selin Olek Dana Farah Kai Luz".split(
    " ",
  ),
);
const LAST_NAMES = sqlArray(
  "Rivera Lopes Johansson Müller Dubois García Novak Rossi Kowalski Silva Tanaka Haddad Nielsen Moreau Fischer Costa Petrov Yılmaz Hansen Martín Jensen Kim Laurent Ortega Berg Schmidt Romero Lindqvist Duarte Fontaine Weber Castillo Andersen Ferreira Blanc Richter Navarro Sato Holm Álvarez Meyer Leclerc Santos Kaya Lund Vidal Keller Mendes Park Okafor".split(
    " ",
  ),
);
/** Twelve notes in turn, so a common word matches one post in twelve, a rare one fewer. */
const NOTES = sqlArray([
  "On repeat all week, the second half is something else.",
  "Found this on a late train home and it stuck.",
  "The bass line on this one, wow.",
  "Perfect for a rainy Sunday morning with coffee.",
  "My running playlist opener for years now.",
  "Heard it live last summer, still get goosebumps.",
  "A friend sent me this and I cannot stop.",
  "Underrated record, the production is so warm.",
  "Dancing in the kitchen to this again.",
  "Lyrics hit different at two in the morning.",
  "Road trip classic, windows down.",
  "Quiet, patient, beautiful. Headphones on.",
]);

export async function timed(
  step: string,
  label: string,
  work: () => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  log(`${step}: ${label} in ${seconds.toFixed(1)} s`);
  return seconds;
}

/** Bulk-generates people, posts, follows, blocks, likes, comments and home timelines. */
export async function generateDataset(
  handle: DatabaseHandle,
  postCount: number,
  step: string,
): Promise<string[]> {
  const db = handle.db;
  // Active authors: ~100 posts each at 1M posts, never fewer than 2000 (1000 are followed).
  const authors = Math.max(2000, Math.round(postCount / 100 / 1000) * 1000);
  const now = new Date().toISOString();
  const run = (statement: string) => db.execute(sql.raw(statement));
  const facts: string[] = [];
  // The app's GIN indexes write through (no pending list, drizzle/0011): right for a post at a
  // time, hours for a million. Bulk loading goes through pending lists, merged at the end.
  const ginIndexes = (
    (await db.execute(
      sql.raw(`select c.relname as name from pg_class c join pg_am am on am.oid = c.relam
        where am.amname = 'gin' and c.relkind = 'i'`),
    )) as unknown as { rows: { name: string }[] }
  ).rows.map((r) => r.name);
  for (const name of ginIndexes) await run(`alter index "${name}" set (fastupdate = on)`);

  await timed(step, `${authors + 8} people and profiles`, async () => {
    await run(`
      insert into "user" (id, name, email, email_verified, username, created_at, updated_at)
      select id, ${FIRST_NAMES}[1 + n % 40] || ' ' || ${LAST_NAMES}[1 + (n / 40) % 50],
        id || '@bench.soundtrail.test', true, replace(id, '-', '_'),
        timestamp '2024-01-01', timestamp '2024-01-01'
      from (
        select 'bench-u-' || i as id, i as n from generate_series(1, ${authors}) i
        union all select 'bench-quiet-' || i, ${authors} + i from generate_series(1, 5) i
        union all select v, ${authors} + 5 + k
        from unnest(array['bench-v-5', 'bench-v-150', 'bench-v-1000']) with ordinality t(v, k)
      ) people`);
    await run(`
      insert into profiles (user_id, email, display_name, username, avatar_url, bio, created_at)
      select id, email, name, username, '/media/' || md5(id)::uuid, 'Here for the music.', created_at
      from "user" where id like 'bench-%'`);
  });

  // Posts newest first by g, one every 31 s (~1 year for 1M); the authors take turns, so each
  // one's posts are spread over the whole year. 85% everyone, 10% followers, 5% only me.
  const chunk = 250_000;
  await timed(step, `${postCount} posts`, async () => {
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
          ${NOTES}[1 + g % 12] || ' #tag' || (g % 100),
          case when g % 5 < 3 then (array['happy', 'chill', 'energetic'])[1 + g % 5] end,
          case when g % 20 = 0 then 'only_me' when g % 10 = 1 then 'followers' else 'everyone' end,
          timestamptz '${now}' - g * interval '31 seconds'
        from generate_series(${lo}, ${hi}) g`);
      log(`${step}:   posts ${hi}/${postCount}`);
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

  await timed(step, "follows and blocks", async () => {
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

  await timed(step, "likes and comments", async () => {
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
      log(`${step}:   likes and comments ${hi}/${postCount}`);
    }
  });

  await timed(step, "home timelines (fan-out on write)", async () => {
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

  await timed(step, "GIN pending lists merged", async () => {
    for (const name of ginIndexes) {
      await run(`select gin_clean_pending_list('"${name}"'::regclass)`);
      await run(`alter index "${name}" set (fastupdate = off)`);
    }
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
 * Where a step keeps its data set. A temp directory removed afterwards; or, with
 * BENCH_DATA_DIR, that directory, kept between runs and steps: the data set is generated once
 * and reused while its marker names the same number of posts (a step may leave rows it
 * changed, as a period of use would).
 */
export function datasetDir(
  prefix: string,
  postCount: number,
): { dir: string; reused: boolean; markGenerated(): void; cleanup(): void } {
  const kept = process.env.BENCH_DATA_DIR;
  if (!kept) return { ...tempDataDir(prefix), reused: false, markGenerated: () => {} };
  const marker = path.join(kept, `.soundtrail-bench-dataset-${postCount}`);
  return {
    dir: kept,
    reused: existsSync(marker),
    markGenerated: () => writeFileSync(marker, new Date().toISOString()),
    cleanup: () => {},
  };
}
