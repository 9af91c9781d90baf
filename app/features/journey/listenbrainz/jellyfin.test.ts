import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { handleListenBrainzApi } from "./handler.server";
import { createListenToken } from "./tokens.server";

withTestDatabase();

/*
 * A session of Jellyfin's ListenBrainz plugin as its source writes the requests
 * (lyarenei/jellyfin-plugin-listenbrainz 6.x: Api/BaseApiClient.cs, ListenBrainzApiClient.cs,
 * Models/Requests/*, Services/DefaultListenBrainzService.cs, DefaultFavoriteSyncService.cs,
 * Extensions/AudioExtensions.cs; .NET HttpClient and Newtonsoft.Json): the URL is
 * `{ListenBrainzApiUrl}/1/{endpoint}` (typed here with its trailing slash, so "//1/"), the
 * header `Authorization: token …` (lower case), POST bodies as StringContent
 * (`application/json; charset=utf-8`) serialised snake_case without nulls, GET queries from
 * its QueryDict. Its reads (the MSID lookup of a favourite without a recording MBID and the
 * loved-tracks sync) send `config.ApiToken`, the base64 its configuration stores, not the
 * token: ListenBrainz ignores the token of a read; Soundtrail takes the owner's token in that
 * form as theirs (the journey is not always open to everyone). The journey here keeps the
 * default audience, followers, so a read as nobody would be refused.
 */

// biome-ignore lint/suspicious/noExplicitAny: the test reads JSON answers field by field
type Json = Record<string, any>;

let ip = 0;

async function httpClient(method: "GET" | "POST", url: string, token: string, body?: unknown) {
  ip++;
  const headers = new Headers({
    Authorization: `token ${token}`,
    [CLIENT_IP_HEADER]: `10.47.0.${ip}`,
  });
  if (body !== undefined) headers.set("Content-Type", "application/json; charset=utf-8");
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

const RECORDING_MBID = "5f6d8d1c-0e49-4d0c-9b7a-1c1f0e8a9e21";

/** `Audio.AsListen` of a library item: Newtonsoft's order, nulls left out, `tags` an array. */
function asListen(track: string, listenedAt?: number, recordingMbid?: string) {
  return {
    ...(listenedAt === undefined ? {} : { listened_at: listenedAt }),
    track_metadata: {
      artist_name: "Björk",
      track_name: track,
      release_name: "Homogenic",
      additional_info: {
        artist_mbids: ["87c5dedd-371d-4a53-9f7f-80522fb7f3cb"],
        release_mbid: "9ed3d6a6-4e7c-3c36-8b50-2f1c0a4ac1c4",
        ...(recordingMbid ? { recording_mbid: recordingMbid } : {}),
        tracknumber: 1,
        tags: [],
        media_player: "Jellyfin",
        submission_client: "ListenBrainz plugin for Jellyfin",
        submission_client_version: "6.2.1.2",
        duration_ms: 293_000,
      },
    },
  };
}

describe("Jellyfin's ListenBrainz plugin", () => {
  it("validates, plays, scrobbles, syncs favourites both ways, resubmits once and unloves", async () => {
    const person = await createTestUser();
    const { token } = await createListenToken({ userId: person.id, name: "Jellyfin" });
    const stored = Buffer.from(token, "utf8").toString("base64");
    // ListenBrainzApiUrl typed as "<BASE_URL>/": BuildRequestUri gives "<BASE_URL>//1/…".
    const api = (endpoint: string) => `http://localhost:3000//1/${endpoint}`;

    // The configuration page's token check; UserName is kept for the reads.
    const validated = await httpClient("GET", api("validate-token"), token);
    expect(validated.body).toEqual({
      code: 200,
      message: "Token valid.",
      valid: true,
      user_name: person.username,
    });
    const userName = validated.body.user_name as string;

    // Playback start: "now playing" (IsOk is the status code).
    const playing = await httpClient("POST", api("submit-listens"), token, {
      listen_type: "playing_now",
      payload: [asListen("Jóga")],
    });
    expect(playing).toEqual({ status: 200, body: { status: "ok" } });

    // Playback stop past half the track: the listen, at DateUtils.CurrentTimestamp.
    const now = Math.floor(Date.now() / 1000);
    const joga = asListen("Jóga", now - 60);
    const sent = await httpClient("POST", api("submit-listens"), token, {
      listen_type: "single",
      payload: [joga],
    });
    expect(sent).toEqual({ status: 200, body: { status: "ok" } });

    // A favourite without recording MBID: GetRecordingMsidByListenTsAsync reads the latest 10
    // listens (with the stored form of the token) and takes the one at the listen's second …
    const recent = await httpClient("GET", api(`user/${userName}/listens?count=10`), stored);
    expect(recent.status).toBe(200);
    expect(recent.body.payload).toMatchObject({ count: 1, user_id: userName });
    const msid = recent.body.payload.listens.find(
      (l: Json) => l.listened_at === now - 60,
    )?.recording_msid;
    expect(msid).toMatch(/^[0-9a-f-]{36}$/);
    // … and sends the feedback by MSID (RecordingFeedbackRequest: mbid null, msid, score).
    const loved = await httpClient("POST", api("feedback/recording-feedback"), token, {
      recording_msid: msid,
      score: 1,
    });
    expect(loved).toEqual({ status: 200, body: { status: "ok" } });

    // A favourite with its recording MBID: feedback by MBID, no lookup.
    await httpClient("POST", api("submit-listens"), token, {
      listen_type: "single",
      payload: [asListen("Bachelorette", now - 30, RECORDING_MBID)],
    });
    const byMbid = await httpClient("POST", api("feedback/recording-feedback"), token, {
      recording_mbid: RECORDING_MBID,
      score: 1,
    });
    expect(byMbid).toEqual({ status: 200, body: { status: "ok" } });

    // The loved-tracks sync task: pages of 1000 by offset until total_count, MBIDs only.
    const sync = await httpClient(
      "GET",
      api(`feedback/user/${userName}/get-feedback?count=1000&offset=0&score=1`),
      stored,
    );
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ count: 2, total_count: 2, offset: 0 });
    const mbids = (sync.body.feedback as Json[])
      .filter((f) => f.recording_mbid !== null && f.recording_mbid !== undefined)
      .map((f) => f.recording_mbid);
    expect(mbids).toEqual([RECORDING_MBID]);
    expect(sync.body.feedback.map((f: Json) => f.recording_msid)).toContain(msid);

    // The resubmit task sends backed-up listens again as an import: nothing doubles.
    const resubmitted = await httpClient("POST", api("submit-listens"), token, {
      listen_type: "import",
      payload: [joga],
    });
    expect(resubmitted).toEqual({ status: 200, body: { status: "ok" } });
    const count = await httpClient("GET", api(`user/${userName}/listen-count`), token);
    expect(count.body).toEqual({ payload: { count: 2 } });

    // Unfavourite: score 0 (FeedbackScore.Neutral) removes the love.
    await httpClient("POST", api("feedback/recording-feedback"), token, {
      recording_mbid: RECORDING_MBID,
      score: 0,
    });
    const after = await httpClient(
      "GET",
      api(`feedback/user/${userName}/get-feedback?count=1000&offset=0&score=1`),
      stored,
    );
    expect(after.body).toMatchObject({ count: 1, total_count: 1 });

    // Someone else's token in that stored form reads only what that person may read: the
    // journey is followers-only and they do not follow.
    const stranger = await createTestUser();
    const other = await createListenToken({ userId: stranger.id, name: "Jellyfin" });
    const refused = await httpClient(
      "GET",
      api(`user/${userName}/listens?count=10`),
      Buffer.from(other.token).toString("base64"),
    );
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(403);
    // A garbled token is still ListenBrainz's 401, never a read as nobody.
    const garbled = await httpClient(
      "GET",
      api(`user/${userName}/listens?count=10`),
      "bm90LWEtdG9rZW4=",
    );
    expect(garbled.body).toEqual({ code: 401, error: "Invalid authorization token." });
  });
});
