import { sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { getDb, rowsOf } from "~/db/client.server";
import { listenFeedback, listens } from "~/db/schema";
import { getJourneyAccess } from "../access.server";
import { feedbackForMsids, setRecordingFeedback } from "./feedback.server";
import { recordingMsid } from "./msid.server";
import { deleteUserListen } from "./reads.server";

/** Listens a page of recent listens shows. */
export const RECENT_LISTENS_PAGE = 10;

export interface RecentListen {
  /** Epoch seconds (what the love and delete forms name the listen by, with the MSID). */
  ts: number;
  listenedAt: string;
  artistName: string;
  trackName: string;
  releaseName: string | null;
  msid: string;
  /** The viewer's own love of the recording: 1, -1 or 0. */
  score: number;
}

export interface RecentListens {
  items: RecentListen[];
  /** The next (older) page, or null at the end. */
  nextCursor: string | null;
  isOwner: boolean;
}

interface Cursor {
  ts: number;
  artistKey: string;
  trackKey: string;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.ts, cursor.artistKey, cursor.trackKey])).toString(
    "base64url",
  );
}

function decodeCursor(value: string | null | undefined): Cursor | null {
  if (!value || value.length > 2000) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [ts, artistKey, trackKey] = parsed;
    if (
      !Number.isSafeInteger(ts) ||
      typeof artistKey !== "string" ||
      typeof trackKey !== "string"
    ) {
      return null;
    }
    return { ts, artistKey, trackKey };
  } catch {
    return null;
  }
}

/**
 * The person's latest listens as the viewer may see them (the journey's rule; hidden artists
 * left out for others), newest first, a page at a time (keyset on the history's natural-key
 * index), each with the viewer's own love of the recording. Null when the viewer may not see
 * the journey.
 */
export async function listRecentListens(options: {
  viewerId: string | null;
  ownerId: string;
  cursor?: string | null;
}): Promise<RecentListens | null> {
  const access = await getJourneyAccess({ viewerId: options.viewerId, ownerId: options.ownerId });
  if (!access.allowed) return null;
  const cursor = decodeCursor(options.cursor);
  const hidden = access.hiddenArtists;
  const rows = rowsOf<{
    ts: string;
    artist_name: string;
    track_name: string;
    release_name: string | null;
    artist_key: string;
    track_key: string;
  }>(
    await getDb().execute(sql`
      select extract(epoch from ${listens.listenedAt})::bigint as ts,
        ${listens.artistName} as artist_name, ${listens.trackName} as track_name,
        ${listens.releaseName} as release_name, ${listens.artistKey} as artist_key,
        ${listens.trackKey} as track_key
      from ${listens}
      where ${listens.userId} = ${options.ownerId}
        ${
          hidden.length > 0
            ? sql`and ${listens.artistKey} not in (select jsonb_array_elements_text(${JSON.stringify(hidden)}::jsonb))`
            : sql``
        }
        ${
          cursor
            ? sql`and (${listens.listenedAt}, ${listens.artistKey}, ${listens.trackKey})
                < (to_timestamp(${cursor.ts}), ${cursor.artistKey}, ${cursor.trackKey})`
            : sql``
        }
      order by ${listens.userId} desc, ${listens.listenedAt} desc, ${listens.artistKey} desc,
        ${listens.trackKey} desc
      limit ${RECENT_LISTENS_PAGE + 1}`),
  );
  const page = rows.slice(0, RECENT_LISTENS_PAGE);
  const items = page.map((row) => {
    const names = {
      artistName: row.artist_name,
      trackName: row.track_name,
      releaseName: row.release_name,
    };
    const ts = Number(row.ts);
    return {
      ts,
      listenedAt: new Date(ts * 1000).toISOString(),
      ...names,
      msid: recordingMsid(names),
      score: 0,
    };
  });
  if (options.viewerId && items.length > 0) {
    const scores = await feedbackForMsids({
      userId: options.viewerId,
      msids: items.map((item) => item.msid),
    });
    for (const item of items) item.score = scores.get(item.msid) ?? 0;
  }
  const last = page.at(-1);
  return {
    items,
    nextCursor:
      rows.length > RECENT_LISTENS_PAGE && last
        ? encodeCursor({
            ts: Number(last.ts),
            artistKey: last.artist_key,
            trackKey: last.track_key,
          })
        : null,
    isOwner: access.isOwner,
  };
}

const LISTEN_NOT_FOUND = "That listen is not there any more, or you cannot see it.";

/**
 * The viewer loves (or stops loving) the recording of one of the listens they can see, theirs or
 * someone else's: the love is the viewer's own, kept with the listen's names.
 */
export async function loveListen(options: {
  viewerId: string;
  ownerId: string;
  ts: number;
  msid: string;
  isLoved: boolean;
}): Promise<{ isLoved: boolean }> {
  const access = await getJourneyAccess({ viewerId: options.viewerId, ownerId: options.ownerId });
  if (!access.allowed) throw new AppError("not_found", LISTEN_NOT_FOUND);
  const rows = await getDb()
    .select({
      artistName: listens.artistName,
      trackName: listens.trackName,
      releaseName: listens.releaseName,
      artistKey: listens.artistKey,
    })
    .from(listens)
    .where(
      sql`${listens.userId} = ${options.ownerId} and ${listens.listenedAt} = to_timestamp(${options.ts})`,
    );
  const listen = rows.find(
    (row) => recordingMsid(row) === options.msid && !access.hiddenArtists.includes(row.artistKey),
  );
  if (!listen) throw new AppError("not_found", LISTEN_NOT_FOUND);
  await setRecordingFeedback({
    userId: options.viewerId,
    msid: options.msid,
    mbid: null,
    score: options.isLoved ? 1 : 0,
    names: listen,
  });
  return { isLoved: options.isLoved };
}

/** Deletes one of the viewer's own listens (the journey's numbers follow). */
export async function deleteOwnListen(options: {
  viewerId: string;
  ts: number;
  msid: string;
}): Promise<{ deleted: number }> {
  const deleted = await deleteUserListen({
    userId: options.viewerId,
    listenedAt: options.ts,
    msid: options.msid,
  });
  if (deleted === 0) throw new AppError("not_found", LISTEN_NOT_FOUND);
  return { deleted };
}

export interface LovedTrack {
  artistName: string;
  trackName: string;
  releaseName: string | null;
  lovedAt: string;
}

/** Loved tracks a profile shows (the latest). */
export const LOVED_TRACKS_SHOWN = 10;

/**
 * The person's latest loved tracks (their hearts and their players' loves that Soundtrail can
 * name), for those the journey's audience allows, hidden artists left out for others; null when
 * the viewer may not see the journey.
 */
export async function listLovedTracks(options: {
  viewerId: string | null;
  ownerId: string;
}): Promise<LovedTrack[] | null> {
  const access = await getJourneyAccess({ viewerId: options.viewerId, ownerId: options.ownerId });
  if (!access.allowed) return null;
  const rows = rowsOf<{
    artist_name: string;
    track_name: string;
    release_name: string | null;
    created_at: string | Date;
  }>(
    await getDb().execute(sql`
      select ${listenFeedback.artistName} as artist_name, ${listenFeedback.trackName} as track_name,
        ${listenFeedback.releaseName} as release_name, ${listenFeedback.createdAt} as created_at
      from ${listenFeedback}
      where ${listenFeedback.userId} = ${options.ownerId} and ${listenFeedback.score} = 1
        and ${listenFeedback.artistName} is not null and ${listenFeedback.trackName} is not null
        ${
          access.hiddenArtists.length > 0
            ? sql`and ${listenFeedback.artistKey} not in (select jsonb_array_elements_text(${JSON.stringify(access.hiddenArtists)}::jsonb))`
            : sql``
        }
      order by ${listenFeedback.createdAt} desc
      limit ${LOVED_TRACKS_SHOWN}`),
  );
  return rows.map((row) => ({
    artistName: row.artist_name,
    trackName: row.track_name,
    releaseName: row.release_name,
    lovedAt: new Date(row.created_at).toISOString(),
  }));
}
