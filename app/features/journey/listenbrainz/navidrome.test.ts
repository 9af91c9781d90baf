import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { handleListenBrainzApi } from "./handler.server";
import { createListenToken, revokeListenToken } from "./tokens.server";

withTestDatabase();

/*
 * A session of Navidrome's ListenBrainz agent as its source writes the requests
 * (navidrome/navidrome, adapters/listenbrainz/client.go, agent.go and auth_router.go; Go's
 * net/http): the configured `ListenBrainz.BaseURL` ("<BASE_URL>/1/") with the endpoint joined
 * by path.Join, `Content-Type: application/json; charset=UTF-8` and `Authorization: Token …`
 * on every request, the body `json.Marshal` of its structs (omitempty: no listened_at on
 * "playing now", artist_mbids keeps an artist without MBID as ""). Linking the account in its
 * UI validates the token (a GET whose body is `{}`: the in-process request carries none, the
 * HTTP server reads the class of /1 as ListenBrainz's whatever the method, see
 * body-limits.test). Navidrome reads nothing back from the server it scrobbles to (its
 * metadata, top songs and similar artists go to api.listenbrainz.org and labs whatever the
 * base URL), loves nothing and deletes nothing there: what is checked after each write is
 * what the person's other clients and pages read, through the same API.
 */

// biome-ignore lint/suspicious/noExplicitAny: the test reads JSON answers field by field
type Json = Record<string, any>;

let ip = 0;

/** What Go's http.Client sends for makeAuthenticatedRequest. */
async function goClient(method: "GET" | "POST", url: string, token: string, body: unknown) {
  ip++;
  const encoded = JSON.stringify(body);
  const headers = new Headers({
    "User-Agent": "Go-http-client/1.1",
    "Content-Type": "application/json; charset=UTF-8",
    Authorization: `Token ${token}`,
    "Accept-Encoding": "gzip",
    [CLIENT_IP_HEADER]: `10.46.0.${ip}`,
  });
  const response = await handleListenBrainzApi(
    new Request(url, { method, headers, body: method === "GET" ? undefined : encoded }),
  );
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
}

/** formatListen of a MediaFile with two credited artists, one of them without an MBID. */
function listenInfo(listenedAt?: number) {
  return {
    ...(listenedAt === undefined ? {} : { listened_at: listenedAt }),
    track_metadata: {
      artist_name: "Massive Attack feat. Elizabeth Fraser",
      track_name: "Teardrop",
      release_name: "Mezzanine",
      additional_info: {
        submission_client: "Navidrome",
        submission_client_version: "0.58.0 (4e2f4b1d)",
        tracknumber: 3,
        artist_names: ["Massive Attack", "Elizabeth Fraser"],
        artist_mbids: ["10adbe5e-a2c0-4bf3-8249-2b4cbf6e6ca8", ""],
        recording_mbid: "4dba2a5e-9dcd-4bb6-a0a0-47a1d8a0ad6b",
        release_mbid: "b7b0b1a6-3b5d-4e5e-9a8a-3a2fd4a8f2b1",
        release_group_mbid: "9e0e8a9b-1d0e-3f43-8a6d-02c4a2bcc6a5",
        duration_ms: 330_000,
      },
    },
  };
}

describe("Navidrome's ListenBrainz agent", () => {
  it("links, says what is playing, scrobbles, retries and is refused once unlinked", async () => {
    const person = await createTestUser();
    const { id: tokenId, token } = await createListenToken({
      userId: person.id,
      name: "Navidrome",
    });
    // ND_LISTENBRAINZ_BASEURL="<BASE_URL>/1/": path.Join gives "/1/<endpoint>".
    const url = (endpoint: string) => `http://localhost:3000/1/${endpoint}`;

    // Settings → ListenBrainz → link: validateToken; the UI shows resp.Valid and resp.UserName.
    const linked = await goClient("GET", url("validate-token"), token, {});
    expect(linked.status).toBe(200);
    expect(linked.body).toEqual({
      code: 200,
      message: "Token valid.",
      valid: true,
      user_name: person.username,
    });
    const wrong = await goClient("GET", url("validate-token"), "not-a-token", {});
    expect(wrong.body).toMatchObject({ code: 200, valid: false });

    // NowPlaying: the agent warns unless `status` is "ok".
    const nowPlaying = await goClient("POST", url("submit-listens"), token, {
      listen_type: "playing_now",
      payload: [listenInfo()],
    });
    expect(nowPlaying).toEqual({ status: 200, body: { status: "ok" } });
    const playing = await goClient("GET", url(`user/${person.username}/playing-now`), token, {});
    expect(playing.body.payload).toMatchObject({ count: 1, playing_now: true });
    expect(playing.body.payload.listens[0].track_metadata).toMatchObject({
      artist_name: "Massive Attack feat. Elizabeth Fraser",
      track_name: "Teardrop",
      release_name: "Mezzanine",
    });

    // Scrobble at the play's start (s.TimeStamp), then the same again: the scrobbler retries a
    // scrobble whose answer it did not get (ErrRetryLater), and it is kept once.
    const playedAt = Math.floor(Date.now() / 1000) - 400;
    const single = { listen_type: "single", payload: [listenInfo(playedAt)] };
    expect(await goClient("POST", url("submit-listens"), token, single)).toEqual({
      status: 200,
      body: { status: "ok" },
    });
    expect(await goClient("POST", url("submit-listens"), token, single)).toEqual({
      status: 200,
      body: { status: "ok" },
    });
    const read = await goClient("GET", url(`user/${person.username}/listens`), token, {});
    expect(read.body.payload.count).toBe(1);
    expect(read.body.payload.listens[0]).toMatchObject({
      listened_at: playedAt,
      user_name: person.username,
      recording_msid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      track_metadata: {
        artist_name: "Massive Attack feat. Elizabeth Fraser",
        track_name: "Teardrop",
        release_name: "Mezzanine",
      },
    });
    // The scrobble of the track that showed as playing ends "now playing".
    const after = await goClient("GET", url(`user/${person.username}/playing-now`), token, {});
    expect(after.body.payload.count).toBe(0);

    // A submit ListenBrainz refuses is a listenBrainzError with its code (Unrecoverable, not
    // retried): an MBID that is not one, and a revoked token.
    const bad = listenInfo(playedAt + 400);
    bad.track_metadata.additional_info.recording_mbid = "mbz-123";
    const refused = await goClient("POST", url("submit-listens"), token, {
      listen_type: "single",
      payload: [bad],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 400, error: "recording_mbid MBID format invalid." });
    await revokeListenToken({ userId: person.id, tokenId });
    const unlinked = await goClient("POST", url("submit-listens"), token, single);
    expect(unlinked).toEqual({
      status: 401,
      body: { code: 401, error: "Invalid authorization token." },
    });
  });
});
