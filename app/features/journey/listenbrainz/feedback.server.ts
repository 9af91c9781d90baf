import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { artistKey } from "~/core/music-keys";
import { getDb, rowsOf } from "~/db/client.server";
import { listenFeedback, listenImportMarks, listens } from "~/db/schema";
import { recordingMsid } from "./msid.server";
import { type ApiTrackMetadata, type StoredNames, trackMetadataOf } from "./reads.server";

/** How far back an MSID given without names is looked for in the person's listens. */
const NAMES_LOOKBACK = 1000;

/**
 * Loves (1), hates (-1) or forgets (0) a recording for the person, by its MSID or MBID
 * (ListenBrainz's `recording-feedback`). Names given (a heart on a listen) are kept; an MSID
 * alone is looked for among the person's latest listens so the loved list can name it.
 */
export async function setRecordingFeedback(options: {
  userId: string;
  msid: string | null;
  mbid: string | null;
  score: -1 | 0 | 1;
  names?: StoredNames;
}): Promise<void> {
  const recording = options.mbid ?? options.msid;
  if (!recording) throw new Error("A recording needs an MSID or an MBID");
  const db = getDb();
  if (options.score === 0) {
    await db
      .delete(listenFeedback)
      .where(
        and(eq(listenFeedback.userId, options.userId), eq(listenFeedback.recording, recording)),
      );
    return;
  }
  let names = options.names ?? null;
  if (!names && options.msid) {
    names = await namesOfMsid({ userId: options.userId, msid: options.msid });
  }
  const values = {
    recordingMsid: options.msid,
    recordingMbid: options.mbid,
    score: options.score,
    artistName: names?.artistName ?? null,
    trackName: names?.trackName ?? null,
    releaseName: names?.releaseName ?? null,
    artistKey: names ? artistKey(names.artistName) : null,
    createdAt: new Date(),
  };
  await db
    .insert(listenFeedback)
    .values({ userId: options.userId, recording, ...values })
    .onConflictDoUpdate({
      target: [listenFeedback.userId, listenFeedback.recording],
      set: {
        ...values,
        artistName: sql`coalesce(excluded.artist_name, ${listenFeedback.artistName})`,
        trackName: sql`coalesce(excluded.track_name, ${listenFeedback.trackName})`,
        releaseName: sql`coalesce(excluded.release_name, ${listenFeedback.releaseName})`,
        artistKey: sql`coalesce(excluded.artist_key, ${listenFeedback.artistKey})`,
      },
    });
}

/** The names of an MSID among the person's latest listens (null when not among them). */
async function namesOfMsid(options: { userId: string; msid: string }): Promise<StoredNames | null> {
  const rows = await getDb()
    .select({
      artistName: listens.artistName,
      trackName: listens.trackName,
      releaseName: listens.releaseName,
    })
    .from(listens)
    .where(eq(listens.userId, options.userId))
    .orderBy(desc(listens.listenedAt))
    .limit(NAMES_LOOKBACK);
  return rows.find((row) => recordingMsid(row) === options.msid) ?? null;
}

/** One feedback as ListenBrainz's `Feedback.to_api()`. */
export interface ApiFeedback {
  user_id: string;
  recording_msid: string | null;
  recording_mbid: string | null;
  score: number;
  created: number;
  track_metadata: ApiTrackMetadata | null;
}

/**
 * The person's feedback, newest first, `offset` and `count` as ListenBrainz pages it, with the
 * total; `score` 1 or -1 filters; `metadata` adds the names when known.
 */
export async function listRecordingFeedback(options: {
  userId: string;
  username: string;
  score: number | null;
  count: number;
  offset: number;
  metadata: boolean;
  hidden: string[];
}): Promise<{ feedback: ApiFeedback[]; total: number }> {
  const conditions = [sql`${listenFeedback.userId} = ${options.userId}`];
  if (options.score) conditions.push(sql`${listenFeedback.score} = ${options.score}`);
  if (options.hidden.length > 0) {
    // An artist hidden from the reader is left out here too (by its key, as the history does).
    conditions.push(sql`(${listenFeedback.artistKey} is null or ${listenFeedback.artistKey}
      not in (select jsonb_array_elements_text(${JSON.stringify(options.hidden)}::jsonb)))`);
  }
  const where = sql.join(conditions, sql` and `);
  const [rows, [total]] = await Promise.all([
    getDb()
      .select({
        recordingMsid: listenFeedback.recordingMsid,
        recordingMbid: listenFeedback.recordingMbid,
        score: listenFeedback.score,
        createdAt: listenFeedback.createdAt,
        artistName: listenFeedback.artistName,
        trackName: listenFeedback.trackName,
        releaseName: listenFeedback.releaseName,
      })
      .from(listenFeedback)
      .where(where)
      .orderBy(desc(listenFeedback.createdAt))
      .limit(options.count)
      .offset(options.offset),
    rowsOf<{ n: number }>(
      await getDb().execute(sql`select count(*)::int as n from ${listenFeedback} where ${where}`),
    ),
  ]);
  return {
    total: Number(total?.n ?? 0),
    feedback: rows.map((row) => ({
      user_id: options.username,
      recording_msid: row.recordingMsid,
      recording_mbid: row.recordingMbid,
      score: row.score,
      created: Math.floor(row.createdAt.getTime() / 1000),
      track_metadata:
        options.metadata && row.artistName && row.trackName
          ? trackMetadataOf(
              {
                artistName: row.artistName,
                trackName: row.trackName,
                releaseName: row.releaseName,
              },
              row.recordingMsid ? { recording_msid: row.recordingMsid } : {},
            )
          : null,
    })),
  };
}

/** The scores the person gave these MSIDs (hearts on a page of listens). */
export async function feedbackForMsids(options: {
  userId: string;
  msids: string[];
}): Promise<Map<string, number>> {
  const scores = new Map<string, number>();
  if (options.msids.length === 0) return scores;
  const rows = await getDb()
    .select({ msid: listenFeedback.recordingMsid, score: listenFeedback.score })
    .from(listenFeedback)
    .where(
      and(
        eq(listenFeedback.userId, options.userId),
        inArray(listenFeedback.recording, [...new Set(options.msids)]),
      ),
    );
  for (const row of rows) if (row.msid) scores.set(row.msid, row.score);
  return scores;
}

/** The services ListenBrainz's `ExternalServiceType` knows (its names, lower case). */
export const IMPORT_SERVICES = [
  "spotify",
  "critiquebrainz",
  "musicbrainz",
  "lastfm",
  "librefm",
  "soundcloud",
  "apple",
  "funkwhale",
  "navidrome",
] as const;

/** The newest listen an importer said it sent for the person (0 when none). */
export async function getLatestImport(options: {
  userId: string;
  service: string;
}): Promise<number> {
  const [row] = await getDb()
    .select({ ts: listenImportMarks.latestListenedAt })
    .from(listenImportMarks)
    .where(
      and(
        eq(listenImportMarks.userId, options.userId),
        eq(listenImportMarks.service, options.service),
      ),
    );
  return Number(row?.ts ?? 0);
}

/** Raises the mark to `ts` (a smaller one changes nothing, as on ListenBrainz). */
export async function raiseLatestImport(options: {
  userId: string;
  service: string;
  ts: number;
}): Promise<void> {
  await getDb()
    .insert(listenImportMarks)
    .values({ userId: options.userId, service: options.service, latestListenedAt: options.ts })
    .onConflictDoUpdate({
      target: [listenImportMarks.userId, listenImportMarks.service],
      set: { latestListenedAt: options.ts, updatedAt: new Date() },
      setWhere: sql`${listenImportMarks.latestListenedAt} < excluded.latest_listened_at`,
    });
}
