import { readFileSync } from "node:fs";
import path from "node:path";
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { artistKey, titleKey } from "~/core/music-keys";
import { getDb, rowsOf } from "~/db/client.server";
import { listens, user } from "~/db/schema";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  queueJourneyAggregate,
  settleJourneyAggregates,
  withSliceWeight,
} from "./aggregates.server";
import { detectChapters } from "./chapters.server";
import { resolvePeriod } from "./period";
import { monthlyArtistPlays } from "./period-stats.server";
import { computeJourneyStats, computeJourneyStatsFromPlays } from "./stats.server";
import { topArtistShares, topArtistSharesFromPlays } from "./taste.server";

withTestDatabase();

/**
 * The journey's aggregates (ADR 032) must give the stats the plays give: a varied history (name
 * variants of one key, albums missing, lengths missing, plays on the last and first second of
 * days, months and years, a flat tail of rarely played tracks, names with tabs, backslashes and
 * line breaks) is compared period by period with the play-level computation — before the job ran
 * (every month read from the plays), after it ran, and after updates and deletes written straight
 * to the table (as another instance or a hand-typed statement would) both before and after the
 * job caught up — with and without hidden artists; and the per-day counts and revisions the job
 * follows (`listen_days`, migrations 0026, 0027 and 0031) with a recount from the plays.
 */

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Names that share a key: case, "The", accents, version suffixes. */
const ARTISTS = [
  ["Radiohead", "radiohead", "RADIOHEAD"],
  ["The Cure", "Cure, The"],
  ["Björk", "Bjork"],
  ["Sigur Rós", "Sigur Ros"],
  ["Portishead"],
  ["Massive Attack"],
  ["Low"],
  ["Boards of Canada"],
  ["Mogwai"],
  ["Slowdive"],
  ["Beach House"],
  ["Hidden One"],
];

interface GeneratedPlay {
  at: Date;
  artist: string;
  track: string;
  release: string | null;
  ms: number | null;
}

function generateHistory(count: number, seed: number): GeneratedPlay[] {
  const next = random(seed);
  const from = Date.parse("2023-11-20T00:00:00Z");
  const span = Date.parse("2025-07-10T00:00:00Z") - from;
  const plays: GeneratedPlay[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    // Skewed artists, a flat tail of tracks (many keys per day and month).
    const a = Math.floor(ARTISTS.length * next() ** 2);
    const names = ARTISTS[a] as string[];
    const artist = names[Math.floor(next() * names.length)] as string;
    const t = next() < 0.6 ? Math.floor(next() * 4) : Math.floor(next() * 80);
    const track = next() < 0.2 ? `Song ${a}.${t} - Remastered 2011` : `Song ${a}.${t}`;
    const release =
      next() < 0.15 ? null : `Album ${a}.${t % 3}${next() < 0.1 ? " (Deluxe Edition)" : ""}`;
    let at: number;
    const edge = next();
    const day = Math.floor((from + next() * span) / 86_400_000) * 86_400_000;
    if (edge < 0.05) at = day;
    else if (edge < 0.1) at = day - 1000;
    else at = from + Math.floor((next() * span) / 1000) * 1000;
    const key = `${at}|${artistKey(artist)}|${titleKey(track)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    plays.push({
      at: new Date(at),
      artist,
      track,
      release,
      ms: next() < 0.15 ? null : 30_000 + Math.floor(next() * 300_000),
    });
  }
  // Month and year edges, to the second.
  for (const at of [
    "2024-12-31T23:59:59Z",
    "2025-01-01T00:00:00Z",
    "2024-02-29T23:59:59Z",
    "2024-03-01T00:00:00Z",
  ]) {
    plays.push({
      at: new Date(at),
      artist: "Low",
      track: "Words",
      release: "I Could Live in Hope",
      ms: null,
    });
  }
  return plays;
}

/** A generated play as a row of `listens`, its keys made as the app makes them. */
function listenRow(userId: string, p: GeneratedPlay, source: "scrobble" | "lastfm") {
  return {
    userId,
    listenedAt: p.at,
    durationMs: p.ms,
    artistName: p.artist,
    trackName: p.track,
    releaseName: p.release,
    artistKey: artistKey(p.artist),
    trackKey: titleKey(p.track),
    releaseKey: p.release ? titleKey(p.release) : null,
    source,
  };
}

async function insertPlays(userId: string, plays: GeneratedPlay[]) {
  for (let i = 0; i < plays.length; i += 700) {
    await getDb()
      .insert(listens)
      .values(plays.slice(i, i + 700).map((p) => listenRow(userId, p, "scrobble")))
      .onConflictDoNothing();
  }
}

const NOWS = [new Date("2025-07-09T15:00:00Z"), new Date("2025-03-01T00:00:00Z")];
const HIDDEN = [[], [artistKey("Hidden One")], [artistKey("Radiohead"), artistKey("Low")]];

/** Periods as the app resolves them, and custom ones across months, a year and a single day. */
function periods(now: Date): { start: Date | null; end: Date }[] {
  const out: { start: Date | null; end: Date }[] = [];
  for (const period of ["week", "month", "year", "all"]) {
    const { start, end } = resolvePeriod(new URLSearchParams({ period }), now);
    out.push({ start, end });
  }
  for (const [from, to] of [
    ["2024-01-15", "2024-03-03"],
    ["2024-02-01", "2024-02-29"],
    ["2024-12-31", "2024-12-31"],
    ["2023-11-01", "2025-02-14"],
    ["2024-03-01", "2025-02-28"],
    ["2022-01-01", "2022-02-01"],
  ]) {
    out.push({
      start: new Date(`${from}T00:00:00Z`),
      end: new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000),
    });
  }
  return out;
}

/**
 * The stats of every period from the aggregates equal the plays'. `quick`: one day and two
 * audiences (a state the job is about to leave: months read from the plays).
 */
async function expectSameStats(userId: string, quick = false) {
  // Every audience on the first day (two when `quick`); the owner's alone on the second.
  const plan: [Date, string[][]][] = quick
    ? [[NOWS[0] as Date, [HIDDEN[0] as string[], HIDDEN[2] as string[]]]]
    : [
        [NOWS[0] as Date, HIDDEN],
        [NOWS[1] as Date, [HIDDEN[0] as string[]]],
      ];
  for (const [now, hiddenSets] of plan) {
    for (const hiddenArtists of hiddenSets) {
      for (const { start, end } of periods(now)) {
        const options = { userId, start, end, hiddenArtists, now };
        const fromAggregates = await computeJourneyStats(options);
        const fromPlays = await computeJourneyStatsFromPlays(options);
        expect(fromAggregates, JSON.stringify({ start, end, hiddenArtists, now })).toEqual(
          fromPlays,
        );
      }
    }
  }
}

/**
 * Runs the person's aggregate job here, as the server's runner would after a change; with
 * `sliceWeight`, each month is cut into artist ranges that small (many transactions a month,
 * as a heavy listener's months are).
 */
async function aggregate(userId: string, sliceWeight?: number) {
  await queueJourneyAggregate(getDb(), userId);
  if (sliceWeight) await withSliceWeight(sliceWeight, settleJourneyAggregates);
  else await settleJourneyAggregates();
}

/**
 * `listen_days` against a recount from the plays: one row per day with plays (a day emptied by
 * deletes keeps a row at zero until the job redid its month), each with its own revision.
 */
async function expectDayCountsMatchPlays(userId: string) {
  const db = getDb();
  const run = async (q: SQL) =>
    rowsOf<{ day: string; plays: number }>(await db.execute(q)).map((r) => `${r.day} ${r.plays}`);
  expect(
    await run(
      sql`select day::text as day, plays from listen_days where user_id = ${userId} and plays > 0
        order by day`,
    ),
  ).toEqual(
    await run(sql`select (listened_at at time zone 'UTC')::date::text as day, count(*)::int as plays
      from listens where user_id = ${userId} group by 1 order by 1`),
  );
  const [revs] = rowsOf<{ days: number; revs: number }>(
    await db.execute(sql`select count(*)::int as days, count(distinct rev)::int as revs
      from listen_days where user_id = ${userId}`),
  );
  expect(revs?.revs).toBe(revs?.days);
}

let owner: TestUser;
let plays: GeneratedPlay[];
beforeAll(async () => {
  owner = await createTestUser();
  plays = generateHistory(2500, 15);
  await insertPlays(owner.id, plays);
});

// The comparisons run the play-level computation some 160 times: minutes on a busy machine.
describe("journey stats from the aggregates", { timeout: 600_000 }, () => {
  it("are the stats of the plays for every period, audience and day, before and after the job", async () => {
    await expectDayCountsMatchPlays(owner.id);
    // Nothing aggregated yet: every month is read from the plays.
    await expectSameStats(owner.id, true);
    await aggregate(owner.id);
    await expectSameStats(owner.id);
  });

  it("follow updates of plays: renamed artists, plays moved across days and months", async () => {
    const db = getDb();
    // Another artist's name and key for some plays of one artist.
    await db
      .update(listens)
      .set({ artistName: "Mogwai", artistKey: artistKey("Mogwai") })
      .where(
        and(
          eq(listens.userId, owner.id),
          eq(listens.artistKey, artistKey("Slowdive")),
          sql`${listens.id} % 2 = 0`,
        ),
      );
    // Plays moved by a day and a half (across days, some across months), without colliding.
    await db.execute(sql`update ${listens} set listened_at = listened_at + interval '36 hours 17 seconds'
      where user_id = ${owner.id} and id % 7 = 0`);
    await db.execute(sql`update ${listens} set duration_ms = null, release_name = null, release_key = null
      where user_id = ${owner.id} and id % 11 = 0`);
    await expectDayCountsMatchPlays(owner.id);
    // The months that changed are read from the plays until the job redid them.
    await expectSameStats(owner.id, true);
    await aggregate(owner.id, 25);
    await expectSameStats(owner.id, true);
  });

  it("follow deletes: some plays, every play of an artist, an earlier first play", async () => {
    const db = getDb();
    await db.execute(sql`delete from ${listens} where user_id = ${owner.id} and id % 5 = 0`);
    // The artist's first play goes, then all of them: the discovery moves, then disappears.
    const [first] = rowsOf<{ id: number }>(
      await db.execute(sql`select id from ${listens} where user_id = ${owner.id}
        and artist_key = ${artistKey("Beach House")} order by listened_at limit 1`),
    );
    await db.delete(listens).where(eq(listens.id, Number(first?.id)));
    await expectDayCountsMatchPlays(owner.id);
    await db
      .delete(listens)
      .where(and(eq(listens.userId, owner.id), eq(listens.artistKey, artistKey("Mogwai"))));
    await insertPlays(owner.id, [
      {
        at: new Date("2023-01-01T00:00:00Z"),
        artist: "Low",
        track: "Words",
        release: null,
        ms: null,
      },
    ]);
    await expectDayCountsMatchPlays(owner.id);
    await aggregate(owner.id, 25);
    await expectSameStats(owner.id, true);
  });

  it("are kept when the importer writes with the row triggers off", async (context) => {
    const db = getDb();
    const [role] = rowsOf<{ superuser: string }>(
      await db.execute(sql`select current_setting('is_superuser') as superuser`),
    );
    if (role?.superuser !== "on") context.skip();
    const person = await createTestUser();
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx
        .insert(listens)
        .values(generateHistory(300, 7).map((p) => listenRow(person.id, p, "lastfm")));
    });
    await expectDayCountsMatchPlays(person.id);
  });

  it("follow hidden artists chosen after the months were aggregated", async () => {
    // Hidden in the settings: the visible day totals are redone by the job; until then the days
    // are read from the plays.
    await getDb().execute(sql`insert into journey_settings (user_id, hidden_artists)
      values (${owner.id}, array[${artistKey("Radiohead")}, ${artistKey("Low")}])
      on conflict (user_id) do update set hidden_artists = excluded.hidden_artists`);
    await expectSameStats(owner.id, true);
    await aggregate(owner.id);
    await expectSameStats(owner.id, true);
    await getDb().execute(sql`delete from journey_settings where user_id = ${owner.id}`);
    await aggregate(owner.id);
  });

  it("read names with tabs, backslashes and line breaks as written", async () => {
    const odd = ["Tab\tArtist", "Back\\slash", "Line\nBreak", 'Quote\'s "Name"'];
    await insertPlays(
      owner.id,
      odd.map((name, i) => ({
        at: new Date(Date.UTC(2025, 6, 8, 10, i)),
        artist: name,
        track: `${name} song`,
        release: `${name} album`,
        ms: 200_000,
      })),
    );
    const options = {
      userId: owner.id,
      start: new Date("2025-07-08T00:00:00Z"),
      end: new Date("2025-07-09T00:00:00Z"),
      now: NOWS[0] as Date,
    };
    await aggregate(owner.id);
    const stats = await computeJourneyStats(options);
    for (const name of odd) {
      expect(stats.topArtists.map((a) => a.name)).toContain(name);
      expect(stats.topTracks.map((t) => t.name)).toContain(`${name} song`);
    }
    expect(stats).toEqual(await computeJourneyStatsFromPlays(options));
  });

  it("give the taste match's shares and the chapters' months as the plays do", async () => {
    const { start, end } = resolvePeriod(new URLSearchParams({ period: "year" }), NOWS[0] as Date);
    const hidden = [artistKey("Hidden One")];
    const shares = await topArtistShares({
      userId: owner.id,
      start: start as Date,
      end,
      hiddenArtists: hidden,
    });
    const fromPlays = await topArtistSharesFromPlays({
      userId: owner.id,
      start: start as Date,
      end,
      hidden,
      limit: 50,
    });
    const total = fromPlays.reduce((s, r) => s + r.plays, 0);
    expect(shares).toEqual(fromPlays.map((r) => ({ ...r, share: r.plays / total })));
    const months = rowsOf<{ month: string; key: string; plays: number }>(
      await getDb().execute(sql`select to_char(date_trunc('month', listened_at at time zone 'UTC'), 'YYYY-MM') as month,
          artist_key as key, count(*)::int as plays from ${listens}
        where user_id = ${owner.id} and artist_key <> ${hidden[0]} group by 1, 2`),
    );
    const byMonth = (rows: { month: string; key: string; plays: number }[]) =>
      detectChapters(
        [...new Set(rows.map((r) => r.month))].map((month) => ({
          month,
          counts: new Map(rows.filter((r) => r.month === month).map((r) => [r.key, r.plays])),
        })),
      );
    const rolled = await monthlyArtistPlays({ userId: owner.id, hidden });
    expect(rolled.map((r) => JSON.stringify(r)).sort()).toEqual(
      months.map((r) => JSON.stringify(r)).sort(),
    );
    expect(byMonth(rolled)).toEqual(byMonth(months));
  });

  it("are rebuilt from the plays by the migration's backfill, as the trigger keeps them", async () => {
    // What an instance with plays runs when it upgrades to migration 0026 (with the function
    // 0027 leaves): the statement itself, on emptied day totals (it adds what it reads).
    const migration = readFileSync(path.resolve("drizzle/0026_journey-rollups.sql"), "utf8");
    const backfill = migration
      .split("--> statement-breakpoint")
      .find((statement) => statement.trim().startsWith("-- The plays already there"));
    expect(backfill).toBeDefined();
    const person = await createTestUser();
    await insertPlays(person.id, generateHistory(300, 7));
    const db = getDb();
    await db.execute(sql`truncate listen_days`);
    await db.execute(sql.raw(backfill ?? ""));
    await expectDayCountsMatchPlays(owner.id);
    await expectDayCountsMatchPlays(person.id);
  });

  it("leave nothing behind when the person is deleted", async () => {
    const person = await createTestUser();
    await insertPlays(person.id, generateHistory(50, 3));
    await aggregate(person.id);
    expect(
      rowsOf(await getDb().execute(sql`select 1 from journey_days where user_id = ${person.id}`)),
    ).not.toEqual([]);
    await getDb().delete(user).where(eq(user.id, person.id));
    for (const table of [
      "listen_days",
      "journey_days",
      "journey_months",
      "journey_month_revs",
      "journey_aggregate_state",
    ]) {
      const rows = rowsOf(
        await getDb().execute(
          sql`select 1 from ${sql.identifier(table)} where user_id = ${person.id}`,
        ),
      );
      expect(rows, table).toEqual([]);
    }
    expect(
      await getDb()
        .select()
        .from(listens)
        .where(inArray(listens.userId, [person.id])),
    ).toEqual([]);
  });
});
