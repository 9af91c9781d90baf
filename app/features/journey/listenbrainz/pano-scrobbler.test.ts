import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { follows } from "~/db/schema";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { settleJourneyAggregates } from "../aggregates.server";
import { handleListenBrainzApi } from "./handler.server";
import { createListenToken } from "./tokens.server";

withTestDatabase();

/*
 * A session of Pano Scrobbler's "Custom ListenBrainz" account as its source writes the requests
 * (kawaiiDango/pano-scrobbler, api/listenbrainz/ListenBrainz.kt and ListenBrainzDataClasses.kt,
 * ktor): the API root typed with its trailing slash and "1/" appended, `Authorization: token …`
 * (lower case) on every request, JSON bodies without the null fields (its Json leaves them out,
 * as ListenBrainz refuses a null release_name). Each answer is checked for the fields its data
 * classes require.
 */

// biome-ignore lint/suspicious/noExplicitAny: the test reads JSON answers field by field
type Json = Record<string, any>;

let ip = 0;

async function ktor(method: "GET" | "POST", url: string, token: string, body?: unknown) {
  ip++;
  const headers = new Headers({
    Authorization: `token ${token}`,
    Accept: "application/json",
    [CLIENT_IP_HEADER]: `10.45.0.${ip}`,
  });
  if (body !== undefined) headers.set("Content-Type", "application/json");
  const response = await handleListenBrainzApi(
    new Request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
}

function scrobble(
  listenType: string,
  listenedAt: number | null,
  track: string,
  album: string | null,
) {
  return {
    listen_type: listenType,
    payload: [
      {
        listened_at: listenedAt,
        track_metadata: {
          artist_name: "Cocteau Twins",
          ...(album === null ? {} : { release_name: album }),
          track_name: track,
          additional_info: {
            duration_ms: 215000,
            submission_client: "Pano Scrobbler",
            submission_client_version: "4.05",
          },
        },
      },
    ].map((p) => (p.listened_at === null ? { track_metadata: p.track_metadata } : p)),
  };
}

describe("Pano Scrobbler's Custom ListenBrainz account", () => {
  it("signs in, scrobbles, shows recents, charts, loves, unloves and deletes", async () => {
    const person = await createTestUser();
    const friend = await createTestUser();
    await getDb().insert(follows).values({ followerId: person.id, followeeId: friend.id });
    const { token } = await createListenToken({ userId: person.id, name: "Pano Scrobbler" });
    // The API root as typed: "<BASE_URL>/", then "1/…".
    const root = "http://localhost:3000/1/";
    const u = person.username;

    const session = await ktor("GET", `${root}validate-token`, token);
    expect(session.body).toMatchObject({ valid: true, user_name: u });

    const now = Math.floor(Date.now() / 1000);
    for (const [i, track] of [
      "Cherry-Coloured Funk",
      "Pitch the Baby",
      "Iceblink Luck",
    ].entries()) {
      const sent = await ktor(
        "POST",
        `${root}submit-listens`,
        token,
        scrobble("single", now - 900 + i * 240, track, "Heaven or Las Vegas"),
      );
      expect(sent.body).toEqual({ status: "ok" });
    }
    await ktor(
      "POST",
      `${root}submit-listens`,
      token,
      scrobble("playing_now", null, "Fotzepolitic", null),
    );

    // Recents: listens (count, then max_ts for the next page) and playing now on top.
    const recents = await ktor("GET", `${root}user/${u}/listens?count=2`, token);
    const page = recents.body.payload;
    for (const key of ["count", "listens", "latest_listen_ts", "oldest_listen_ts"])
      expect(page).toHaveProperty(key);
    expect(page.listens.map((l: Json) => l.track_metadata.track_name)).toEqual([
      "Iceblink Luck",
      "Pitch the Baby",
    ]);
    for (const listen of page.listens) {
      expect(listen).toMatchObject({
        inserted_at: expect.any(Number),
        recording_msid: expect.any(String),
      });
      expect(listen.track_metadata.additional_info.duration_ms).toBe(215000);
    }
    // Pano asks for another page while the page's oldest listen is newer than the oldest of all.
    expect(page.listens.at(-1).listened_at).toBeGreaterThan(page.oldest_listen_ts);
    const next = await ktor(
      "GET",
      `${root}user/${u}/listens?max_ts=${page.listens.at(-1).listened_at}&count=2`,
      token,
    );
    expect(next.body.payload.listens.map((l: Json) => l.track_metadata.track_name)).toEqual([
      "Cherry-Coloured Funk",
    ]);
    const playing = await ktor("GET", `${root}user/${u}/playing-now`, token);
    expect(playing.body.payload.listens[0]).toMatchObject({
      playing_now: true,
      track_metadata: { track_name: "Fotzepolitic", artist_name: "Cocteau Twins" },
    });

    // The drawer's count, the friends list, the charts and the listening activity.
    expect((await ktor("GET", `${root}user/${u}/listen-count`, token)).body).toEqual({
      payload: { count: 3 },
    });
    expect((await ktor("GET", `${root}user/${u}/following`, token)).body).toEqual({
      following: [friend.username],
      user: u,
    });
    await settleJourneyAggregates();
    for (const [type, list, total] of [
      ["artists", "artists", "total_artist_count"],
      ["releases", "releases", "total_release_count"],
      ["recordings", "recordings", "total_recording_count"],
    ] as const) {
      const charts = await ktor(
        "GET",
        `${root}stats/user/${u}/${type}?offset=0&range=this_month&count=25`,
        token,
      );
      const payload = charts.body.payload;
      for (const key of ["count", "from_ts", "last_updated", "offset", "range", "to_ts", total]) {
        expect(payload).toHaveProperty(key);
      }
      expect(payload[list].length).toBeGreaterThan(0);
      for (const entry of payload[list]) {
        expect(entry).toMatchObject({
          artist_name: "Cocteau Twins",
          listen_count: expect.any(Number),
        });
      }
    }
    const activity = await ktor(
      "GET",
      `${root}stats/user/${u}/listening-activity?range=this_week`,
      token,
    );
    const steps = activity.body.payload.listening_activity as Json[];
    expect(steps.reduce((sum, s) => sum + s.listen_count, 0)).toBe(3);
    for (const step of steps) {
      expect(step).toMatchObject({
        from_ts: expect.any(Number),
        to_ts: expect.any(Number),
        time_range: expect.any(String),
      });
    }

    // Love by MSID, list loves with metadata, unlove (score 0).
    const msid = page.listens[0].recording_msid;
    const love = await ktor("POST", `${root}feedback/recording-feedback`, token, {
      recording_msid: msid,
      score: 1,
    });
    expect(love.body).toEqual({ status: "ok" });
    const loves = await ktor(
      "GET",
      `${root}feedback/user/${u}/get-feedback?offset=0&metadata=true&count=25`,
      token,
    );
    expect(loves.body).toMatchObject({ count: 1, total_count: 1 });
    expect(loves.body.feedback[0]).toMatchObject({
      created: expect.any(Number),
      recording_msid: msid,
      score: 1,
      track_metadata: { artist_name: "Cocteau Twins", track_name: "Iceblink Luck" },
    });
    await ktor("POST", `${root}feedback/recording-feedback`, token, {
      recording_msid: msid,
      score: 0,
    });
    expect(
      (
        await ktor(
          "GET",
          `${root}feedback/user/${u}/get-feedback?offset=0&metadata=true&count=25`,
          token,
        )
      ).body.total_count,
    ).toBe(0);
    // Its MBID lookup before a love of a track without MSID: nothing known here.
    expect(
      (
        await ktor(
          "GET",
          `${root}metadata/lookup?artist_name=Cocteau%20Twins&recording_name=Lorelei&release_name=Head%20over%20Heels`,
          token,
        )
      ).body,
    ).toEqual({});

    // Delete from the recents.
    const deleted = await ktor("POST", `${root}delete-listen`, token, {
      listened_at: page.listens[0].listened_at,
      recording_msid: msid,
    });
    expect(deleted.body).toEqual({ status: "ok" });
    expect((await ktor("GET", `${root}user/${u}/listen-count`, token)).body.payload.count).toBe(2);
  });
});
