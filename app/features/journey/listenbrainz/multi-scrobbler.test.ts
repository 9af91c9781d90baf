import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { handleListenBrainzApi } from "./handler.server";
import { createListenToken } from "./tokens.server";

withTestDatabase();

/*
 * A whole session of multi-scrobbler's ListenBrainz client as its source writes the requests
 * (FoxxMD/multi-scrobbler, src/backend/common/vendor/ListenbrainzApiClient.ts and
 * listenbrainz/lzUtils.ts, superagent): the URL is the configured one with "1/…" joined on,
 * `Authorization: Token …` on every request, `.type('json')` on submits, and before scrobbling
 * its duplicate check `getPagelessTimeRangeListens` (`.query({ count, min_ts, max_ts })`).
 * It used to send nothing: the duplicate check's 404 moved every play to its failed queue.
 */

// biome-ignore lint/suspicious/noExplicitAny: the test reads JSON answers field by field
type Json = Record<string, any>;

let ip = 0;

async function superagent(method: "GET" | "POST", url: string, token: string, body?: unknown) {
  ip++;
  const headers = new Headers({
    "Accept-Encoding": "gzip, deflate",
    Authorization: `Token ${token}`,
    [CLIENT_IP_HEADER]: `10.44.0.${ip}`,
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

/** `playToListenPayload` of a play from a Jellyfin source, as multi-scrobbler builds it. */
function listenPayload(listenedAt: number | undefined) {
  return {
    ...(listenedAt === undefined ? {} : { listened_at: listenedAt }),
    track_metadata: {
      artist_name: "Kate Bush",
      track_name: "Running Up That Hill (A Deal with God)",
      release_name: "Hounds of Love",
      additional_info: {
        duration: 300,
        submission_client: "multi-scrobbler",
        submission_client_version: "0.9.10",
        artist_names: ["Kate Bush"],
        release_artist_name: "Kate Bush",
        release_artist_names: ["Kate Bush"],
        media_player: "Jellyfin Web",
        media_player_version: "10.10.3",
        music_service_name: "jellyfin",
        tracknumber: 1,
      },
    },
  };
}

describe("multi-scrobbler's ListenBrainz client", () => {
  it("validates, says what is playing, checks for duplicates, scrobbles once and reads it back", async () => {
    const person = await createTestUser();
    const { token } = await createListenToken({ userId: person.id, name: "multi-scrobbler" });
    // Configured as "<BASE_URL>/": joinedUrl gives "<BASE_URL>/1/…".
    const base = "http://localhost:3000/";
    const url = (path: string) => new URL(path, base).toString();

    const auth = await superagent("GET", url("1/validate-token"), token);
    expect(auth.body).toMatchObject({ code: 200, valid: true, user_name: person.username });

    const nobody = await superagent("GET", url(`1/user/${person.username}/playing-now`), token);
    expect(nobody.body.payload).toEqual({
      count: 0,
      user_id: person.username,
      playing_now: true,
      listens: [],
    });

    const playingNow = { listen_type: "playing_now", payload: [listenPayload(undefined)] };
    expect((await superagent("POST", url("1/submit-listens"), token, playingNow)).body).toEqual({
      status: "ok",
    });
    const playing = await superagent("GET", url(`1/user/${person.username}/playing-now`), token);
    expect(playing.body.payload.listens[0].track_metadata).toMatchObject({
      artist_name: "Kate Bush",
      track_name: "Running Up That Hill (A Deal with God)",
      release_name: "Hounds of Love",
    });

    const playedAt = Math.floor(Date.now() / 1000) - 310;
    const check = () =>
      superagent(
        "GET",
        url(
          `1/user/${person.username}/listens?count=100&min_ts=${playedAt - 3600}&max_ts=${playedAt + 3600}`,
        ),
        token,
      );
    const before = await check();
    expect(before.status).toBe(200);
    expect(before.body.payload.listens).toEqual([]);

    const single = { listen_type: "single", payload: [listenPayload(playedAt)] };
    expect((await superagent("POST", url("1/submit-listens"), token, single)).body).toEqual({
      status: "ok",
    });
    // The scrobble ended "now playing" (the same track).
    const after = await superagent("GET", url(`1/user/${person.username}/playing-now`), token);
    expect(after.body.payload.count).toBe(0);

    // Its duplicate check now finds the play (listenResponseToPlay reads these fields) …
    const found = await check();
    expect(found.body.payload.count).toBe(1);
    const [listen] = found.body.payload.listens;
    expect(listen).toMatchObject({
      listened_at: playedAt,
      user_name: person.username,
      track_metadata: {
        artist_name: "Kate Bush",
        track_name: "Running Up That Hill (A Deal with God)",
        release_name: "Hounds of Love",
        additional_info: { duration_ms: 300_000 },
      },
    });
    expect(listen.recording_msid).toMatch(/^[0-9a-f-]{36}$/);
    // … and a retry of the same scrobble adds nothing.
    await superagent("POST", url("1/submit-listens"), token, single);
    expect((await check()).body.payload.count).toBe(1);
    const count = await superagent("GET", url(`1/user/${person.username}/listen-count`), token);
    expect(count.body).toEqual({ payload: { count: 1 } });
  });
});
