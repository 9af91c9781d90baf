import { eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { artistKey, titleKey } from "~/core/music-keys";
import { getDb } from "~/db/client.server";
import { follows, journeyChapters, listens, media, posts } from "~/db/schema";
import { getMediaForViewer } from "~/features/media/index.server";
import { getPost } from "~/features/posts/index.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as userJourneyRoute from "~/routes/_app/user-journey";
import * as journeyRecapRoute from "~/routes/journey-recap";
import { contextFor as sharedContextFor, viewerOf } from "../../../tests/support/admin-fixtures";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { saveJourneySettings } from "./access.server";
import { loadJourney } from "./journey-page.server";
import {
  loadRecap,
  postRecap,
  RECAP_HEIGHT,
  RECAP_NOT_FOUND,
  RECAP_WIDTH,
  RECAPS_OFF_MESSAGE,
} from "./recap.server";

const { action: journeyAction } = atTheEdge(userJourneyRoute);
const { loader: recapLoader } = atTheEdge(journeyRecapRoute);

withTestDatabase();

const NOW = new Date("2025-06-15T12:00:00Z");
const JUNE = "period=custom&from=2025-06-01&to=2025-06-14";

let owner: TestUser;
let fan: TestUser;
let stranger: TestUser;

async function insertPlays(userId: string, plays: [string, string, string][]) {
  await getDb()
    .insert(listens)
    .values(
      plays.map(([at, artist, track]) => ({
        userId,
        listenedAt: new Date(at),
        durationMs: 200_000,
        artistName: artist,
        trackName: track,
        artistKey: artistKey(artist),
        trackKey: titleKey(track),
        source: "scrobble" as const,
      })),
    );
}

function ownerOf(person: TestUser) {
  return { id: person.id, username: person.username, displayName: person.displayName ?? "" };
}

async function settings(
  patch: Partial<{
    audience: "everyone" | "followers" | "only_me";
    hiddenArtists: string[];
    recapsEnabled: boolean;
  }>,
) {
  await saveJourneySettings({
    userId: owner.id,
    audience: "followers",
    hiddenArtists: [],
    nowPlayingPaused: false,
    recapsEnabled: true,
    ...patch,
  });
}

function contextFor(viewer: TestUser | null) {
  return sharedContextFor(viewer ? viewerOf(viewer, false) : null);
}

async function getCard(viewer: TestUser | null, query: string, headers?: HeadersInit) {
  return (await recapLoader({
    request: new Request(`http://localhost/u/${owner.username}/journey/recap.png?${query}`, {
      headers,
    }),
    context: contextFor(viewer),
    params: { username: owner.username },
  } as unknown as Parameters<typeof recapLoader>[0])) as Response;
}

async function postForm(viewer: TestUser, username: string, fields: Record<string, string>) {
  const request = new Request(`http://localhost/u/${username}/journey?${JUNE}`, {
    method: "POST",
    body: new URLSearchParams(fields),
  });
  try {
    return await journeyAction({
      request,
      context: contextFor(viewer),
      params: { username },
    } as unknown as Parameters<typeof journeyAction>[0]);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

beforeAll(async () => {
  owner = await createTestUser({ displayName: "Recap Owner" });
  fan = await createTestUser();
  stranger = await createTestUser();
  await getDb().insert(follows).values({ followerId: fan.id, followeeId: owner.id });
  await insertPlays(owner.id, [
    ["2025-06-01T10:00:00Z", "Radiohead", "Karma Police"],
    ["2025-06-01T10:05:00Z", "Radiohead", "Karma Police"],
    ["2025-06-02T10:00:00Z", "Radiohead", "Airbag"],
    ["2025-06-03T10:00:00Z", "Björk", "Jóga"],
    ["2025-06-04T10:00:00Z", "Björk", "Hyperballad"],
    ["2025-06-05T10:00:00Z", "Secret Singer", "Private Song"],
    ["2025-06-05T10:05:00Z", "Secret Singer", "Private Song"],
    ["2025-06-05T10:10:00Z", "Secret Singer", "Private Song"],
    ["2025-06-05T10:15:00Z", "Secret Singer", "Private Song"],
  ]);
});

describe("the recap card image", () => {
  it("is a PNG of 1080 × 1350 with private cache headers, a 304 when unchanged, a file on download", async () => {
    await settings({});
    const response = await getCard(owner, JUNE);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("cache-control")).toBe("private, max-age=300");
    expect(response.headers.get("vary")).toBe("Cookie");
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ format: "png", width: RECAP_WIDTH, height: RECAP_HEIGHT });
    // Not a blank picture: the drawing has many colours (gradient, covers, text).
    const stats = await sharp(bytes).stats();
    expect(stats.channels[0]?.stdev).toBeGreaterThan(5);

    const etag = response.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"recap-[0-9a-f]{32}"$/);
    const again = await getCard(owner, JUNE, { "If-None-Match": etag });
    expect(again.status).toBe(304);

    const download = await getCard(owner, `${JUNE}&download=1`);
    expect(download.headers.get("content-disposition")).toBe(
      `attachment; filename="soundtrail-recap-${owner.username}-2025-06-01-to-2025-06-14.png"`,
    );
  });

  it("answers a period a client made up with a 400 and its reason, never a 500", async () => {
    await settings({});
    const response = await getCard(owner, "period=custom&from=2025-02-30&to=2025-03-01");
    expect(response.status).toBe(400);
    expect(await response.text()).toBe("Start date: That date does not exist.");
    const chapter = await getCard(owner, "chapter=not-a-chapter");
    expect(chapter.status).toBe(404);
    const empty = await getCard(owner, "period=custom&from=2020-01-01&to=2020-01-31");
    expect(empty.status).toBe(404);
    expect(await empty.text()).toMatch(/No plays in this period/);
  });
});

describe("who gets a recap card", () => {
  it("follows the journey audience: owner, follower, stranger, signed out", async () => {
    await settings({ audience: "followers" });
    const statuses = async () =>
      Promise.all([owner, fan, stranger, null].map(async (v) => (await getCard(v, JUNE)).status));
    expect(await statuses()).toEqual([200, 200, 404, 404]);
    await settings({ audience: "everyone" });
    expect(await statuses()).toEqual([200, 200, 200, 200]);
    await settings({ audience: "only_me" });
    expect(await statuses()).toEqual([200, 404, 404, 404]);
  });

  it("is off for everyone when recaps are turned off, and the owner's page says so", async () => {
    await settings({ audience: "everyone", recapsEnabled: false });
    const theirs = await getCard(fan, JUNE);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).toBe(RECAP_NOT_FOUND);
    const own = await getCard(owner, JUNE);
    expect(own.status).toBe(404);
    expect(await own.text()).toBe(RECAPS_OFF_MESSAGE);
    const view = await loadJourney({
      viewerId: owner.id,
      owner: ownerOf(owner),
      params: new URLSearchParams(JUNE),
      now: NOW,
    });
    if (view.state !== "shown") throw new Error("expected the journey shown");
    expect(view.recaps).toEqual({ enabled: false, audience: "everyone" });
    const posted = await postForm(owner, owner.username, {
      intent: "recap-post",
      audience: "everyone",
      period: "custom",
      from: "2025-06-01",
      to: "2025-06-14",
    });
    expect(posted).toMatchObject({ init: { status: 404 } });
    expect(JSON.stringify(posted)).toContain(RECAPS_OFF_MESSAGE);
  });

  it("leaves the hidden artists out of what it draws, for the owner too", async () => {
    await settings({ audience: "everyone", hiddenArtists: [artistKey("Secret Singer")] });
    let hiddenEtag = "";
    for (const viewer of [owner, fan, null]) {
      const recap = await loadRecap({
        viewerId: viewer?.id ?? null,
        owner: ownerOf(owner),
        params: new URLSearchParams(JUNE),
        now: NOW,
      });
      if (!recap.ok) throw new Error(recap.message);
      expect(recap.card.topArtists.map((a) => a.name)).toEqual(["Radiohead", "Björk"]);
      expect(recap.card.topTracks.map((t) => t.name)).not.toContain("Private Song");
      expect(JSON.stringify(recap.card)).not.toMatch(/Secret|Private/);
      expect(recap.card.plays).toBe(5);
      expect(recap.card.artists).toBe(2);
      hiddenEtag = recap.etag;
    }
    await settings({ audience: "everyone" });
    const all = await loadRecap({
      viewerId: owner.id,
      owner: ownerOf(owner),
      params: new URLSearchParams(JUNE),
      now: NOW,
    });
    if (!all.ok) throw new Error(all.message);
    expect(all.card.topArtists[0]?.name).toBe("Secret Singer");
    // Another card, another ETag: a cached picture with the hidden artist is never reused.
    expect(all.etag).not.toBe(hiddenEtag);
  });

  it("draws a chapter with its title and its days", async () => {
    await settings({ audience: "everyone" });
    const [chapter] = await getDb()
      .insert(journeyChapters)
      .values({ userId: owner.id, startsOn: "2025-06-03", endsOn: "2025-06-04", title: "Iceland" })
      .returning({ id: journeyChapters.id });
    const recap = await loadRecap({
      viewerId: fan.id,
      owner: ownerOf(owner),
      params: new URLSearchParams({ chapter: chapter?.id ?? "" }),
      now: NOW,
    });
    if (!recap.ok) throw new Error(recap.message);
    expect(recap.card).toMatchObject({
      heading: "Iceland",
      range: "3 Jun 2025 to 4 Jun 2025",
      plays: 2,
      topArtists: [{ name: "Björk", plays: 2 }],
    });
    expect((await getCard(stranger, `chapter=${chapter?.id}`)).status).toBe(200);
  });
});

describe("posting a recap card", () => {
  it("makes a post with the card as its re-encoded picture, seen by the chosen audience", async () => {
    await settings({ audience: "followers" });
    const { postId, title } = await postRecap({
      owner: ownerOf(owner),
      params: new URLSearchParams(JUNE),
      audience: "followers",
      note: "  My June so far  ",
      now: NOW,
    });
    expect(title).toBe("My recap: Listening recap");
    const [row] = await getDb()
      .select({
        kind: posts.kind,
        audience: posts.audience,
        note: posts.note,
        mediaId: posts.mediaId,
        contentType: media.contentType,
        width: media.width,
        height: media.height,
        bytes: media.bytes,
      })
      .from(posts)
      .innerJoin(media, eq(media.id, posts.mediaId))
      .where(eq(posts.id, postId));
    expect(row).toMatchObject({
      kind: "recap",
      audience: "followers",
      note: "My June so far",
      contentType: "image/webp",
      width: RECAP_WIDTH,
      height: RECAP_HEIGHT,
    });
    expect(await sharp(Buffer.from(row?.bytes ?? [])).metadata()).toMatchObject({
      format: "webp",
      width: RECAP_WIDTH,
      height: RECAP_HEIGHT,
    });
    const mediaId = row?.mediaId ?? "";
    expect(await getMediaForViewer({ viewerId: fan.id, mediaId })).not.toBeNull();
    expect(await getMediaForViewer({ viewerId: stranger.id, mediaId })).toBeNull();
    expect(await getPost({ viewerId: stranger.id, postId })).toBeNull();
    expect((await getPost({ viewerId: fan.id, postId }))?.image?.width).toBe(RECAP_WIDTH);
  });

  it("through the journey page: validates the form, posts only one's own card, then goes to the feed", async () => {
    await settings({ audience: "followers" });
    const badAudience = await postForm(owner, owner.username, {
      intent: "recap-post",
      audience: "the world",
      period: "week",
    });
    expect(badAudience).toMatchObject({
      init: { status: 400 },
      data: { fieldErrors: { audience: ["Choose who can see this post."] } },
    });
    const notMine = await postForm(stranger, owner.username, {
      intent: "recap-post",
      audience: "everyone",
      period: "week",
    });
    expect(notMine).toMatchObject({ init: { status: 404 } });
    const badPeriod = await postForm(owner, owner.username, {
      intent: "recap-post",
      audience: "everyone",
      period: "custom",
      from: "2025-06-10",
      to: "2025-06-01",
    });
    expect(badPeriod).toMatchObject({
      init: { status: 400 },
      data: { message: "The start date must be on or before the end date." },
    });
    const before = await getDb().select({ id: posts.id }).from(posts);
    const done = await postForm(owner, owner.username, {
      intent: "recap-post",
      audience: "only_me",
      period: "custom",
      from: "2025-06-01",
      to: "2025-06-14",
      note: "",
    });
    expect(done).toBeInstanceOf(Response);
    expect((done as Response).headers.get("location")).toBe("/feed");
    const after = await getDb()
      .select({ id: posts.id, audience: posts.audience, mediaId: posts.mediaId })
      .from(posts);
    expect(after.length).toBe(before.length + 1);
    const made = after.find((p) => !before.some((b) => b.id === p.id));
    expect(made?.audience).toBe("only_me");
    expect(made?.mediaId).toBeTruthy();
  });
});
