import { createHash } from "node:crypto";
import { and, eq, lt, or, sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { journeyStatsCache, listenVersions } from "~/db/schema";

/**
 * Computes a result from someone's plays once per listen version: the triggers on `listens`
 * raise the version whenever their plays change, so a cached value is used only while the plays
 * it came from are unchanged. `keyParts` must hold everything else the result depends on (period,
 * hidden artists, the day for "current streak"). One statement on a hit; on a miss the
 * computation, then one upsert and a cleanup of the person's stale rows.
 */
export async function cachedByListens<T>(
  userId: string,
  keyParts: unknown[],
  compute: () => Promise<T>,
): Promise<T> {
  const key = createHash("sha256").update(JSON.stringify(keyParts)).digest("base64url");
  const db = getDb();
  const version = sql`coalesce((select ${listenVersions.version} from ${listenVersions} where ${listenVersions.userId} = ${userId}), 0)`;
  const [row] = (
    (await db.execute(sql`select ${version}::bigint as version,
        (select ${journeyStatsCache.stats} from ${journeyStatsCache}
          where ${journeyStatsCache.userId} = ${userId} and ${journeyStatsCache.key} = ${key}
            and ${journeyStatsCache.version} = ${version}) as stats`)) as unknown as {
      rows: { version: string | number; stats: T | null }[];
    }
  ).rows;
  if (row?.stats) return row.stats;
  const current = Number(row?.version ?? 0);
  const result = await compute();
  await db
    .insert(journeyStatsCache)
    .values({ userId, key, version: current, stats: result as object })
    .onConflictDoUpdate({
      target: [journeyStatsCache.userId, journeyStatsCache.key],
      set: { version: current, stats: result as object, createdAt: new Date() },
    });
  await db
    .delete(journeyStatsCache)
    .where(
      and(
        eq(journeyStatsCache.userId, userId),
        or(
          lt(journeyStatsCache.version, current),
          lt(journeyStatsCache.createdAt, new Date(Date.now() - 2 * 86_400_000)),
        ),
      ),
    );
  return result;
}
