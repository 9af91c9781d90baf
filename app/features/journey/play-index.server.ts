import { sql } from "drizzle-orm";
import { type DatabaseHandle, getDatabase, rowsOf } from "~/db/client.server";

/*
 * Each person's plays held in memory, in columns, for everything the journey shows: top lists,
 * totals, plays over time, the clock, streaks, discoveries, chapters, taste match (ADR 025). Summing a million plays in typed arrays takes
 * milliseconds; the same in SQL on PGlite took seconds, and per-key rollup rows made every
 * imported play cost seven row writes (ADR 024).
 *
 * The database stays the truth: `listen_days` has one row per person and day with plays, and
 * the trigger on `listens` gives every day a statement touches a new `rev` (migration 0027). Each
 * use reads the person's (day, rev, plays) list in one statement and reloads only the days whose rev
 * changed, so every instance of the app follows every writer (imports, scrobbles, undo, deletes,
 * or SQL typed by hand) without being told. A reload reads the plays of runs of changed days; on
 * PGlite through `COPY … TO '/dev/blob'`, about seven times faster than rows, in runs of at most
 * RELOAD_PLAYS plays so the one connection is never held long.
 */

const DAY_SECONDS = 86_400;

/** True when `date` is midnight UTC: the play index answers only periods on day boundaries. */
export function isDayStart(date: Date): boolean {
  return date.getTime() % (DAY_SECONDS * 1000) === 0;
}

/**
 * Most plays (and days) read per statement when reloading: 10,000 plays hold PGlite's one
 * connection ~20 ms and this process ~40 ms, so other requests are served in between.
 */
const RELOAD_PLAYS = 10_000;
const RELOAD_DAYS = 31;
/**
 * Plays kept in memory across everyone's indexes (32 bytes each in typed arrays, plus the names);
 * the least recently used indexes are dropped beyond it and rebuilt when next needed.
 */
const MAX_INDEXED_PLAYS = 2_000_000;

/** Strings to dense ids, so the plays are stored as numbers. */
class Dictionary {
  readonly ids = new Map<string, number>();
  readonly values: string[] = [];
  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }
}

/**
 * Releases or tracks: a key is unique within its artist. Ids are dense; `values` holds each as
 * the stats show it, `${artistKey}/${key}` (two pairs may show alike, and stay apart).
 */
class ArtistItems {
  private readonly byArtist: Map<string, number>[] = [];
  readonly values: string[] = [];
  id(artist: number, artistKey: string, key: string): number {
    let items = this.byArtist[artist];
    if (!items) {
      items = new Map();
      this.byArtist[artist] = items;
    }
    let id = items.get(key);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(`${artistKey}/${key}`);
      items.set(key, id);
    }
    return id;
  }
}

/** One day's plays in columns: ids into the index's dictionaries (-1: no release). */
interface DayPlays {
  rev: string;
  /** The day's totals of every play, for the day stats without hidden artists. */
  totals: { knownMs: number; estimated: number; hours: number[] };
  /** Seconds after the day's midnight (UTC). */
  at: Int32Array;
  /** How long it played in milliseconds, -1 when the source did not say. */
  ms: Int32Array;
  artist: Int32Array;
  release: Int32Array;
  track: Int32Array;
  artistName: Int32Array;
  releaseName: Int32Array;
  trackName: Int32Array;
}

interface PlayIndex {
  /** Day number (days since 1970-01-01, UTC) → its plays. */
  days: Map<number, DayPlays>;
  /** The days in order (rebuilt after a change). */
  order: number[] | null;
  plays: number;
  artists: Dictionary;
  releases: ArtistItems;
  tracks: ArtistItems;
  names: Dictionary;
  /**
   * Per artist, release and track id, the one name id its plays were written with (and for
   * releases and tracks, the one artist name), or -1 once two were seen: a key with one
   * spelling needs no counting of names. Reloads only ever turn an entry into -1.
   */
  sole: {
    artist: number[];
    release: number[];
    releaseArtist: number[];
    track: number[];
    trackArtist: number[];
  };
  /** Each artist's first play (seconds since 1970), computed when first needed after a change. */
  firstAt: Float64Array | null;
  /** Single flight: a sync in progress, awaited by anyone else who needs the index. */
  syncing: Promise<void> | null;
  lastUsed: number;
}

const indexes = new WeakMap<object, Map<string, PlayIndex>>();

function cacheFor(handle: DatabaseHandle): Map<string, PlayIndex> {
  let cache = indexes.get(handle.db);
  if (!cache) {
    cache = new Map();
    indexes.set(handle.db, cache);
  }
  return cache;
}

function newIndex(): PlayIndex {
  return {
    days: new Map(),
    order: null,
    plays: 0,
    artists: new Dictionary(),
    releases: new ArtistItems(),
    tracks: new ArtistItems(),
    names: new Dictionary(),
    sole: { artist: [], release: [], releaseArtist: [], track: [], trackArtist: [] },
    firstAt: null,
    syncing: null,
    lastUsed: 0,
  };
}

/** COPY's text format: `\N` is null; backslash escapes for backslash and control characters. */
const COPY_ESCAPES: Record<string, string> = {
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};
function copyField(field: string): string | null {
  if (field === "\\N") return null;
  if (!field.includes("\\")) return field;
  return field.replace(/\\(.)/g, (_, c: string) => COPY_ESCAPES[c] ?? c);
}

/** A SQL string literal (standard_conforming_strings is on: only quotes are doubled). */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

type PlayRow = [
  number,
  string,
  string,
  string | null,
  string,
  string,
  string | null,
  number | null,
];

const PLAY_COLUMNS = `extract(epoch from listened_at)::bigint as at, artist_key, track_key,
  release_key, artist_name, track_name, release_name, duration_ms`;

/** The person's plays in [fromDay, toDay) (day numbers), in no particular order. */
async function readPlays(
  handle: DatabaseHandle,
  userId: string,
  fromDay: number,
  toDay: number,
): Promise<PlayRow[]> {
  const from = fromDay * DAY_SECONDS;
  const to = toDay * DAY_SECONDS;
  if (handle.pglite) {
    const result = await handle.pglite.query(
      `copy (select ${PLAY_COLUMNS} from listens where user_id = ${literal(userId)}
        and listened_at >= to_timestamp(${from}) and listened_at < to_timestamp(${to})) to '/dev/blob'`,
    );
    const text = result.blob ? await result.blob.text() : "";
    const rows: PlayRow[] = [];
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const f = line.split("\t").map(copyField);
      const ms = f[7] ?? null;
      rows.push([
        Number(f[0]),
        f[1] ?? "",
        f[2] ?? "",
        f[3] ?? null,
        f[4] ?? "",
        f[5] ?? "",
        f[6] ?? null,
        ms === null ? null : Number(ms),
      ]);
    }
    return rows;
  }
  const result = await handle.db.execute(sql`select ${sql.raw(PLAY_COLUMNS)} from listens
    where user_id = ${userId} and listened_at >= to_timestamp(${from}) and listened_at < to_timestamp(${to})`);
  return rowsOf<Record<string, unknown>>(result).map((r) => {
    const v = Object.values(r);
    return [
      Number(v[0]),
      String(v[1]),
      String(v[2]),
      v[3] === null ? null : String(v[3]),
      String(v[4]),
      String(v[5]),
      v[6] === null ? null : String(v[6]),
      v[7] === null ? null : Number(v[7]),
    ];
  });
}

/** Notes that an id's play was written with `name`: its sole name, or -1 once there are two. */
function noteName(sole: number[], id: number, name: number) {
  const seen = sole[id];
  if (seen === undefined) sole[id] = name;
  else if (seen !== name) sole[id] = -1;
}

/** Stores plays read for a run of days as those days' columns (days without plays: empty). */
function storeDays(index: PlayIndex, rows: PlayRow[], revs: Map<number, string>, days: number[]) {
  const byDay = new Map<number, PlayRow[]>();
  for (const day of days) byDay.set(day, []);
  for (const row of rows) byDay.get(Math.floor(row[0] / DAY_SECONDS))?.push(row);
  for (const [day, plays] of byDay) {
    const n = plays.length;
    const d: DayPlays = {
      rev: revs.get(day) ?? "",
      totals: { knownMs: 0, estimated: 0, hours: Array.from({ length: 24 }, () => 0) },
      at: new Int32Array(n),
      ms: new Int32Array(n),
      artist: new Int32Array(n),
      release: new Int32Array(n),
      track: new Int32Array(n),
      artistName: new Int32Array(n),
      releaseName: new Int32Array(n),
      trackName: new Int32Array(n),
    };
    for (let i = 0; i < n; i++) {
      const [at, artistKey, trackKey, releaseKey, artistName, trackName, releaseName, ms] = plays[
        i
      ] as PlayRow;
      const artist = index.artists.id(artistKey);
      const names = {
        artist: index.names.id(artistName),
        track: index.names.id(trackName),
        release: releaseName === null ? -1 : index.names.id(releaseName),
      };
      d.at[i] = at - day * DAY_SECONDS;
      d.ms[i] = ms ?? -1;
      if (ms === null) d.totals.estimated++;
      else d.totals.knownMs += ms;
      const hour = Math.floor((d.at[i] as number) / 3600);
      d.totals.hours[hour] = (d.totals.hours[hour] as number) + 1;
      d.artist[i] = artist;
      const track = index.tracks.id(artist, artistKey, trackKey);
      d.track[i] = track;
      const { sole } = index;
      noteName(sole.artist, artist, names.artist);
      noteName(sole.track, track, names.track);
      noteName(sole.trackArtist, track, names.artist);
      if (releaseKey === null) d.release[i] = -1;
      else {
        const release = index.releases.id(artist, artistKey, releaseKey);
        d.release[i] = release;
        noteName(sole.release, release, names.release);
        noteName(sole.releaseArtist, release, names.artist);
      }
      d.artistName[i] = names.artist;
      d.trackName[i] = names.track;
      d.releaseName[i] = names.release;
    }
    index.plays += n - (index.days.get(day)?.at.length ?? 0);
    index.days.set(day, d);
  }
}

/** Brings the index up to the database: reloads the days whose revision changed. */
async function sync(handle: DatabaseHandle, userId: string, index: PlayIndex): Promise<void> {
  const [row] = rowsOf<{ days: string | null }>(
    await handle.db.execute(sql`select
      string_agg((day - date '1970-01-01') || '=' || rev || ':' || plays, ',') as days
      from listen_days where user_id = ${userId}`),
  );
  const revs = new Map<number, string>();
  const plays = new Map<number, number>();
  for (const entry of row?.days ? row.days.split(",") : []) {
    const at = entry.indexOf("=");
    const count = entry.indexOf(":", at);
    const day = Number(entry.slice(0, at));
    revs.set(day, entry.slice(at + 1, count));
    plays.set(day, Number(entry.slice(count + 1)));
  }
  let changed = false;
  for (const [day, d] of index.days) {
    if (!revs.has(day)) {
      index.plays -= d.at.length;
      index.days.delete(day);
      changed = true;
    }
  }
  const stale = [...revs.keys()]
    .filter((day) => index.days.get(day)?.rev !== revs.get(day))
    .sort((a, b) => a - b);
  // Runs of consecutive stale days, of at most RELOAD_PLAYS plays and RELOAD_DAYS days (and at
  // least one day): one statement per run.
  for (let i = 0; i < stale.length; ) {
    const first = stale[i] as number;
    let j = i + 1;
    let run = plays.get(first) ?? 0;
    while (
      j < stale.length &&
      stale[j] === (stale[j - 1] as number) + 1 &&
      j - i < RELOAD_DAYS &&
      run + (plays.get(stale[j] as number) ?? 0) <= RELOAD_PLAYS
    ) {
      run += plays.get(stale[j] as number) ?? 0;
      j++;
    }
    const days = stale.slice(i, j);
    const last = days[days.length - 1] as number;
    if (i > 0) {
      // PGlite answers in microtasks: without a turn of the event loop between runs, no other
      // request (nor timer) would be served until the whole reload is done.
      await new Promise((resolve) => setImmediate(resolve));
    }
    storeDays(index, await readPlays(handle, userId, first, last + 1), revs, days);
    changed = true;
    i = j;
  }
  if (changed) {
    index.order = null;
    index.firstAt = null;
  }
}

/** Drops the least recently used indexes while more than MAX_INDEXED_PLAYS plays are held. */
function evict(cache: Map<string, PlayIndex>, keep: string) {
  let total = 0;
  for (const index of cache.values()) total += index.plays;
  if (total <= MAX_INDEXED_PLAYS) return;
  const idle = [...cache.entries()]
    .filter(([userId, index]) => userId !== keep && !index.syncing)
    .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
  for (const [userId, index] of idle) {
    if (total <= MAX_INDEXED_PLAYS) break;
    cache.delete(userId);
    total -= index.plays;
  }
}

/** The person's plays as the database has them now (reloading what changed since last time). */
async function playIndex(userId: string): Promise<PlayIndex> {
  const handle = getDatabase();
  const cache = cacheFor(handle);
  let index = cache.get(userId);
  if (!index) {
    index = newIndex();
    cache.set(userId, index);
  }
  const current = index;
  current.lastUsed = Date.now();
  // Anyone arriving during a sync waits for it, then syncs again: the plays may have changed
  // after that sync read the revisions.
  while (current.syncing) await current.syncing;
  current.syncing = sync(handle, userId, current).finally(() => {
    current.syncing = null;
  });
  await current.syncing;
  evict(cache, userId);
  return current;
}

/** Forgets every index (tests: a cold start, as a new instance would begin). */
export function forgetPlayIndexes(): void {
  indexes.delete(getDatabase().db);
}

function dayOrder(index: PlayIndex): number[] {
  index.order ??= [...index.days.keys()].sort((a, b) => a - b);
  return index.order;
}

/** The days of [fromDay, toDay) with plays, in order. */
function daysIn(index: PlayIndex, fromDay: number, toDay: number): DayPlays[] {
  const order = dayOrder(index);
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((order[mid] as number) < fromDay) lo = mid + 1;
    else hi = mid;
  }
  const out: DayPlays[] = [];
  for (let i = lo; i < order.length && (order[i] as number) < toDay; i++) {
    out.push(index.days.get(order[i] as number) as DayPlays);
  }
  return out;
}

/**
 * Strings in the order of PostgreSQL's "C" collation (the database's, and what `order by`
 * on keys and `mode()` on names follow): by code point. JavaScript's `<` compares UTF-16 code
 * units, which differs only between astral characters and U+E000–U+FFFF.
 */
export function compareC(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** The `limit` ids with the most counts (ties by their shown key), most first. */
function topIds(counts: Int32Array, limit: number, keyOf: (id: number) => string): number[] {
  const best: number[] = [];
  const better = (a: number, b: number) =>
    (counts[a] as number) - (counts[b] as number) || compareC(keyOf(b), keyOf(a));
  for (let id = 0; id < counts.length; id++) {
    if ((counts[id] as number) === 0) continue;
    if (best.length === limit && better(id, best[limit - 1] as number) <= 0) continue;
    let at = Math.min(best.length, limit - 1);
    best[at] = id;
    while (at > 0 && better(id, best[at - 1] as number) > 0) {
      best[at] = best[at - 1] as number;
      best[at - 1] = id;
      at--;
    }
  }
  return best;
}

/**
 * Names counted by the plays of a few chosen ids (what a list shows): a short list per id, since a
 * key has few spellings. `slotOf` maps an id to its list (1-based; 0: not chosen), so the pass
 * over the plays costs one typed-array read per play and kind.
 */
class NameCounts {
  readonly slotOf: Int32Array;
  private readonly ids: number[][] = [];
  private readonly counts: number[][] = [];
  /** Whether any chosen id has more than one name (else the pass over the plays is skipped). */
  readonly needed: boolean;
  constructor(
    size: number,
    chosen: Iterable<number>,
    private readonly sole: number[],
  ) {
    this.slotOf = new Int32Array(size);
    for (const id of chosen) {
      if (this.slotOf[id] !== 0 || (sole[id] ?? -1) >= 0) continue;
      this.ids.push([]);
      this.counts.push([]);
      this.slotOf[id] = this.ids.length;
    }
    this.needed = this.ids.length > 0;
  }
  add(slot: number, name: number): void {
    const ids = this.ids[slot - 1] as number[];
    const counts = this.counts[slot - 1] as number[];
    const at = ids.indexOf(name);
    if (at < 0) {
      ids.push(name);
      counts.push(1);
    } else counts[at] = (counts[at] as number) + 1;
  }
  /** The id's most frequent name (ties: the first in sort order, as `mode()` picks). */
  mode(id: number, names: string[]): string {
    const slot = this.slotOf[id] as number;
    if (slot === 0) return names[this.sole[id] as number] ?? "";
    const ids = this.ids[slot - 1] as number[];
    const counts = this.counts[slot - 1] as number[];
    let best = "";
    let most = 0;
    for (let k = 0; k < ids.length; k++) {
      const name = names[ids[k] as number] as string;
      const n = counts[k] as number;
      if (n > most || (n === most && compareC(name, best) < 0)) {
        best = name;
        most = n;
      }
    }
    return best;
  }
}

export interface RankedArtistKey {
  key: string;
  name: string;
  plays: number;
}
export interface RankedItemKey extends RankedArtistKey {
  artistName: string;
}

export interface IndexStats {
  artists: RankedArtistKey[];
  albums: RankedItemKey[];
  tracks: RankedItemKey[];
  /** Artists with plays in the period. */
  artistCount: number;
  /** Artists first ever played in the period: how many, and the `limit` latest. */
  discoveries: { count: number; artists: { name: string; firstPlayedOn: string }[] };
}

function hiddenMask(index: PlayIndex, hidden: string[]): Uint8Array {
  const mask = new Uint8Array(index.artists.values.length);
  for (const key of hidden) {
    const id = index.artists.ids.get(key);
    if (id !== undefined) mask[id] = 1;
  }
  return mask;
}

function firstPlays(index: PlayIndex): Float64Array {
  if (index.firstAt) return index.firstAt;
  const first = new Float64Array(index.artists.values.length).fill(Number.POSITIVE_INFINITY);
  for (const day of dayOrder(index)) {
    const d = index.days.get(day) as DayPlays;
    const midnight = day * DAY_SECONDS;
    for (let i = 0; i < d.at.length; i++) {
      const a = d.artist[i] as number;
      const at = midnight + (d.at[i] as number);
      if (at < (first[a] as number)) first[a] = at;
    }
  }
  index.firstAt = first;
  return first;
}

function isoDay(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/**
 * The top lists, the artist count and the discoveries of [start, end) (midnights UTC), and every
 * day's totals (visibleDays; not for `artistsOnly`), hidden artists left out: exactly what aggregating the period's rows of `listens` gives
 * (`computeJourneyStatsFromPlays`, the tests' reference): top lists by plays then key, each with
 * its most common name in the period; discoveries latest first, ties by name.
 */
export async function periodIndexStats(options: {
  userId: string;
  start: Date;
  end: Date;
  hidden: string[];
  limit: number;
  /** Only the artists (the taste match). */
  artistsOnly?: boolean;
}): Promise<IndexStats & { visibleDays: VisibleDay[] }> {
  const index = await playIndex(options.userId);
  const { limit } = options;
  const fromDay = Math.floor(options.start.getTime() / 1000 / DAY_SECONDS);
  const toDay = Math.floor(options.end.getTime() / 1000 / DAY_SECONDS);
  const startSeconds = fromDay * DAY_SECONDS;
  const days = daysIn(index, fromDay, toDay);
  const mask = hiddenMask(index, options.hidden);
  const artistPlays = new Int32Array(index.artists.values.length);
  const releasePlays = new Int32Array(index.releases.values.length);
  const trackPlays = new Int32Array(index.tracks.values.length);
  for (const d of days) {
    for (let i = 0; i < d.at.length; i++) {
      const a = d.artist[i] as number;
      if (mask[a]) continue;
      artistPlays[a] = (artistPlays[a] as number) + 1;
      const r = d.release[i] as number;
      if (r >= 0) releasePlays[r] = (releasePlays[r] as number) + 1;
      const t = d.track[i] as number;
      trackPlays[t] = (trackPlays[t] as number) + 1;
    }
  }
  const artistKeys = index.artists.values;
  const topArtists = topIds(artistPlays, limit, (id) => artistKeys[id] as string);
  const topReleases = options.artistsOnly
    ? []
    : topIds(releasePlays, limit, (id) => index.releases.values[id] as string);
  const topTracks = options.artistsOnly
    ? []
    : topIds(trackPlays, limit, (id) => index.tracks.values[id] as string);

  let artistCount = 0;
  const first = options.artistsOnly ? null : firstPlays(index);
  const discovered: number[] = [];
  for (let a = 0; a < artistPlays.length; a++) {
    if ((artistPlays[a] as number) === 0) continue;
    artistCount++;
    if (first && (first[a] as number) >= startSeconds) discovered.push(a);
  }
  // The latest `limit` discoveries and every one tied with the last of them (ties go by name).
  discovered.sort((x, y) => (first?.[y] as number) - (first?.[x] as number));
  const cut =
    discovered.length > limit ? (first?.[discovered[limit - 1] as number] as number) : null;
  const shownDiscoveries =
    cut === null ? discovered : discovered.filter((a) => (first?.[a] as number) >= cut);

  // One more pass for the names of what is shown, by the period's plays.
  // Only the ids written more than one way are counted; the pass is skipped when there are none.
  const { sole } = index;
  const artistNames = new NameCounts(
    artistPlays.length,
    [...topArtists, ...shownDiscoveries],
    sole.artist,
  );
  const releaseNames = new NameCounts(releasePlays.length, topReleases, sole.release);
  const releaseArtistNames = new NameCounts(releasePlays.length, topReleases, sole.releaseArtist);
  const trackNames = new NameCounts(trackPlays.length, topTracks, sole.track);
  const trackArtistNames = new NameCounts(trackPlays.length, topTracks, sole.trackArtist);
  const counted = [artistNames, releaseNames, releaseArtistNames, trackNames, trackArtistNames];
  for (const d of counted.some((c) => c.needed) ? days : []) {
    for (let i = 0; i < d.at.length; i++) {
      const a = d.artist[i] as number;
      if (mask[a]) continue;
      const artistName = d.artistName[i] as number;
      const sa = artistNames.slotOf[a] as number;
      if (sa !== 0) artistNames.add(sa, artistName);
      const r = d.release[i] as number;
      if (r >= 0) {
        const sr = releaseNames.slotOf[r] as number;
        if (sr !== 0) releaseNames.add(sr, d.releaseName[i] as number);
        const sra = releaseArtistNames.slotOf[r] as number;
        if (sra !== 0) releaseArtistNames.add(sra, artistName);
      }
      const t = d.track[i] as number;
      const st = trackNames.slotOf[t] as number;
      if (st !== 0) trackNames.add(st, d.trackName[i] as number);
      const sta = trackArtistNames.slotOf[t] as number;
      if (sta !== 0) trackArtistNames.add(sta, artistName);
    }
  }
  const names = index.names.values;
  const discoveries = shownDiscoveries
    .map((a) => ({ at: first?.[a] as number, name: artistNames.mode(a, names) }))
    .sort((x, y) => y.at - x.at || compareC(x.name, y.name))
    .slice(0, limit)
    .map((d) => ({ name: d.name, firstPlayedOn: isoDay(d.at) }));
  return {
    artists: topArtists.map((a) => ({
      key: artistKeys[a] as string,
      name: artistNames.mode(a, names),
      plays: artistPlays[a] as number,
    })),
    albums: topReleases.map((r) => ({
      key: index.releases.values[r] as string,
      name: releaseNames.mode(r, names),
      artistName: releaseArtistNames.mode(r, names),
      plays: releasePlays[r] as number,
    })),
    tracks: topTracks.map((t) => ({
      key: index.tracks.values[t] as string,
      name: trackNames.mode(t, names),
      artistName: trackArtistNames.mode(t, names),
      plays: trackPlays[t] as number,
    })),
    artistCount,
    discoveries: { count: discovered.length, artists: discoveries },
    visibleDays: options.artistsOnly ? [] : visibleDaysOf(index, options.hidden),
  };
}

/** Plays per calendar month (`YYYY-MM`) and artist key, hidden artists left out. */
export async function monthlyArtistPlays(options: {
  userId: string;
  hidden: string[];
}): Promise<{ month: string; key: string; plays: number }[]> {
  const index = await playIndex(options.userId);
  const mask = hiddenMask(index, options.hidden);
  const byMonth = new Map<string, Map<number, number>>();
  for (const day of dayOrder(index)) {
    const month = isoDay(day * DAY_SECONDS).slice(0, 7);
    let counts = byMonth.get(month);
    if (!counts) {
      counts = new Map();
      byMonth.set(month, counts);
    }
    const d = index.days.get(day) as DayPlays;
    for (let i = 0; i < d.at.length; i++) {
      const a = d.artist[i] as number;
      if (!mask[a]) counts.set(a, (counts.get(a) ?? 0) + 1);
    }
  }
  const out: { month: string; key: string; plays: number }[] = [];
  for (const [month, counts] of byMonth) {
    for (const [a, plays] of counts) {
      out.push({ month, key: index.artists.values[a] as string, plays });
    }
  }
  return out;
}

/** A day's plays of the artists shown (hidden ones left out): what `listen_days` has for all. */
export interface VisibleDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  plays: number;
  knownMs: number;
  /** Plays without a length. */
  estimated: number;
  /** Plays by hour (UTC), 24 counts. */
  hours: number[];
}

/**
 * Every day with plays of an artist not hidden, in order, with that day's totals of those plays
 * (hidden artists' plays taken out of the totals kept per day).
 */
function visibleDaysOf(index: PlayIndex, hidden: string[]): VisibleDay[] {
  const mask = hiddenMask(index, hidden);
  const out: VisibleDay[] = [];
  for (const day of dayOrder(index)) {
    const d = index.days.get(day) as DayPlays;
    let plays = d.at.length;
    let { knownMs, estimated } = d.totals;
    let hours = d.totals.hours;
    // The hidden artists' plays are taken out of the day's totals.
    for (let i = 0; hidden.length > 0 && i < d.at.length; i++) {
      if (!mask[d.artist[i] as number]) continue;
      if (hours === d.totals.hours) hours = [...hours];
      plays--;
      const ms = d.ms[i] as number;
      if (ms < 0) estimated--;
      else knownMs -= ms;
      const hour = Math.floor((d.at[i] as number) / 3600);
      hours[hour] = (hours[hour] as number) - 1;
    }
    if (plays > 0) out.push({ day: isoDay(day * DAY_SECONDS), plays, knownMs, estimated, hours });
  }
  return out;
}

/** For each artist key, the name it was written with in its latest play (absent: never played). */
export async function latestArtistNames(options: {
  userId: string;
  keys: string[];
}): Promise<Map<string, string>> {
  const index = await playIndex(options.userId);
  const wanted = new Map<number, string>();
  for (const key of options.keys) {
    const id = index.artists.ids.get(key);
    if (id !== undefined) wanted.set(id, key);
  }
  const names = new Map<string, string>();
  const order = dayOrder(index);
  for (let k = order.length - 1; k >= 0 && names.size < wanted.size; k--) {
    const d = index.days.get(order[k] as number) as DayPlays;
    const latest = new Map<number, { at: number; name: string }>();
    for (let i = 0; i < d.at.length; i++) {
      const key = wanted.get(d.artist[i] as number);
      if (key === undefined || names.has(key)) continue;
      const seen = latest.get(d.artist[i] as number);
      if (!seen || (d.at[i] as number) > seen.at) {
        latest.set(d.artist[i] as number, {
          at: d.at[i] as number,
          name: index.names.values[d.artistName[i] as number] as string,
        });
      }
    }
    for (const [id, { name }] of latest) names.set(wanted.get(id) as string, name);
  }
  return names;
}
