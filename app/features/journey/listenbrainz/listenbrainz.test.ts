import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { listens, listenTokens, nowPlaying, rateLimits } from "~/db/schema";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { createTestUser, type TestUser } from "../../../../tests/support/factories";
import { withTestDatabase } from "../../../../tests/support/test-database";
import { handleListenBrainzApi, LISTENBRAINZ_LIMITS } from "./handler.server";
import { createListenTokenSchema, MAX_ACTIVE_LISTEN_TOKENS } from "./schemas";
import {
  createListenToken,
  hashListenToken,
  listListenTokens,
  revokeListenToken,
} from "./tokens.server";

withTestDatabase();

const BASE = "http://localhost:3000";
let ipCounter = 0;

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers field by field
type Json = Record<string, any>;

interface Call {
  method?: string;
  /** A value is sent as JSON text; a string is sent as it is. */
  body?: unknown;
  authorization?: string | null;
  contentType?: string | null;
  ip?: string;
}

/** A request to the API as a player sends it (each from its own client address by default). */
async function call(path: string, options: Call = {}) {
  ipCounter++;
  const headers = new Headers({ [CLIENT_IP_HEADER]: options.ip ?? `10.20.0.${ipCounter}` });
  if (options.authorization) headers.set("Authorization", options.authorization);
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === "string"
        ? options.body
        : JSON.stringify(options.body);
  if (body !== undefined && options.contentType !== null) {
    headers.set("Content-Type", options.contentType ?? "application/json");
  }
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

function submit(token: string | null, document: unknown, options: Call = {}) {
  return call("/1/submit-listens", {
    body: document,
    authorization: token === null ? null : `Token ${token}`,
    ...options,
  });
}

const now = () => Math.floor(Date.now() / 1000);

/** Navidrome's scrobble (core/agents/listenbrainz/client.go): no Content-Type, omitempty fields. */
function navidromeSingle(listenedAt: number, track = "Heroes") {
  return {
    listen_type: "single",
    payload: [
      {
        listened_at: listenedAt,
        track_metadata: {
          artist_name: "David Bowie",
          track_name: track,
          release_name: '"Heroes"',
          additional_info: {
            tracknumber: 3,
            track_mbid: "a9a8b5ab-1b1a-4bfa-8d0f-1d4d0b1d2c2e",
            artist_mbids: ["5441c29d-3602-4898-b1a1-b77fa23b8e50"],
            release_mbid: "0c8f1b9c-2e8f-4d5a-9a1b-6c7d8e9f0a1b",
          },
        },
      },
    ],
  };
}

/** Web Scrobbler's now playing: no listened_at, duration in (possibly fractional) seconds. */
function webScrobblerPlayingNow(track: string, duration?: number) {
  return {
    listen_type: "playing_now",
    payload: [
      {
        track_metadata: {
          artist_name: "Broadcast",
          track_name: track,
          release_name: "Tender Buttons",
          additional_info: {
            submission_client: "Web Scrobbler",
            submission_client_version: "3.9.0",
            music_service_name: "Bandcamp",
            origin_url: "https://broadcast.bandcamp.com/track/black-cat",
            ...(duration === undefined ? {} : { duration }),
          },
        },
      },
    ],
  };
}

/** multi-scrobbler's listen: durations in seconds, the player's name, extra fields. */
function multiScrobblerSingle(listenedAt: number | string) {
  return {
    listen_type: "single",
    payload: [
      {
        listened_at: listenedAt,
        track_metadata: {
          artist_name: "Stereolab",
          track_name: "French Disko",
          release_name: "Jenny Ondioline",
          additional_info: {
            duration: 259,
            submission_client: "multi-scrobbler",
            submission_client_version: "0.8.2",
            media_player_name: "jellyfin",
            artist_names: ["Stereolab"],
            tags: ["post-rock"],
          },
        },
      },
    ],
  };
}

async function listensOf(userId: string) {
  return getDb()
    .select({
      listenedAt: listens.listenedAt,
      artistName: listens.artistName,
      trackName: listens.trackName,
      releaseName: listens.releaseName,
      artistKey: listens.artistKey,
      trackKey: listens.trackKey,
      durationMs: listens.durationMs,
      source: listens.source,
      importId: listens.importId,
    })
    .from(listens)
    .where(eq(listens.userId, userId))
    .orderBy(listens.listenedAt);
}

async function nowPlayingOf(userId: string) {
  const [row] = await getDb()
    .select({
      trackName: nowPlaying.trackName,
      artistName: nowPlaying.artistName,
      seconds: sql<number>`extract(epoch from (${nowPlaying.expiresAt} - ${nowPlaying.startedAt}))::int`,
    })
    .from(nowPlaying)
    .where(eq(nowPlaying.userId, userId));
  return row ?? null;
}

async function personWithToken(name = "Navidrome at home") {
  const person = await createTestUser();
  const { id, token } = await createListenToken({ userId: person.id, name });
  return { person, token, tokenId: id };
}

describe("GET /1/validate-token", () => {
  let person: TestUser;
  let token: string;
  let tokenId: string;
  beforeAll(async () => {
    ({ person, token, tokenId } = await personWithToken());
  });

  it("says a working token is valid, with its owner's username, from the header", async () => {
    const answer = await call("/1/validate-token", { authorization: `Token ${token}` });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      code: 200,
      message: "Token valid.",
      valid: true,
      user_name: person.username,
    });
    expect(answer.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });

  it("reads the legacy ?token= parameter and a lower-case scheme, and a trailing slash", async () => {
    const query = await call(`/1/validate-token?token=${token}`);
    expect(query.body).toMatchObject({ valid: true, user_name: person.username });
    const lower = await call("/1/validate-token/", { authorization: `token ${token}` });
    expect(lower.body).toMatchObject({ valid: true, user_name: person.username });
  });

  it("answers 200 with valid false for a token it does not know", async () => {
    const answer = await call("/1/validate-token", { authorization: "Token not-a-real-token" });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ code: 200, message: "Token invalid.", valid: false });
  });

  it("answers 400 when no token is given at all", async () => {
    const answer = await call("/1/validate-token");
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 400,
      error: "You need to provide an Authorization token.",
    });
  });

  it("marks the token as used, and stores only its SHA-256", async () => {
    const [row] = await getDb()
      .select({
        hash: listenTokens.tokenHash,
        hint: listenTokens.hint,
        used: listenTokens.lastUsedAt,
      })
      .from(listenTokens)
      .where(eq(listenTokens.id, tokenId));
    expect(row?.hash).toBe(hashListenToken(token));
    expect(row?.hash).not.toContain(token);
    expect(row?.hint).toBe(token.slice(-4));
    expect(row?.used).toBeInstanceOf(Date);
  });

  it("says a revoked token is invalid", async () => {
    const { person: owner, token: revoked, tokenId: id } = await personWithToken();
    await revokeListenToken({ userId: owner.id, tokenId: id });
    const answer = await call("/1/validate-token", { authorization: `Token ${revoked}` });
    expect(answer.body).toEqual({ code: 200, message: "Token invalid.", valid: false });
  });
});

describe("POST /1/submit-listens: who may send", () => {
  it("refuses a request without an Authorization header", async () => {
    const answer = await submit(null, navidromeSingle(now() - 60));
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      code: 401,
      error: "You need to provide an Authorization header.",
    });
  });

  it("refuses a header without a token", async () => {
    const answer = await submit(null, navidromeSingle(now() - 60), { authorization: "Token" });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 401, error: "Provided Authorization header is invalid." });
  });

  it("refuses a garbage token and writes nothing", async () => {
    const answer = await submit("0b6f4d8e-garbage", navidromeSingle(now() - 60));
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 401, error: "Invalid authorization token." });
  });

  it("refuses a revoked token, and keeps what it sent before", async () => {
    const { person, token, tokenId } = await personWithToken();
    const at = now() - 300;
    expect((await submit(token, navidromeSingle(at))).body).toEqual({ status: "ok" });
    await revokeListenToken({ userId: person.id, tokenId });
    const answer = await submit(token, navidromeSingle(at + 200, "Sound and Vision"));
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 401, error: "Invalid authorization token." });
    expect((await listensOf(person.id)).map((l) => l.trackName)).toEqual(["Heroes"]);
  });

  it("refuses the token of a banned account", async () => {
    const banned = await createTestUser({ banned: true });
    const { token } = await createListenToken({ userId: banned.id, name: "Old player" });
    const answer = await submit(token, navidromeSingle(now() - 60));
    expect(answer.status).toBe(401);
  });
});

describe("POST /1/submit-listens: listen types", () => {
  it("stores a single listen as Navidrome sends it (no Content-Type), with its name keys", async () => {
    const { person, token } = await personWithToken();
    const at = now() - 240;
    const answer = await submit(token, navidromeSingle(at, "Heroes - 2017 Remaster"), {
      contentType: null,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: "ok" });
    const rows = await listensOf(person.id);
    expect(rows).toEqual([
      {
        listenedAt: new Date(at * 1000),
        artistName: "David Bowie",
        trackName: "Heroes - 2017 Remaster",
        releaseName: '"Heroes"',
        artistKey: "david bowie",
        trackKey: "heroes",
        durationMs: null,
        source: "scrobble",
        importId: null,
      },
    ]);
  });

  it("adds the same listen once however often it is sent", async () => {
    const { person, token } = await personWithToken();
    const at = now() - 600;
    for (let i = 0; i < 3; i++) {
      expect((await submit(token, navidromeSingle(at))).body).toEqual({ status: "ok" });
    }
    expect(await listensOf(person.id)).toHaveLength(1);
  });

  it("accepts listened_at as a string of digits and ignores extra fields in additional_info", async () => {
    const { person, token } = await personWithToken();
    const at = now() - 900;
    const answer = await submit(token, multiScrobblerSingle(String(at)));
    expect(answer.body).toEqual({ status: "ok" });
    const [row] = await listensOf(person.id);
    expect(row?.listenedAt).toEqual(new Date(at * 1000));
    expect(row?.durationMs).toBe(259_000);
  });

  it("ignores keys it does not know at the top of the document", async () => {
    const { person, token } = await personWithToken();
    const document = { ...navidromeSingle(now() - 1500), client: "scrobbler 1.0", version: 2 };
    const answer = await submit(token, document);
    expect(answer.body).toEqual({ status: "ok" });
    expect(answer.headers.get("X-RateLimit-Limit")).toBe(
      String(LISTENBRAINZ_LIMITS.perToken.limit),
    );
    expect(await listensOf(person.id)).toHaveLength(1);
  });

  it("accepts a listen without additional_info, or with it null", async () => {
    const { person, token } = await personWithToken();
    const at = now() - 1200;
    const bare = {
      listen_type: "single",
      payload: [
        { listened_at: at, track_metadata: { artist_name: "Can", track_name: "Vitamin C" } },
      ],
    };
    expect((await submit(token, bare)).body).toEqual({ status: "ok" });
    const nulled = {
      listen_type: "single",
      payload: [
        {
          listened_at: at + 400,
          track_metadata: { artist_name: "Can", track_name: "Halleluhwah", additional_info: null },
        },
      ],
    };
    expect((await submit(token, nulled)).body).toEqual({ status: "ok" });
    expect(await listensOf(person.id)).toHaveLength(2);
  });

  it("shows playing_now for the track's length, and keeps it when the same track is sent again", async () => {
    const { person, token } = await personWithToken();
    const first = await submit(token, webScrobblerPlayingNow("Black Cat", 214.6));
    expect(first.body).toEqual({ status: "ok" });
    expect(await nowPlayingOf(person.id)).toEqual({
      trackName: "Black Cat",
      artistName: "Broadcast",
      seconds: 214,
    });
    // Nothing goes into the history for a playing_now.
    expect(await listensOf(person.id)).toHaveLength(0);
    await submit(token, webScrobblerPlayingNow("Black Cat", 100));
    expect((await nowPlayingOf(person.id))?.seconds).toBe(214);
  });

  it("shows playing_now for ten minutes when no length is given; another track replaces it", async () => {
    const { person, token } = await personWithToken();
    await submit(token, webScrobblerPlayingNow("Michael A Grammar"));
    expect(await nowPlayingOf(person.id)).toMatchObject({
      trackName: "Michael A Grammar",
      seconds: 600,
    });
    const navidromeStyle = {
      listen_type: "playing_now",
      payload: [
        {
          track_metadata: {
            artist_name: "Broadcast",
            track_name: "Corporeal",
            additional_info: { duration_ms: 180_500 },
          },
        },
      ],
    };
    await submit(token, navidromeStyle);
    expect(await nowPlayingOf(person.id)).toMatchObject({ trackName: "Corporeal", seconds: 180 });
  });

  it("clears now playing when the same track arrives as a single listen", async () => {
    const { person, token } = await personWithToken();
    await submit(token, webScrobblerPlayingNow("Tears in the Typing Pool", 200));
    const other = {
      listen_type: "single",
      payload: [
        {
          listened_at: now() - 30,
          track_metadata: { artist_name: "Broadcast", track_name: "Before We Begin" },
        },
      ],
    };
    await submit(token, other);
    expect(await nowPlayingOf(person.id)).not.toBeNull();
    const same = {
      listen_type: "single",
      payload: [
        {
          listened_at: now() - 10,
          track_metadata: { artist_name: "broadcast", track_name: "Tears In The Typing Pool" },
        },
      ],
    };
    expect((await submit(token, same)).body).toEqual({ status: "ok" });
    expect(await nowPlayingOf(person.id)).toBeNull();
  });

  it("imports 1000 listens in one request, and refuses 1001 with ListenBrainz's message", async () => {
    const { person, token } = await personWithToken();
    const start = now() - 10 * 24 * 3600;
    const payload = Array.from({ length: 1000 }, (_, i) => ({
      listened_at: start + i * 200,
      track_metadata: {
        artist_name: `Artist ${i % 37}`,
        track_name: `Track ${i}`,
        release_name: "Import",
      },
    }));
    const ok = await submit(token, { listen_type: "import", payload });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "ok" });
    expect(await listensOf(person.id)).toHaveLength(1000);

    const tooMany = await submit(token, {
      listen_type: "import",
      payload: [
        ...payload,
        { listened_at: start - 1, track_metadata: { artist_name: "A", track_name: "T" } },
      ],
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({
      code: 400,
      error: "Too many listens. You may not submit more than 1000 listens at once.",
    });
    // The same import again adds nothing.
    expect((await submit(token, { listen_type: "import", payload })).body).toEqual({
      status: "ok",
    });
    expect(await listensOf(person.id)).toHaveLength(1000);
  });
});

describe("POST /1/submit-listens: validation as ListenBrainz words it", () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await personWithToken());
  });
  const listen = (extra: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
    listened_at: now() - 60,
    track_metadata: { artist_name: "Low", track_name: "Words", ...metadata },
    ...extra,
  });

  const cases: [string, unknown, string][] = [
    [
      "a document that is not an object",
      [1, 2],
      "Invalid JSON document submitted. Top level of JSON document should be a json object.",
    ],
    ["no payload", { listen_type: "single" }, "Invalid JSON document submitted."],
    [
      "a payload that is not a list",
      { listen_type: "single", payload: "nope" },
      "The payload in the JSON document should be a list of listens.",
    ],
    [
      "an empty payload",
      { listen_type: "single", payload: [] },
      "JSON document does not contain any listens",
    ],
    ["no listen_type", { payload: [listen()] }, "Invalid JSON document submitted."],
    [
      "an unknown listen_type",
      { listen_type: "scrobble", payload: [listen()] },
      "JSON document requires a valid listen_type key.",
    ],
    [
      "two listens as a single",
      { listen_type: "single", payload: [listen(), listen()] },
      "JSON document contains more than listen for a single/playing_now. It should contain only one.",
    ],
    [
      "a single without listened_at",
      {
        listen_type: "single",
        payload: [{ track_metadata: { artist_name: "Low", track_name: "Words" } }],
      },
      "JSON document must contain the key listened_at at the top level.",
    ],
    [
      "listened_at that is not a number",
      { listen_type: "single", payload: [listen({ listened_at: "yesterday" })] },
      "JSON document must contain an int value for listened_at.",
    ],
    [
      "listened_at before October 2002",
      { listen_type: "single", payload: [listen({ listened_at: 1_000_000_000 })] },
      "Value for key listened_at is too low. listened_at timestamp should be greater than 1033410600 (2002-10-01 00:00:00 UTC).",
    ],
    [
      "listened_at more than an hour ahead",
      { listen_type: "single", payload: [listen({ listened_at: now() + 2 * 3600 })] },
      "Value for key listened_at is too high.",
    ],
    [
      "an extra top-level key in a listen",
      { listen_type: "single", payload: [listen({ user: "me" })] },
      "JSON document may only contain listened_at and track_metadata top level keys",
    ],
    [
      "listened_at in a playing_now",
      { listen_type: "playing_now", payload: [listen()] },
      "JSON document must not contain listened_at while submitting playing_now.",
    ],
    [
      "no track_name",
      { listen_type: "single", payload: [listen({}, { track_name: undefined })] },
      "JSON document does not contain required field track_metadata.track_name.",
    ],
    [
      "an empty artist_name",
      { listen_type: "single", payload: [listen({}, { artist_name: "   " })] },
      "field track_metadata.artist_name is empty.",
    ],
    [
      "a track_name that is not a string",
      { listen_type: "single", payload: [listen({}, { track_name: ["Words"] })] },
      "track_metadata.track_name must be a single string.",
    ],
    [
      "track_metadata null",
      { listen_type: "single", payload: [listen({ track_metadata: null })] },
      "JSON document may not have track_metadata with null value.",
    ],
    [
      "both duration and duration_ms",
      {
        listen_type: "single",
        payload: [listen({}, { additional_info: { duration: 200, duration_ms: 200_000 } })],
      },
      "JSON document should not contain both duration and duration_ms.",
    ],
    [
      "a duration of zero",
      { listen_type: "single", payload: [listen({}, { additional_info: { duration_ms: 0 } })] },
      "Value for duration_ms is invalid, should be a positive integer.",
    ],
    [
      "a duration over 24 days",
      {
        listen_type: "single",
        payload: [listen({}, { additional_info: { duration: 3_000_000 } })],
      },
      "Value for duration is too large, max permitted value is 2073600",
    ],
    [
      "a malformed MBID",
      {
        listen_type: "single",
        payload: [listen({}, { additional_info: { recording_mbid: "not-an-mbid" } })],
      },
      "recording_mbid MBID format invalid.",
    ],
    [
      "a unicode null",
      { listen_type: "single", payload: [listen({}, { track_name: "Wo\u0000rds" })] },
      "Wo\u0000rds contains a unicode null",
    ],
  ];

  for (const [what, document, message] of cases) {
    it(`refuses ${what}: 400 "${message.slice(0, 60)}"`, async () => {
      const answer = await submit(token, document);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe(400);
      expect(answer.body.error).toBe(message);
    });
  }

  it("puts the offending listen into the error body, as ListenBrainz does", async () => {
    const answer = await submit(token, {
      listen_type: "single",
      payload: [listen({}, { additional_info: { recording_mbid: "nope" } })],
    });
    expect(answer.body).toMatchObject({
      code: 400,
      error: "recording_mbid MBID format invalid.",
      track_metadata: { artist_name: "Low", track_name: "Words" },
    });
  });

  it("refuses a body that is not JSON", async () => {
    const answer = await submit(token, "{listen_type: single");
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe(400);
    expect(answer.body.error).toMatch(/^Cannot parse JSON document: /);
  });

  it("refuses a body over ListenBrainz's payload limit", async () => {
    const answer = await submit(token, `{"payload": "${"x".repeat(10_240_001)}"}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 400,
      error: "Payload too large. Payload cannot exceed 10240000 bytes",
    });
  });

  it("refuses a single listen over 10240 bytes", async () => {
    const answer = await submit(token, {
      listen_type: "single",
      payload: [listen({}, { additional_info: { comment: "y".repeat(11_000) } })],
    });
    expect(answer.body).toEqual({
      code: 400,
      error: "JSON document is too large. Each listens may not be larger than 10240 bytes.",
    });
  });

  it("keeps names longer than the history holds, cut to 512 characters", async () => {
    const { person, token: own } = await personWithToken();
    const long = "Ω".repeat(700);
    const answer = await submit(own, {
      listen_type: "single",
      payload: [listen({}, { track_name: long })],
    });
    expect(answer.body).toEqual({ status: "ok" });
    const [row] = await listensOf(person.id);
    expect(Array.from(row?.trackName ?? "")).toHaveLength(512);
  });
});

describe("the API's HTTP surface", () => {
  it("answers the CORS preflight as ListenBrainz does", async () => {
    const answer = await call("/1/submit-listens", { method: "OPTIONS" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(answer.headers.get("Access-Control-Allow-Headers")).toBe("Authorization, Content-Type");
    expect(answer.headers.get("Access-Control-Allow-Methods")).toContain("POST");
    expect(answer.headers.get("X-RateLimit-Limit")).toBeNull();
  });

  it("answers 404 and 405 in ListenBrainz's error shape", async () => {
    const missing = await call("/1/user/someone/listens");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe(404);
    const wrongMethod = await call("/1/submit-listens");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toEqual({
      code: 405,
      error: "The method is not allowed for the requested URL.",
    });
  });

  it("accepts a trailing slash and a doubled slash on submit-listens", async () => {
    const { person, token } = await personWithToken();
    const at = now() - 100;
    await call("/1/submit-listens/", {
      body: navidromeSingle(at),
      authorization: `Token ${token}`,
    });
    await call("/1//submit-listens", {
      body: navidromeSingle(at + 1, "Blackout"),
      authorization: `Token ${token}`,
    });
    expect(await listensOf(person.id)).toHaveLength(2);
  });
});

describe("rate limits", () => {
  it("sends the X-RateLimit headers, counting down per token", async () => {
    const { token, tokenId } = await personWithToken();
    // Pin the window an hour out, so the count cannot roll over during the test.
    await getDb()
      .insert(rateLimits)
      .values({
        key: `listenbrainz:token:${tokenId}`,
        count: 10,
        resetAt: sql`now() + interval '1 hour'`,
      });
    const first = await submit(token, navidromeSingle(now() - 50));
    const second = await call("/1/validate-token", { authorization: `Token ${token}` });
    const limit = String(LISTENBRAINZ_LIMITS.perToken.limit);
    expect(first.headers.get("X-RateLimit-Limit")).toBe(limit);
    expect(first.headers.get("X-RateLimit-Remaining")).toBe(
      String(LISTENBRAINZ_LIMITS.perToken.limit - 11),
    );
    expect(second.headers.get("X-RateLimit-Remaining")).toBe(
      String(LISTENBRAINZ_LIMITS.perToken.limit - 12),
    );
    const resetIn = Number(first.headers.get("X-RateLimit-Reset-In"));
    expect(resetIn).toBeGreaterThan(3000);
    expect(resetIn).toBeLessThanOrEqual(3600);
    const reset = Number(first.headers.get("X-RateLimit-Reset"));
    expect(Math.abs(reset - (now() + resetIn))).toBeLessThan(120);
    expect(first.headers.get("Access-Control-Expose-Headers")).toContain("X-RateLimit-Remaining");
  });

  it("answers 429 once the window's budget is spent, and writes nothing", async () => {
    const { person, token, tokenId } = await personWithToken();
    await getDb()
      .insert(rateLimits)
      .values({
        key: `listenbrainz:token:${tokenId}`,
        count: LISTENBRAINZ_LIMITS.perToken.limit,
        resetAt: sql`now() + interval '1 hour'`,
      });
    const answer = await submit(token, navidromeSingle(now() - 50));
    expect(answer.status).toBe(429);
    expect(answer.body).toEqual({
      code: 429,
      error:
        "You have exceeded your rate limit. See the X-RateLimit-* response headers for more information on your current rate limit.",
    });
    expect(answer.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(await listensOf(person.id)).toHaveLength(0);
  });

  it("limits requests without a working token by client address", async () => {
    const ip = "10.99.0.1";
    await getDb()
      .insert(rateLimits)
      .values({
        key: `listenbrainz:ip:${ip}`,
        count: LISTENBRAINZ_LIMITS.perAddress.limit,
        resetAt: sql`now() + interval '1 hour'`,
      });
    const answer = await submit("garbage", navidromeSingle(now() - 50), { ip });
    expect(answer.status).toBe(429);
    expect(answer.headers.get("X-RateLimit-Limit")).toBe(
      String(LISTENBRAINZ_LIMITS.perAddress.limit),
    );
  });
});

describe("tokens in Settings", () => {
  it("validates the name a person gives", () => {
    expect(createListenTokenSchema.safeParse({ name: "  Navidrome   at home " }).data).toEqual({
      name: "Navidrome at home",
    });
    expect(createListenTokenSchema.safeParse({ name: "   " }).error?.issues[0]?.message).toBe(
      "Give the token a name, such as the player that will use it.",
    );
    expect(createListenTokenSchema.safeParse({ name: "x".repeat(61) }).success).toBe(false);
  });

  it("lists tokens without the secret, and limits how many work at once", async () => {
    const person = await createTestUser();
    for (let i = 0; i < MAX_ACTIVE_LISTEN_TOKENS; i++) {
      await createListenToken({ userId: person.id, name: `Player ${i}` });
    }
    await expect(createListenToken({ userId: person.id, name: "One too many" })).rejects.toThrow(
      `You can have ${MAX_ACTIVE_LISTEN_TOKENS} tokens at once.`,
    );
    const { active } = await listListenTokens({ userId: person.id });
    expect(active).toHaveLength(MAX_ACTIVE_LISTEN_TOKENS);
    expect(Object.keys(active[0] ?? {}).sort()).toEqual(
      ["createdAt", "hint", "id", "lastUsedAt", "name", "revokedAt"].sort(),
    );
    // Revoking one makes room again.
    await revokeListenToken({ userId: person.id, tokenId: active[0]?.id ?? "" });
    await createListenToken({ userId: person.id, name: "Replacement" });
    const after = await listListenTokens({ userId: person.id });
    expect(after.active).toHaveLength(MAX_ACTIVE_LISTEN_TOKENS);
    expect(after.revoked).toHaveLength(1);
  });

  it("never lets someone revoke another person's token", async () => {
    const { tokenId, token } = await personWithToken();
    const stranger = await createTestUser();
    await expect(revokeListenToken({ userId: stranger.id, tokenId })).rejects.toThrow(
      "That token does not exist.",
    );
    const [row] = await getDb()
      .select({ revokedAt: listenTokens.revokedAt })
      .from(listenTokens)
      .where(and(eq(listenTokens.id, tokenId)));
    expect(row?.revokedAt).toBeNull();
    expect((await call("/1/validate-token", { authorization: `Token ${token}` })).body.valid).toBe(
      true,
    );
  });
});
