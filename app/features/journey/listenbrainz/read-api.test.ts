import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { blocks, follows, type JourneyAudience, jobs, journeySettings, listens } from "~/db/schema";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser, type TestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { settleJourneyAggregates } from "../aggregates.server";
import { handleListenBrainzApi } from "./handler.server";
import { recordingMsid } from "./msid.server";
import { listensPageQuery } from "./reads.server";
import { createListenToken } from "./tokens.server";

withTestDatabase();

const BASE = "http://localhost:3000";
let ipCounter = 0;

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers field by field
type Json = Record<string, any>;

/** A request to the API as a player sends it (each from its own client address). */
async function call(
  path: string,
  options: { method?: string; body?: unknown; token?: string | null; authorization?: string } = {},
) {
  ipCounter++;
  const headers = new Headers({ [CLIENT_IP_HEADER]: `10.30.${ipCounter >> 8}.${ipCounter & 255}` });
  if (options.token) headers.set("Authorization", `Token ${options.token}`);
  if (options.authorization) headers.set("Authorization", options.authorization);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers.set("Content-Type", "application/json");
  const response = await handleListenBrainzApi(
    new Request(`${BASE}${path}`, {
      method: options.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      body,
    }),
  );
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : null) as Json,
  };
}

async function personWithToken() {
  const person = await createTestUser();
  const { token } = await createListenToken({ userId: person.id, name: "Player" });
  return { person, token };
}

interface Play {
  at: number;
  artist: string;
  track: string;
  release?: string;
  durationMs?: number;
}

function importDocument(plays: Play[]) {
  return {
    listen_type: "import",
    payload: plays.map((p) => ({
      listened_at: p.at,
      track_metadata: {
        artist_name: p.artist,
        track_name: p.track,
        ...(p.release ? { release_name: p.release } : {}),
        additional_info: p.durationMs ? { duration_ms: p.durationMs } : {},
      },
    })),
  };
}

async function submitPlays(token: string, plays: Play[]) {
  const answer = await call("/1/submit-listens", { body: importDocument(plays), token });
  expect(answer.status).toBe(200);
}

const now = () => Math.floor(Date.now() / 1000);

async function setAudience(
  userId: string,
  audience: JourneyAudience,
  extra: { hidden?: string[]; paused?: boolean } = {},
) {
  await getDb()
    .insert(journeySettings)
    .values({
      userId,
      audience,
      hiddenArtists: extra.hidden ?? [],
      nowPlayingPaused: extra.paused ?? false,
    })
    .onConflictDoUpdate({
      target: journeySettings.userId,
      set: { audience, hiddenArtists: extra.hidden ?? [], nowPlayingPaused: extra.paused ?? false },
    });
}

async function follow(follower: TestUser, followee: TestUser) {
  await getDb().insert(follows).values({ followerId: follower.id, followeeId: followee.id });
}

describe("recording_msid", () => {
  it("is a version 5 UUID of the names, the same for the same recording whatever the case", () => {
    const a = recordingMsid({
      artistName: "Broadcast",
      trackName: "Black Cat",
      releaseName: "Tender Buttons",
    });
    const b = recordingMsid({
      artistName: "BROADCAST",
      trackName: "black cat",
      releaseName: "tender buttons",
    });
    const c = recordingMsid({ artistName: "Broadcast", trackName: "Black Cat", releaseName: null });
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it("comes back from ?return_msid=true on playing now, and is the listen's MSID once played", async () => {
    const { person, token } = await personWithToken();
    const playingNow = {
      listen_type: "playing_now",
      payload: [
        {
          track_metadata: {
            artist_name: "Stereolab",
            track_name: "French Disko",
            release_name: "Jenny Ondioline",
          },
        },
      ],
    };
    const answer = await call("/1/submit-listens?return_msid=true", { body: playingNow, token });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("ok");
    expect(answer.body.recording_msid).toMatch(/^[0-9a-f-]{36}$/);
    const plain = await call("/1/submit-listens", { body: playingNow, token });
    expect(plain.body).toEqual({ status: "ok" });

    const shown = await call(`/1/user/${person.username}/playing-now`, { token });
    expect(shown.body.payload.listens[0].track_metadata.additional_info.recording_msid).toBe(
      answer.body.recording_msid,
    );
    await submitPlays(token, [
      { at: now() - 60, artist: "Stereolab", track: "French Disko", release: "Jenny Ondioline" },
    ]);
    const read = await call(`/1/user/${person.username}/listens`, { token });
    expect(read.body.payload.listens[0].recording_msid).toBe(answer.body.recording_msid);
  });
});

describe("GET /1/user/{user}/listens", () => {
  it("answers newest first with ListenBrainz's payload, paged by count, max_ts and min_ts", async () => {
    const { person, token } = await personWithToken();
    const t = now() - 10_000;
    const plays = Array.from({ length: 30 }, (_, i) => ({
      at: t + i * 100,
      artist: `Artist ${i % 3}`,
      track: `Track ${i}`,
      release: i % 2 ? `Album ${i % 3}` : undefined,
      durationMs: i % 2 ? 200_000 + i : undefined,
    }));
    const before = now();
    await submitPlays(token, plays);

    const first = await call(`/1/user/${person.username}/listens`, { token });
    expect(first.status).toBe(200);
    const payload = first.body.payload;
    expect(payload.count).toBe(25);
    expect(payload.user_id).toBe(person.username);
    expect(payload.latest_listen_ts).toBe(t + 29 * 100);
    expect(payload.oldest_listen_ts).toBe(t);
    expect(payload.listens.map((l: Json) => l.listened_at)).toEqual(
      Array.from({ length: 25 }, (_, i) => t + (29 - i) * 100),
    );
    const newest = payload.listens[0];
    expect(newest.user_name).toBe(person.username);
    expect(newest.inserted_at).toBeGreaterThanOrEqual(before - 1);
    expect(newest.recording_msid).toBe(
      recordingMsid({ artistName: "Artist 2", trackName: "Track 29", releaseName: "Album 2" }),
    );
    expect(newest.track_metadata).toEqual({
      artist_name: "Artist 2",
      track_name: "Track 29",
      release_name: "Album 2",
      additional_info: { duration_ms: 200_029 },
    });
    expect(payload.listens[1].track_metadata).toEqual({
      artist_name: "Artist 1",
      track_name: "Track 28",
      additional_info: {},
    });

    const page = await call(`/1/user/${person.username}/listens?count=5&max_ts=${t + 2000}`, {
      token,
    });
    expect(page.body.payload.listens.map((l: Json) => l.listened_at)).toEqual([
      t + 1900,
      t + 1800,
      t + 1700,
      t + 1600,
      t + 1500,
    ]);
    // min_ts alone: the `count` listens just after it, still newest first.
    const after = await call(`/1/user/${person.username}/listens?count=3&min_ts=${t + 500}`, {
      token,
    });
    expect(after.body.payload.listens.map((l: Json) => l.listened_at)).toEqual([
      t + 800,
      t + 700,
      t + 600,
    ]);
    const between = await call(
      `/1/user/${person.username}/listens?min_ts=${t + 100}&max_ts=${t + 400}`,
      { token },
    );
    expect(between.body.payload.listens.map((l: Json) => l.listened_at)).toEqual([
      t + 300,
      t + 200,
    ]);
    const all = await call(`/1/user/${person.username}/listens?count=5000`, { token });
    expect(all.body.payload.count).toBe(30);
    const none = await call(`/1/user/${person.username}/listens?count=0`, { token });
    expect(none.body.payload.listens).toEqual([]);
  });

  it("refuses bad parameters with ListenBrainz's messages", async () => {
    const { person, token } = await personWithToken();
    const path = `/1/user/${person.username}/listens`;
    expect((await call(`${path}?min_ts=10&max_ts=5`, { token })).body).toEqual({
      code: 400,
      error: "max_ts should be greater than min_ts",
    });
    expect((await call(`${path}?count=-1`, { token })).body.error).toBe(
      "Number of items requested should be positive",
    );
    expect((await call(`${path}?count=many`, { token })).body.error).toBe(
      "Invalid count argument: many",
    );
    expect((await call(`${path}?max_ts=soon`, { token })).body.error).toBe(
      "Incorrect max_ts timestamp argument: soon",
    );
    const unknown = await call("/1/user/nobody_here_at_all/listens", { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 404, error: "Cannot find user: nobody_here_at_all" });
  });

  it("answers an empty history with zero times, and the count of listens", async () => {
    const { person, token } = await personWithToken();
    const empty = await call(`/1/user/${person.username}/listens`, { token });
    expect(empty.body.payload).toEqual({
      count: 0,
      listens: [],
      latest_listen_ts: 0,
      oldest_listen_ts: 0,
      user_id: person.username,
    });
    expect((await call(`/1/user/${person.username}/listen-count`, { token })).body).toEqual({
      payload: { count: 0 },
    });
    await submitPlays(token, [
      { at: now() - 300, artist: "Low", track: "Words" },
      { at: now() - 200, artist: "Low", track: "Lullaby" },
      { at: now() - 100, artist: "Can", track: "Vitamin C" },
    ]);
    expect((await call(`/1/user/${person.username}/listen-count`, { token })).body).toEqual({
      payload: { count: 3 },
    });
  });
});

describe("the listens query", () => {
  it("walks the history's (user_id, listened_at, …) index with no sort, whichever way it pages", async () => {
    const { person, token } = await personWithToken();
    const other = await personWithToken();
    const t = now() - 200_000;
    const plays = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        at: t + i * 7,
        artist: `A${i % 40}`,
        track: `T${i}`,
      }));
    await submitPlays(token, plays(1000));
    await submitPlays(other.token, plays(1000));
    await getDb().execute(sql`analyze listens`);
    for (const page of [
      { minTs: null, maxTs: null },
      { minTs: null, maxTs: t + 3000 },
      { minTs: t + 100, maxTs: null },
      { minTs: t + 100, maxTs: t + 3000 },
    ]) {
      const query = listensPageQuery({ userId: person.id, hidden: ["a3"], count: 100, ...page });
      const plan = JSON.stringify(
        (await getDb().execute(sql`explain (format json) ${query}`)) as unknown,
      );
      expect(plan).toContain(`"Index Name":"listens_natural_key"`);
      expect(plan).not.toContain('"Node Type":"Sort"');
      expect(plan).not.toContain("Seq Scan");
    }
  });
});

describe("POST /1/delete-listen", () => {
  it("deletes the listen at that time with that MSID, and the journey's numbers follow", async () => {
    const { person, token } = await personWithToken();
    const at = now() - 5000;
    await submitPlays(token, [
      { at, artist: "Slowdive", track: "Alison" },
      { at, artist: "Ride", track: "Vapour Trail" },
      { at: at + 10, artist: "Slowdive", track: "When the Sun Hits" },
    ]);
    await settleJourneyAggregates();
    const before = await call(`/1/stats/user/${person.username}/artists`, { token });
    expect(before.body.payload.artists).toEqual([
      { artist_mbid: null, artist_mbids: [], artist_name: "Slowdive", listen_count: 2 },
      { artist_mbid: null, artist_mbids: [], artist_name: "Ride", listen_count: 1 },
    ]);
    const msid = recordingMsid({ artistName: "Slowdive", trackName: "Alison", releaseName: null });
    const answer = await call("/1/delete-listen", {
      body: { listened_at: at, recording_msid: msid },
      token,
    });
    expect(answer.body).toEqual({ status: "ok" });
    const left = await getDb()
      .select({ track: listens.trackName })
      .from(listens)
      .where(eq(listens.userId, person.id));
    expect(left.map((r) => r.track).sort()).toEqual(["Vapour Trail", "When the Sun Hits"]);
    const queued = await getDb()
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(eq(jobs.kind, "journey.aggregate"), eq(jobs.key, person.id), eq(jobs.status, "queued")),
      );
    expect(queued).toHaveLength(1);
    await settleJourneyAggregates();
    const after = await call(`/1/stats/user/${person.username}/artists`, { token });
    expect(after.body.payload.artists.map((a: Json) => [a.artist_name, a.listen_count])).toEqual([
      ["Ride", 1],
      ["Slowdive", 1],
    ]);
    expect(
      (await call(`/1/user/${person.username}/listen-count`, { token })).body.payload.count,
    ).toBe(2);
  });

  it("refuses what ListenBrainz refuses", async () => {
    const { token } = await personWithToken();
    expect((await call("/1/delete-listen", { body: { recording_msid: "x" }, token })).body).toEqual(
      {
        code: 400,
        error: "Listen timestamp missing.",
      },
    );
    expect((await call("/1/delete-listen", { body: { listened_at: 1 }, token })).body.error).toBe(
      "Recording MSID missing.",
    );
    expect(
      (await call("/1/delete-listen", { body: { listened_at: 1, recording_msid: "nope" }, token }))
        .body.error,
    ).toBe("nope: Recording MSID format invalid.");
    const anonymous = await call("/1/delete-listen", {
      body: { listened_at: 1, recording_msid: "nope" },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({
      code: 401,
      error: "You need to provide an Authorization header.",
    });
  });
});

describe("GET|POST /1/latest-import", () => {
  it("keeps the newest timestamp per service, answering 0 before any", async () => {
    const { person, token } = await personWithToken();
    const get = (service?: string) =>
      call(`/1/latest-import?user_name=${person.username}${service ? `&service=${service}` : ""}`, {
        token,
      });
    expect((await get()).body).toEqual({
      musicbrainz_id: person.username,
      latest_import: 0,
      status: null,
      error: null,
    });
    expect((await call("/1/latest-import", { body: { ts: 1_700_000_000 }, token })).body).toEqual({
      status: "ok",
    });
    await call("/1/latest-import", { body: { ts: 1_600_000_000 }, token });
    await call("/1/latest-import", { body: { ts: 1_650_000_000, service: "spotify" }, token });
    expect((await get()).body.latest_import).toBe(1_700_000_000);
    expect((await get("spotify")).body.latest_import).toBe(1_650_000_000);
    const unknown = await get("napster");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("Service does not exist: napster");
    expect((await call("/1/latest-import", { body: { ts: "soon" }, token })).body).toEqual({
      code: 400,
      error: "Invalid data sent",
    });
    expect((await call("/1/latest-import", { body: { ts: 1 } })).status).toBe(401);
  });
});

describe("recording feedback", () => {
  it("loves and hates by MSID or MBID, lists them newest first, and forgets with score 0", async () => {
    const { person, token } = await personWithToken();
    await submitPlays(token, [
      { at: now() - 50, artist: "Cocteau Twins", track: "Heaven or Las Vegas" },
    ]);
    const msid = recordingMsid({
      artistName: "Cocteau Twins",
      trackName: "Heaven or Las Vegas",
      releaseName: null,
    });
    const mbid = "0fe11cd3-0be4-467b-84fa-0bd524d45d74";
    expect(
      (
        await call("/1/feedback/recording-feedback", {
          body: { recording_msid: msid, score: 1 },
          token,
        })
      ).body,
    ).toEqual({ status: "ok" });
    await call("/1/feedback/recording-feedback", {
      body: { recording_mbid: mbid, score: -1 },
      token,
    });

    const path = `/1/feedback/user/${person.username}/get-feedback`;
    const all = await call(`${path}?metadata=true`, { token });
    expect(all.body.count).toBe(2);
    expect(all.body.total_count).toBe(2);
    expect(all.body.offset).toBe(0);
    const [hated, loved] = all.body.feedback;
    expect(hated).toMatchObject({
      recording_mbid: mbid,
      recording_msid: null,
      score: -1,
      user_id: person.username,
    });
    expect(loved).toMatchObject({ recording_msid: msid, score: 1 });
    expect(loved.track_metadata).toMatchObject({
      artist_name: "Cocteau Twins",
      track_name: "Heaven or Las Vegas",
    });
    expect(typeof loved.created).toBe("number");

    const onlyLoved = await call(`${path}?score=1`, { token });
    expect(onlyLoved.body.feedback.map((f: Json) => f.recording_msid)).toEqual([msid]);
    expect(onlyLoved.body.feedback[0].track_metadata).toBeNull();
    expect((await call(`${path}?count=1&offset=1`, { token })).body).toMatchObject({
      count: 1,
      total_count: 2,
      offset: 1,
    });

    await call("/1/feedback/recording-feedback", {
      body: { recording_msid: msid, score: 0 },
      token,
    });
    expect((await call(path, { token })).body.feedback.map((f: Json) => f.score)).toEqual([-1]);
  });

  it("refuses what ListenBrainz refuses", async () => {
    const { person, token } = await personWithToken();
    const post = (body: unknown) => call("/1/feedback/recording-feedback", { body, token });
    expect((await post({ score: 1 })).body.error).toBe(
      "JSON document must contain either recording_msid or recording_mbid, and score top level keys",
    );
    expect(
      (await post({ score: 1, recording_mbid: "0fe11cd3-0be4-467b-84fa-0bd524d45d74", x: 1 })).body
        .error,
    ).toBe(
      "JSON document may only contain recording_msid, recording_mbid and score top level keys",
    );
    expect(
      (await post({ score: 2, recording_mbid: "0fe11cd3-0be4-467b-84fa-0bd524d45d74" })).status,
    ).toBe(400);
    expect((await post({ score: 1, recording_mbid: "not-a-uuid" })).status).toBe(400);
    expect(
      (await call(`/1/feedback/user/${person.username}/get-feedback?score=3`, { token })).body
        .error,
    ).toBe("Score can have a value of 1 or -1.");
    expect(
      (await call(`/1/feedback/user/${person.username}/get-feedback?offset=-1`, { token })).body
        .error,
    ).toBe("'offset' should be a non-negative integer");
  });
});

describe("stats", () => {
  it("answers artists, releases and recordings from the journey, paged, and 204 with no plays", async () => {
    const { person, token } = await personWithToken();
    const at = now() - 3 * 86_400;
    await submitPlays(token, [
      { at, artist: "Portishead", track: "Roads", release: "Dummy" },
      { at: at + 300, artist: "Portishead", track: "Roads", release: "Dummy" },
      { at: at + 600, artist: "Portishead", track: "Glory Box", release: "Dummy" },
      { at: at + 900, artist: "Massive Attack", track: "Teardrop", release: "Mezzanine" },
    ]);
    const stats = (entity: string, query = "") =>
      call(`/1/stats/user/${person.username}/${entity}${query}`, { token });
    const artists = await stats("artists");
    expect(artists.status).toBe(200);
    expect(artists.body.payload).toMatchObject({
      user_id: person.username,
      count: 2,
      total_artist_count: 2,
      offset: 0,
      range: "all_time",
    });
    expect(artists.body.payload.artists[0]).toMatchObject({
      artist_name: "Portishead",
      listen_count: 3,
    });
    expect(artists.body.payload.from_ts).toBeLessThanOrEqual(at);
    const releases = await stats("releases", "?count=1");
    expect(releases.body.payload.releases).toEqual([
      {
        artist_mbids: [],
        artist_name: "Portishead",
        listen_count: 3,
        release_mbid: null,
        release_name: "Dummy",
      },
    ]);
    expect(releases.body.payload.total_release_count).toBe(2);
    const recordings = await stats("recordings");
    const tracks = recordings.body.payload.recordings as Json[];
    expect(tracks.map((r) => r.listen_count)).toEqual([2, 1, 1]);
    expect(tracks[0]).toMatchObject({ track_name: "Roads", artist_name: "Portishead" });
    const second = await stats("recordings", "?offset=1&count=1");
    expect(second.body.payload.recordings).toEqual([tracks[1]]);
    expect(second.body.payload.total_recording_count).toBe(3);
    expect((await stats("artists", "?range=this_year")).body.payload.range).toBe("this_year");
    expect((await stats("artists", "?range=fortnight")).body).toEqual({
      code: 400,
      error: "Invalid range: fortnight",
    });

    const daily = await stats("daily-activity");
    const hour = new Date(at * 1000).getUTCHours();
    const weekday = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][
      new Date(at * 1000).getUTCDay()
    ] as string;
    expect(Object.keys(daily.body.payload.daily_activity)).toEqual([
      "Monday",
      "Tuesday",
      "Wednesday",
      "Thursday",
      "Friday",
      "Saturday",
      "Sunday",
    ]);
    const total = Object.values(daily.body.payload.daily_activity as Record<string, Json[]>)
      .flat()
      .reduce((sum, h) => sum + h.listen_count, 0);
    expect(total).toBe(4);
    expect(daily.body.payload.daily_activity[weekday][hour].listen_count).toBeGreaterThan(0);

    const activity = await stats("listening-activity", "?range=this_month");
    const steps = activity.body.payload.listening_activity as Json[];
    expect(steps.reduce((sum, s) => sum + s.listen_count, 0)).toBeGreaterThanOrEqual(
      new Date(at * 1000).getUTCMonth() === new Date().getUTCMonth() ? 4 : 0,
    );
    const allTime = await stats("listening-activity");
    expect(allTime.body.payload.listening_activity).toEqual([
      expect.objectContaining({
        listen_count: 4,
        time_range: String(new Date(at * 1000).getUTCFullYear()),
      }),
    ]);

    const { person: quiet, token: quietToken } = await personWithToken();
    for (const entity of [
      "artists",
      "releases",
      "recordings",
      "listening-activity",
      "daily-activity",
    ]) {
      const answer = await call(`/1/stats/user/${quiet.username}/${entity}`, { token: quietToken });
      expect(answer.status).toBe(204);
      expect(answer.body).toBeNull();
    }
  });
});

describe("people and what Soundtrail keeps no data for", () => {
  it("searches usernames and lists followers and following", async () => {
    const { person, token } = await personWithToken();
    const fan = await createTestUser({ username: `${person.username}_fan` });
    await follow(fan, person);
    await follow(person, fan);
    const found = await call(`/1/search/users?search_term=${person.username}`, { token });
    expect(found.body.users[0]).toEqual({ user_name: person.username });
    expect(found.body.users).toContainEqual({ user_name: fan.username });
    expect((await call("/1/search/users", { token })).body).toEqual({ users: [] });
    expect((await call(`/1/user/${person.username}/followers`)).body).toEqual({
      followers: [fan.username],
      user: person.username,
    });
    expect((await call(`/1/user/${person.username}/following`)).body).toEqual({
      following: [fan.username],
      user: person.username,
    });
  });

  it("answers playlists, recommendations, similar users and lookups empty, as ListenBrainz does", async () => {
    const { person, token } = await personWithToken();
    expect((await call(`/1/user/${person.username}/playlists/createdfor`)).body).toEqual({
      playlists: [],
      playlist_count: 0,
      offset: 0,
      count: 25,
    });
    const recommendations = await call(`/1/cf/recommendation/user/${person.username}/recording`);
    expect(recommendations.status).toBe(204);
    expect((await call(`/1/user/${person.username}/similar-users`)).body).toEqual({ payload: [] });
    expect(
      (await call("/1/metadata/lookup/?artist_name=Low&recording_name=Words", { token })).body,
    ).toEqual({});
    expect((await call("/1/metadata/lookup/?artist_name=Low", { token })).body.error).toBe(
      "recording_name is invalid or not present in arguments",
    );
  });
});

describe("the HTTP surface of reads", () => {
  it("answers CORS as ListenBrainz, a bad token with its 401, and a doubled slash", async () => {
    const { person, token } = await personWithToken();
    const preflight = await call(`/1/user/${person.username}/listens`, { method: "OPTIONS" });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(preflight.headers.get("Access-Control-Allow-Methods")).toBe("GET, HEAD, OPTIONS");
    const read = await call(`//1//user/${person.username}/listens/`, { token });
    expect(read.status).toBe(200);
    expect(read.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(read.headers.get("Content-Type")).toBe("application/json");
    const bad = await call(`/1/user/${person.username}/listens`, {
      token: "0f0f0f0f-dead-beef-0000-000000000000",
    });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ code: 401, error: "Invalid authorization token." });
    const noWord = await call(`/1/user/${person.username}/listens`, { authorization: "Token" });
    expect(noWord.body).toEqual({ code: 401, error: "Provided Authorization header is invalid." });
    const wrongMethod = await call(`/1/user/${person.username}/listens`, {
      method: "POST",
      body: {},
    });
    expect(wrongMethod.status).toBe(405);
  });
});

describe("who may read", () => {
  type Reader = "owner" | "follower" | "stranger" | "guest" | "blocked";
  const READERS: Reader[] = ["owner", "follower", "stranger", "guest", "blocked"];
  const EXPECTED: Record<JourneyAudience, Record<Reader, number>> = {
    everyone: { owner: 200, follower: 200, stranger: 200, guest: 200, blocked: 404 },
    followers: { owner: 200, follower: 200, stranger: 403, guest: 401, blocked: 404 },
    only_me: { owner: 200, follower: 403, stranger: 403, guest: 401, blocked: 404 },
  };
  const endpointsOf = (u: string) => [
    `/1/user/${u}/listens`,
    `/1/user/${u}/listen-count`,
    `/1/user/${u}/playing-now`,
    `/1/feedback/user/${u}/get-feedback`,
    `/1/stats/user/${u}/artists`,
    `/1/stats/user/${u}/releases`,
    `/1/stats/user/${u}/recordings`,
    `/1/stats/user/${u}/listening-activity`,
    `/1/stats/user/${u}/daily-activity`,
    `/1/latest-import?user_name=${u}`,
  ];
  /** Reads that are not the journey's (follows, what Soundtrail keeps no data for): anybody's
   * answer but a blocked reader's, who does not find the person. */
  const peopleEndpointsOf = (u: string): [string, number][] => [
    [`/1/user/${u}/followers`, 200],
    [`/1/user/${u}/following`, 200],
    [`/1/user/${u}/similar-users`, 200],
    [`/1/user/${u}/playlists`, 200],
    [`/1/user/${u}/playlists/createdfor`, 200],
    [`/1/cf/recommendation/user/${u}/recording`, 204],
  ];

  for (const audience of ["everyone", "followers", "only_me"] as const) {
    it(`follows the journey's audience "${audience}" on every read, hidden artists left out`, async () => {
      const { person: owner, token: ownerToken } = await personWithToken();
      const { person: fan, token: fanToken } = await personWithToken();
      const { token: strangerToken } = await personWithToken();
      const { person: blocked, token: blockedToken } = await personWithToken();
      await follow(fan, owner);
      await follow(blocked, owner);
      await getDb().insert(blocks).values({ blockerId: owner.id, blockedId: blocked.id });
      await setAudience(owner.id, audience, { hidden: ["secret band"], paused: false });
      await submitPlays(ownerToken, [
        { at: now() - 200, artist: "Secret Band", track: "Hush", release: "Quiet" },
        { at: now() - 100, artist: "Open Band", track: "Loud", release: "Noise" },
      ]);
      // The owner loves both (one by MSID of each listen).
      const own = await call(`/1/user/${owner.username}/listens`, { token: ownerToken });
      for (const listen of own.body.payload.listens as Json[]) {
        const loved = await call("/1/feedback/recording-feedback", {
          body: { recording_msid: listen.recording_msid, score: 1 },
          token: ownerToken,
        });
        expect(loved.status).toBe(200);
      }
      await call("/1/submit-listens", {
        body: {
          listen_type: "playing_now",
          payload: [{ track_metadata: { artist_name: "Secret Band", track_name: "Now" } }],
        },
        token: ownerToken,
      });
      const tokens: Record<Reader, string | null> = {
        owner: ownerToken,
        follower: fanToken,
        stranger: strangerToken,
        guest: null,
        blocked: blockedToken,
      };
      for (const reader of READERS) {
        for (const path of endpointsOf(owner.username)) {
          const answer = await call(path, { token: tokens[reader] });
          expect({ reader, path, status: answer.status }).toEqual({
            reader,
            path,
            status: EXPECTED[audience][reader],
          });
          if (answer.status !== 200) {
            expect(answer.body.code).toBe(answer.status);
            expect(typeof answer.body.error).toBe("string");
          }
        }
      }
      for (const reader of READERS) {
        for (const [path, allowed] of peopleEndpointsOf(owner.username)) {
          const answer = await call(path, { token: tokens[reader] });
          expect({ reader, path, status: answer.status }).toEqual({
            reader,
            path,
            status: reader === "blocked" ? 404 : allowed,
          });
        }
      }
      // What an allowed reader other than the owner sees leaves the hidden artist out.
      const others = READERS.filter((r) => r !== "owner" && EXPECTED[audience][r] === 200);
      for (const reader of ["owner", ...others] as Reader[]) {
        const isOwner = reader === "owner";
        const read = await call(`/1/user/${owner.username}/listens`, { token: tokens[reader] });
        const artists = read.body.payload.listens.map((l: Json) => l.track_metadata.artist_name);
        expect(artists).toEqual(isOwner ? ["Open Band", "Secret Band"] : ["Open Band"]);
        const count = await call(`/1/user/${owner.username}/listen-count`, {
          token: tokens[reader],
        });
        expect(count.body.payload.count).toBe(isOwner ? 2 : 1);
        const playing = await call(`/1/user/${owner.username}/playing-now`, {
          token: tokens[reader],
        });
        expect(playing.body.payload.count).toBe(isOwner ? 1 : 0);
        const stats = await call(`/1/stats/user/${owner.username}/artists`, {
          token: tokens[reader],
        });
        expect(stats.body.payload.artists.map((a: Json) => a.artist_name)).toEqual(
          isOwner ? ["Open Band", "Secret Band"] : ["Open Band"],
        );
        for (const [entity, name] of [
          ["releases", "release_name"],
          ["recordings", "track_name"],
        ] as const) {
          const list = await call(`/1/stats/user/${owner.username}/${entity}`, {
            token: tokens[reader],
          });
          expect(list.body.payload[entity].map((e: Json) => e[name]).sort()).toEqual(
            isOwner
              ? entity === "releases"
                ? ["Noise", "Quiet"]
                : ["Hush", "Loud"]
              : [entity === "releases" ? "Noise" : "Loud"],
          );
        }
        for (const activity of ["listening-activity", "daily-activity"]) {
          const answer = await call(`/1/stats/user/${owner.username}/${activity}`, {
            token: tokens[reader],
          });
          const counted = JSON.stringify(answer.body.payload).match(/"listen_count":(\d+)/g) ?? [];
          const total = counted.reduce((sum, m) => sum + Number(m.split(":")[1]), 0);
          expect({ reader, activity, total }).toEqual({ reader, activity, total: isOwner ? 2 : 1 });
        }
        const loves = await call(`/1/feedback/user/${owner.username}/get-feedback?metadata=true`, {
          token: tokens[reader],
        });
        expect(loves.body.feedback.map((f: Json) => f.track_metadata?.artist_name).sort()).toEqual(
          isOwner ? ["Open Band", "Secret Band"] : ["Open Band"],
        );
        expect(loves.body.total_count).toBe(isOwner ? 2 : 1);
      }
      // A blocked reader does not find the person anywhere, followers lists included.
      expect(
        (await call(`/1/user/${owner.username}/followers`, { token: blockedToken })).status,
      ).toBe(404);
      expect(
        (await call(`/1/search/users?search_term=${owner.username}`, { token: blockedToken })).body
          .users,
      ).toEqual([]);
      expect(
        (await call(`/1/user/${owner.username}/followers`, { token: fanToken })).body.followers,
      ).toContain(fan.username);
    });
  }

  it("shows no now playing to others while the owner paused it", async () => {
    const { person: owner, token: ownerToken } = await personWithToken();
    const { person: fan, token: fanToken } = await personWithToken();
    await follow(fan, owner);
    await setAudience(owner.id, "everyone", { paused: true });
    await call("/1/submit-listens", {
      body: {
        listen_type: "playing_now",
        payload: [{ track_metadata: { artist_name: "Yo La Tengo", track_name: "Autumn Sweater" } }],
      },
      token: ownerToken,
    });
    const path = `/1/user/${owner.username}/playing-now`;
    expect((await call(path, { token: ownerToken })).body.payload.count).toBe(1);
    expect((await call(path, { token: fanToken })).body.payload).toEqual({
      count: 0,
      user_id: owner.username,
      playing_now: true,
      listens: [],
    });
    expect((await call(path)).body.payload.count).toBe(0);
    const cleared = await call("/1/playing-now/delete", { method: "POST", token: ownerToken });
    expect(cleared.body).toEqual({ status: "ok", message: "Playing now cleared successfully" });
    expect((await call(path, { token: ownerToken })).body.payload.count).toBe(0);
    await getDb().execute(sql`select 1`);
  });
});
