import { sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { comments, postLikes, posts, profiles, session } from "~/db/schema";
import { assertAdmin } from "./access.server";

/** How many days the per-day charts cover (today included, UTC days). */
export const STATISTICS_DAYS = 30;

export interface DailyCount {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  accounts: number;
  posts: number;
}

export interface Statistics {
  totals: { profiles: number; posts: number; likes: number; comments: number };
  daily: DailyCount[];
  /**
   * Distinct people who posted, liked, commented or used a signed-in session (created or
   * refreshed it; sessions refresh at most daily) in the last 7 and 30 days.
   */
  active: { last7Days: number; last30Days: number };
}

type Row = Record<string, unknown>;

function rowsOf(result: unknown): Row[] {
  // node-postgres returns { rows }, PGlite returns { rows } too; keep the access in one place.
  return (result as { rows: Row[] }).rows;
}

/** Exact counts, new accounts and posts per day over 30 days, and active people (3 queries). */
export async function getStatistics(options: { actorId: string }): Promise<Statistics> {
  await assertAdmin(options.actorId);
  const db = getDb();
  const [totals] = rowsOf(
    await db.execute(sql`select
      (select count(*) from ${profiles})::int as profiles,
      (select count(*) from ${posts})::int as posts,
      (select count(*) from ${postLikes})::int as likes,
      (select count(*) from ${comments})::int as comments`),
  );
  const start = sql`(((now() at time zone 'UTC')::date - ${STATISTICS_DAYS - 1}::int)::timestamp at time zone 'UTC')`;
  const daily = rowsOf(
    await db.execute(sql`
      with days as (
        select d::date as day
        from generate_series((now() at time zone 'UTC')::date - ${STATISTICS_DAYS - 1}::int,
                             (now() at time zone 'UTC')::date, interval '1 day') as d
      ),
      accounts as (
        select (${profiles.createdAt} at time zone 'UTC')::date as day, count(*)::int as n
        from ${profiles} where ${profiles.createdAt} >= ${start} group by 1
      ),
      new_posts as (
        select (${posts.createdAt} at time zone 'UTC')::date as day, count(*)::int as n
        from ${posts} where ${posts.createdAt} >= ${start} group by 1
      )
      select to_char(days.day, 'YYYY-MM-DD') as day,
             coalesce(accounts.n, 0) as accounts, coalesce(new_posts.n, 0) as posts
      from days
      left join accounts on accounts.day = days.day
      left join new_posts on new_posts.day = days.day
      order by days.day`),
  );
  const [active] = rowsOf(
    await db.execute(sql`
      with activity as (
        select ${posts.authorId} as user_id, ${posts.createdAt} as at from ${posts}
          where ${posts.createdAt} >= now() - interval '30 days'
        union all
        select ${postLikes.userId}, ${postLikes.createdAt} from ${postLikes}
          where ${postLikes.createdAt} >= now() - interval '30 days'
        union all
        select ${comments.userId}, ${comments.createdAt} from ${comments}
          where ${comments.createdAt} >= now() - interval '30 days'
        union all
        -- better-auth keeps session times as UTC timestamps without a zone.
        select ${session.userId}, ${session.updatedAt} at time zone 'UTC' from ${session}
          where ${session.updatedAt} >= (now() at time zone 'UTC') - interval '30 days'
      )
      select
        (count(distinct user_id) filter (where at >= now() - interval '7 days'))::int as last7,
        count(distinct user_id)::int as last30
      from activity`),
  );
  return {
    totals: {
      profiles: Number(totals?.profiles ?? 0),
      posts: Number(totals?.posts ?? 0),
      likes: Number(totals?.likes ?? 0),
      comments: Number(totals?.comments ?? 0),
    },
    daily: daily.map((row) => ({
      day: String(row.day),
      accounts: Number(row.accounts),
      posts: Number(row.posts),
    })),
    active: { last7Days: Number(active?.last7 ?? 0), last30Days: Number(active?.last30 ?? 0) },
  };
}
