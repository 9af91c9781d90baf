import { type SQL, sql } from "drizzle-orm";
import { artistKey } from "~/core/music-keys";
import { getDb, rowsOf } from "~/db/client.server";
import { journeySettings, listenDays, listens, nowPlaying } from "~/db/schema";
import { queueJourneyAggregate } from "../aggregates.server";
import { publishListenChange } from "./live.server";
import { recordingMsid } from "./msid.server";

/** ListenBrainz's DEFAULT_ITEMS_PER_GET and MAX_ITEMS_PER_GET. */
export const DEFAULT_ITEMS_PER_GET = 25;
export const MAX_ITEMS_PER_GET = 1000;

/** A listen as ListenBrainz's `Listen.to_api()` writes it. */
export interface ApiListen {
  listened_at: number;
  inserted_at: number;
  recording_msid: string;
  user_name: string;
  track_metadata: ApiTrackMetadata;
}

export interface ApiTrackMetadata {
  artist_name: string;
  track_name: string;
  release_name?: string;
  additional_info: Record<string, unknown>;
}

export interface StoredNames {
  artistName: string;
  trackName: string;
  releaseName: string | null;
}

/** The `track_metadata` of stored names (the history keeps names and a length, no MBIDs). */
export function trackMetadataOf(
  names: StoredNames & { durationMs?: number | null },
  extra: Record<string, unknown> = {},
): ApiTrackMetadata {
  return {
    artist_name: names.artistName,
    track_name: names.trackName,
    ...(names.releaseName ? { release_name: names.releaseName } : {}),
    additional_info: {
      ...(names.durationMs ? { duration_ms: names.durationMs } : {}),
      ...extra,
    },
  };
}

/** The hidden-artist filter on `listens` (keys compared as one JSON parameter). */
function notHidden(hidden: string[]): SQL {
  if (hidden.length === 0) return sql`true`;
  return sql`${listens.artistKey} not in (select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb))`;
}

const epoch = (column: SQL | typeof listens.listenedAt) =>
  sql`extract(epoch from ${column})::bigint`;

/**
 * A person's listens as ListenBrainz's `GET /1/user/{user}/listens` answers: at most `count`,
 * newest first; with `maxTs` those before it, with `minTs` those after it (the `count` just
 * after `minTs` when only it is given, still newest first), both exclusive. The artists the reader
 * may not see are left out, of the listens and of the first and latest times. Each walk follows
 * the history's (user_id, listened_at, artist_key, track_key) index from one end (keyset).
 */
export async function listUserListens(options: {
  userId: string;
  username: string;
  hidden: string[];
  count: number;
  minTs: number | null;
  maxTs: number | null;
}): Promise<{
  count: number;
  listens: ApiListen[];
  latest_listen_ts: number;
  oldest_listen_ts: number;
}> {
  const { userId, hidden, count, minTs, maxTs } = options;
  const db = getDb();
  const [range] = rowsOf<{ latest: string | null; oldest: string | null }>(
    await db.execute(sql`select
      (select ${epoch(listens.listenedAt)} from ${listens} where ${listens.userId} = ${userId}
        and ${notHidden(hidden)} order by ${listens.listenedAt} desc limit 1) as latest,
      (select ${epoch(listens.listenedAt)} from ${listens} where ${listens.userId} = ${userId}
        and ${notHidden(hidden)} order by ${listens.listenedAt} asc limit 1) as oldest`),
  );
  const latest = Number(range?.latest ?? 0);
  const oldest = Number(range?.oldest ?? 0);
  let rows: {
    listened_at: string;
    inserted_at: string;
    artist_name: string;
    track_name: string;
    release_name: string | null;
    duration_ms: number | null;
  }[] = [];
  if (count > 0 && range?.latest != null) {
    const isAscending = minTs !== null && maxTs === null;
    rows = rowsOf(await db.execute(listensPageQuery({ userId, hidden, count, minTs, maxTs })));
    if (isAscending) rows.reverse();
  }
  const apiListens = rows.map((row) => {
    const names = {
      artistName: row.artist_name,
      trackName: row.track_name,
      releaseName: row.release_name,
      durationMs: row.duration_ms,
    };
    return {
      listened_at: Number(row.listened_at),
      inserted_at: Number(row.inserted_at),
      recording_msid: recordingMsid(names),
      user_name: options.username,
      track_metadata: trackMetadataOf(names),
    };
  });
  return {
    count: apiListens.length,
    listens: apiListens,
    latest_listen_ts: latest,
    oldest_listen_ts: oldest,
  };
}

/**
 * One page of a person's listens as ListenBrainz orders it (see listUserListens): a walk of the
 * (user_id, listened_at, artist_key, track_key) index from one end, no sort.
 */
export function listensPageQuery(options: {
  userId: string;
  hidden: string[];
  count: number;
  minTs: number | null;
  maxTs: number | null;
}): SQL {
  const { userId, hidden, count, minTs, maxTs } = options;
  const isAscending = minTs !== null && maxTs === null;
  const direction = sql.raw(isAscending ? "asc" : "desc");
  const conditions = [sql`${listens.userId} = ${userId}`, notHidden(hidden)];
  if (minTs !== null) conditions.push(sql`${listens.listenedAt} > to_timestamp(${minTs})`);
  if (maxTs !== null) conditions.push(sql`${listens.listenedAt} < to_timestamp(${maxTs})`);
  return sql`
    select ${epoch(listens.listenedAt)} as listened_at,
      ${epoch(sql`date_trunc('second', ${listens.createdAt})`)} as inserted_at,
      ${listens.artistName} as artist_name, ${listens.trackName} as track_name,
      ${listens.releaseName} as release_name, ${listens.durationMs} as duration_ms
    from ${listens}
    where ${sql.join(conditions, sql` and `)}
    order by ${listens.userId} ${direction}, ${listens.listenedAt} ${direction},
      ${listens.artistKey} ${direction}, ${listens.trackKey} ${direction}
    limit ${count}`;
}

/**
 * How many listens a person has (the per-day counts the history keeps by trigger), less the
 * plays of artists the reader may not see.
 */
export async function countUserListens(options: {
  userId: string;
  hidden: string[];
}): Promise<number> {
  const { userId, hidden } = options;
  const hiddenPlays =
    hidden.length === 0
      ? sql`0`
      : sql`(select count(*) from ${listens} where ${listens.userId} = ${userId}
          and ${listens.artistKey} in (select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb)))`;
  const [row] = rowsOf<{ n: string | number }>(
    await getDb().execute(sql`select (
      coalesce((select sum(${listenDays.plays}) from ${listenDays} where ${listenDays.userId} = ${userId}), 0)
      - ${hiddenPlays})::bigint as n`),
  );
  return Number(row?.n ?? 0);
}

/**
 * What the person's player says is playing, as ListenBrainz's playing-now listen (no
 * `listened_at`), unless it ran out, the person paused "now playing" (for others) or its artist
 * is hidden from the reader.
 */
export async function playingNowOf(options: {
  userId: string;
  username: string;
  hidden: string[];
  isOwner: boolean;
}): Promise<{ track_metadata: ApiTrackMetadata; user_name: string; playing_now: true }[]> {
  const paused = options.isOwner
    ? sql`false`
    : sql`coalesce((select ${journeySettings.nowPlayingPaused} from ${journeySettings}
        where ${journeySettings.userId} = ${options.userId}), false)`;
  const [row] = rowsOf<{
    artist_name: string;
    track_name: string;
    release_name: string | null;
    duration_ms: number | null;
  }>(
    await getDb().execute(sql`
      select ${nowPlaying.artistName} as artist_name, ${nowPlaying.trackName} as track_name,
        ${nowPlaying.releaseName} as release_name, ${nowPlaying.durationMs} as duration_ms
      from ${nowPlaying}
      where ${nowPlaying.userId} = ${options.userId} and ${nowPlaying.expiresAt} > now()
        and not ${paused}`),
  );
  if (!row) return [];
  const names = {
    artistName: row.artist_name,
    trackName: row.track_name,
    releaseName: row.release_name,
    durationMs: row.duration_ms,
  };
  if (options.hidden.includes(artistKey(names.artistName))) return [];
  return [
    {
      track_metadata: trackMetadataOf(names, { recording_msid: recordingMsid(names) }),
      user_name: options.username,
      playing_now: true,
    },
  ];
}

/**
 * Deletes the person's listen at `listenedAt` whose MSID is `msid` (ListenBrainz's
 * `delete-listen`; nothing there is no error, as there). The journey's aggregates follow, as they
 * do after a scrobble. Returns how many went.
 */
export async function deleteUserListen(options: {
  userId: string;
  listenedAt: number;
  msid: string;
}): Promise<number> {
  return getDb().transaction(async (tx) => {
    const candidates = rowsOf<{
      id: number;
      artist_name: string;
      track_name: string;
      release_name: string | null;
    }>(
      await tx.execute(sql`
        select ${listens.id} as id, ${listens.artistName} as artist_name,
          ${listens.trackName} as track_name, ${listens.releaseName} as release_name
        from ${listens}
        where ${listens.userId} = ${options.userId}
          and ${listens.listenedAt} = to_timestamp(${options.listenedAt})
        for update`),
    );
    const ids = candidates
      .filter(
        (row) =>
          recordingMsid({
            artistName: row.artist_name,
            trackName: row.track_name,
            releaseName: row.release_name,
          }) === options.msid,
      )
      .map((row) => Number(row.id));
    if (ids.length === 0) return 0;
    await tx.execute(
      sql`delete from ${listens} where ${listens.userId} = ${options.userId}
        and ${listens.id} in (select jsonb_array_elements_text(${JSON.stringify(ids.map(String))}::jsonb)::bigint)`,
    );
    await queueJourneyAggregate(tx, options.userId);
    const deleted = candidates.filter((row) => ids.includes(Number(row.id)));
    await publishListenChange(tx, {
      userId: options.userId,
      artistKeys: [...new Set(deleted.map((row) => artistKey(row.artist_name)))],
    });
    return ids.length;
  });
}
