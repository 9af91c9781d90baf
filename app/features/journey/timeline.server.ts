import { and, gte, lt, sql } from "drizzle-orm";
import { canSeePost } from "~/core/visibility.server";
import { getDb } from "~/db/client.server";
import { posts } from "~/db/schema";

export interface TimelinePost {
  id: string;
  title: string;
  artist: string | null;
  createdAt: string;
}

/** The person's posts in [start, end) the viewer may see (the shared post rule), newest first. */
export async function listPostsInPeriod(options: {
  viewerId: string | null;
  authorId: string;
  start: Date;
  end: Date;
  limit?: number;
}): Promise<{ posts: TimelinePost[]; days: { day: string; posts: number }[] }> {
  const where = and(
    sql`${posts.authorId} = ${options.authorId}`,
    gte(posts.createdAt, options.start),
    lt(posts.createdAt, options.end),
    canSeePost(options.viewerId),
  );
  const db = getDb();
  const [list, days] = await Promise.all([
    db
      .select({
        id: posts.id,
        title: posts.title,
        artist: posts.artist,
        createdAt: posts.createdAt,
      })
      .from(posts)
      .where(where)
      .orderBy(sql`${posts.createdAt} desc nulls last`)
      .limit(options.limit ?? 20),
    db
      .select({
        day: sql<string>`to_char(${posts.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
        posts: sql<number>`count(*)::int`,
      })
      .from(posts)
      .where(where)
      .groupBy(sql`1`)
      .orderBy(sql`1`),
  ]);
  return {
    posts: list.map((p) => ({ ...p, createdAt: p.createdAt.toISOString() })),
    days: days.map((d) => ({ day: d.day, posts: Number(d.posts) })),
  };
}
