import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { handleListenBrainzApi } from "./handler.server";
import { createListenToken } from "./tokens.server";

withTestDatabase();

/*
 * A session of Web Scrobbler's "ListenBrainz" service with a custom API URL and token, as its
 * source writes the requests (web-scrobbler/web-scrobbler 3.x,
 * src/core/scrobbler/listenbrainz/listenbrainz-scrobbler.ts and listenbrainz.types.ts): every
 * request is `fetch(url, { method, headers: { 'Content-Type': 'application/json; charset=UTF-8',
 * Authorization: 'Token …' }, body: JSON.stringify(…) })` from the extension (its Origin is the
 * extension's), to the URL typed in its options ("<BASE_URL>/1/submit-listens"). It reads
 * `status === "ok"` and treats 400 and 401 as an auth error. With a user token it never
 * validates it (getSession returns it as is). Its love goes to api.listenbrainz.org whatever
 * the URL typed (a metadata lookup, then recording-feedback by MBID, both on `baseUrl`): on
 * Soundtrail a Web Scrobbler user loves from the page. It reads nothing back; what is checked
 * after each write is what the person's pages and other clients read, through the same API.
 */

// biome-ignore lint/suspicious/noExplicitAny: the test reads JSON answers field by field
type Json = Record<string, any>;

const ORIGIN = "chrome-extension://hhinaapppaileiechjoiifaancjggfjm";
const API_URL = "http://localhost:3000/1/submit-listens";

let ip = 0;

async function listenBrainzApi(method: string, url: string, body: unknown, token: string | null) {
  ip++;
  const headers = new Headers({
    "Content-Type": "application/json; charset=UTF-8",
    Origin: ORIGIN,
    [CLIENT_IP_HEADER]: `10.48.0.${ip}`,
  });
  if (token) headers.set("Authorization", `Token ${token}`);
  const response = await handleListenBrainzApi(
    new Request(url, { method, headers, body: body ? JSON.stringify(body) : undefined }),
  );
  const text = await response.text();
  return {
    status: response.status,
    cors: response.headers.get("Access-Control-Allow-Origin"),
    body: (text ? JSON.parse(text) : null) as Json,
  };
}

/** makeTrackMetadata: release_name last, duration in whole seconds, origin URL when known. */
function trackMeta(track: string, album: string | null, duration: number | null) {
  return {
    artist_name: "Radiohead",
    track_name: track,
    additional_info: {
      submission_client: "Web Scrobbler",
      submission_client_version: "3.22.0",
      music_service_name: "YouTube Music",
      origin_url: "https://music.youtube.com/watch?v=u5CVsCnxyXg",
      ...(duration === null ? {} : { duration }),
    },
    ...(album === null ? {} : { release_name: album }),
  };
}

describe("Web Scrobbler's ListenBrainz service with a custom URL", () => {
  it("says what is playing, scrobbles, sends its queue as an import once, and is refused with a bad token", async () => {
    const person = await createTestUser();
    const { token } = await createListenToken({ userId: person.id, name: "Web Scrobbler" });
    const read = (path: string) =>
      listenBrainzApi("GET", `http://localhost:3000/1/${path}`, null, token);

    // sendNowPlaying
    const nowPlaying = await listenBrainzApi(
      "POST",
      API_URL,
      {
        listen_type: "playing_now",
        payload: [{ track_metadata: trackMeta("Reckoner", "In Rainbows", 290) }],
      },
      token,
    );
    expect(nowPlaying).toEqual({ status: 200, cors: "*", body: { status: "ok" } });
    const playing = await read(`user/${person.username}/playing-now`);
    expect(playing.body.payload.listens[0].track_metadata).toMatchObject({
      artist_name: "Radiohead",
      track_name: "Reckoner",
      release_name: "In Rainbows",
    });

    // scrobble(songs, currentlyPlaying = true): "single" at the song's start timestamp.
    const started = Math.floor(Date.now() / 1000) - 300;
    const reckoner = {
      listened_at: started,
      track_metadata: trackMeta("Reckoner", "In Rainbows", 290),
    };
    const single = await listenBrainzApi(
      "POST",
      API_URL,
      { listen_type: "single", payload: [reckoner] },
      token,
    );
    expect(single).toEqual({ status: 200, cors: "*", body: { status: "ok" } });
    expect((await read(`user/${person.username}/playing-now`)).body.payload.count).toBe(0);

    // Its scrobble queue (songs whose scrobble failed, no longer playing): up to 50 as an
    // "import", the one already stored among them; a song with neither album nor duration.
    const queue = await listenBrainzApi(
      "POST",
      API_URL,
      {
        listen_type: "import",
        payload: [
          reckoner,
          {
            listened_at: started - 600,
            track_metadata: trackMeta("Nude", "In Rainbows", 255),
          },
          { listened_at: started - 900, track_metadata: trackMeta("Creep (Live)", null, null) },
        ],
      },
      token,
    );
    expect(queue).toEqual({ status: 200, cors: "*", body: { status: "ok" } });
    const listens = await read(`user/${person.username}/listens`);
    expect(listens.body.payload.count).toBe(3);
    expect(listens.body.payload.listens.map((l: Json) => l.track_metadata.track_name)).toEqual([
      "Reckoner",
      "Nude",
      "Creep (Live)",
    ]);
    expect(listens.body.payload.listens[0].track_metadata.additional_info).toMatchObject({
      duration_ms: 290_000,
    });
    expect(listens.body.payload.listens[2].track_metadata).not.toHaveProperty("release_name");

    // A mistyped token: 401 JSON, which it reports as an auth error (and stops scrobbling).
    const refused = await listenBrainzApi(
      "POST",
      API_URL,
      { listen_type: "single", payload: [reckoner] },
      "0bfc2cb4-0000-4000-8000-000000000000",
    );
    expect(refused).toEqual({
      status: 401,
      cors: "*",
      body: { code: 401, error: "Invalid authorization token." },
    });
    // A body it could not have meant: 400 JSON (also an auth error to it), never HTML.
    const broken = await listenBrainzApi(
      "POST",
      API_URL,
      { listen_type: "single", payload: [{ track_metadata: trackMeta("", null, null) }] },
      token,
    );
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe(400);
    expect(typeof broken.body.error).toBe("string");
  });
});
