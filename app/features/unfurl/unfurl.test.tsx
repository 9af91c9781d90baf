import { eq } from "drizzle-orm";
import { renderToString } from "react-dom/server";
import { createRoutesStub } from "react-router";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBED_ORIGINS } from "~/core/streaming-links";
import { getDb } from "~/db/client.server";
import { linkUnfurls } from "~/db/schema";
import { likePost } from "~/features/likes/index.server";
import { listNotifications } from "~/features/notifications/index.server";
import { PostCard } from "~/features/posts";
import { getPost } from "~/features/posts/index.server";
import { parseEnv } from "~/lib/env.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as artRoute from "~/routes/art";
import { contentSecurityPolicy } from "~/security.server";
import { createTestUser } from "../../../tests/support/factories";
import {
  type FakeMusicService,
  startFakeMusicService,
} from "../../../tests/support/fake-music-service";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import type { UnfurlConfig } from "./metadata.server";
import { FetchRefused, isPublicAddress, safeFetch } from "./safe-fetch.server";
import { getArtwork, processPendingUnfurls, unfurlConfigFromEnv } from "./unfurl.server";

const { loader: artLoader } = atTheEdge(artRoute);

withTestDatabase();

let fake: FakeMusicService;
let config: UnfurlConfig;

beforeAll(async () => {
  fake = await startFakeMusicService();
  const env = parseEnv({
    NODE_ENV: "test",
    UNFURL_LINKS: "on",
    UNFURL_SPOTIFY_URL: `${fake.origin}/oembed`,
    UNFURL_YOUTUBE_URL: `${fake.origin}/oembed`,
    UNFURL_BANDCAMP_URL: fake.origin,
    PLAYER_FRAME_ORIGINS: fake.origin,
  });
  config = {
    ...unfurlConfigFromEnv(env),
    timeoutMs: 1_000,
    // The services' CDN names resolve to a private address here, as a hostile DNS could.
    lookup: async (host) => {
      if (host === "i.scdn.co") return [{ address: "10.0.0.7", family: 4 }];
      throw new Error(`no DNS in tests: ${host}`);
    },
  };
});

afterAll(async () => {
  await fake.stop();
});

async function unfurlRow(url: string) {
  const [row] = await getDb()
    .select({
      status: linkUnfurls.status,
      error: linkUnfurls.error,
      artworkSha256: linkUnfurls.artworkSha256,
      attempts: linkUnfurls.attempts,
    })
    .from(linkUnfurls)
    .where(eq(linkUnfurls.url, url));
  return row;
}

type Card = NonNullable<Awaited<ReturnType<typeof getPost>>>;
let shown: Card | null = null;

function ShownCard() {
  return shown ? <PostCard post={shown} viewerId={null} /> : null;
}

const Stub = createRoutesStub([{ path: "/feed", Component: ShownCard }]);

function renderCard(post: Card): string {
  shown = post;
  return renderToString(<Stub initialEntries={["/feed"]} />);
}

describe("configuration", () => {
  it("is off under tests and CI unless asked for, and trusts only configured origins", () => {
    expect(parseEnv({ NODE_ENV: "test" }).UNFURL_LINKS).toBe(false);
    expect(parseEnv({ NODE_ENV: "production", CI: "true" }).UNFURL_LINKS).toBe(false);
    expect(parseEnv({ NODE_ENV: "production" }).UNFURL_LINKS).toBe(true);
    const defaults = unfurlConfigFromEnv(parseEnv({ NODE_ENV: "production" }));
    expect(defaults.trustedOrigins).toEqual([]);
    expect(defaults.oembed.spotify).toBe("https://open.spotify.com/oembed");
    expect(config.trustedOrigins).toEqual([fake.origin]);
  });

  it("lets players be framed from the services' origins only, unless an operator adds one", () => {
    const frameSrc = contentSecurityPolicy("n")
      .split("; ")
      .find((d) => d.startsWith("frame-src "));
    expect(frameSrc).toBe(`frame-src ${EMBED_ORIGINS.join(" ")}`);
    expect(config.frameOrigins).toEqual([...EMBED_ORIGINS, fake.origin]);
  });
});

describe("unfurling a streaming link", () => {
  it("shows the post at once, then stores title, artist, player and artwork, and shows the art", async () => {
    const author = await createTestUser();
    const link = "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC";
    const postId = await createTestPost(author.id, { title: "Roads", linkUrl: link });
    const before = await getPost({ viewerId: author.id, postId });
    expect(before?.preview).toBeNull();
    expect(renderCard(before ?? expect.fail("post missing"))).toContain('src="/art/');
    expect(await unfurlRow(link)).toMatchObject({ status: "pending" });

    expect(await processPendingUnfurls({ config })).toBe(1);

    const after = await getPost({ viewerId: author.id, postId });
    expect(after?.preview).toMatchObject({
      title: "Roads (Live)",
      artist: "Portishead",
      embedUrl: `${fake.origin}/player?id=4uLU6hMCjMI75M1A2tKUQC&utm=1`,
    });
    const art = after?.preview?.art ?? "";
    expect(art).toMatch(/^\/art\/[0-9a-f]{64}\.webp$/);
    const html = renderCard(after ?? expect.fail("post missing"));
    expect(html).toContain(`src="${art}"`);
    expect(html).not.toContain(fake.origin.replace("http://", ""));
    expect(html).not.toContain("<iframe");

    // Stored re-encoded and small: a 900 px PNG became a 640 px WebP, served by /art.
    const bytes = await getArtwork(art.slice("/art/".length));
    const meta = await sharp(bytes ?? new Uint8Array()).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 640, 640]);
    const file = art.slice("/art/".length);
    const response = await artLoader({ params: { file } } as Parameters<typeof artLoader>[0]);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("image/webp");
    // A notification about the post carries the same art as its small thumb.
    const fan = await createTestUser();
    await likePost({ viewerId: fan.id, postId });
    const { notifications } = await listNotifications({ viewerId: author.id });
    expect(notifications.find((n) => n.post?.id === postId)?.post?.art).toBe(art);

    const missing = await artLoader({
      params: { file: `${"0".repeat(64)}.webp` },
    } as Parameters<typeof artLoader>[0]);
    expect(missing.status).toBe(404);
  });

  it("fetches a URL once: a second post with the same link reuses the preview", async () => {
    const author = await createTestUser();
    const link = "https://open.spotify.com/album/1xJHno7SmdVtZAtXbdbDZp";
    await createTestPost(author.id, { kind: "album", title: "Dummy", linkUrl: link });
    await processPendingUnfurls({ config });
    const asked = fake.requests.filter((r) => r.includes(encodeURIComponent(link))).length;
    expect(asked).toBe(1);
    const second = await createTestPost(author.id, {
      kind: "album",
      title: "Dummy",
      linkUrl: link,
    });
    expect(await processPendingUnfurls({ config })).toBe(0);
    expect(fake.requests.filter((r) => r.includes(encodeURIComponent(link))).length).toBe(asked);
    expect((await getPost({ viewerId: author.id, postId: second }))?.preview?.art).toMatch(
      /\.webp$/,
    );
  });

  it("gives each pending URL to one worker when several run at once", async () => {
    const author = await createTestUser();
    const links = ["AAAA", "BBBB", "CCCC"].map((id) => `https://open.spotify.com/track/${id}`);
    for (const linkUrl of links) await createTestPost(author.id, { linkUrl });
    const counts = await Promise.all([
      processPendingUnfurls({ config }),
      processPendingUnfurls({ config }),
    ]);
    expect(counts[0] + counts[1]).toBe(3);
    for (const link of links) {
      expect(fake.requests.filter((r) => r.includes(encodeURIComponent(link)))).toHaveLength(1);
      expect(await unfurlRow(link)).toMatchObject({ status: "done" });
    }
  });

  it("reads Open Graph tags for Bandcamp", async () => {
    const author = await createTestUser();
    const link = "https://portishead.bandcamp.com/album/dummy";
    const postId = await createTestPost(author.id, {
      kind: "album",
      title: "Dummy",
      linkUrl: link,
    });
    await processPendingUnfurls({ config });
    const post = await getPost({ viewerId: author.id, postId });
    expect(post?.preview).toMatchObject({ title: "Dummy", artist: "Portishead", embedUrl: null });
    expect(post?.preview?.art).toMatch(/\.webp$/);
  });
});

describe("refusing what is not safe, without harm", () => {
  const cases = [
    ["a redirect to another host", "redirect", "failed", /redirect to another host/],
    ["artwork on a private address", "private", "failed", /private address for i\.scdn\.co/],
    ["a huge answer", "huge", "failed", /too large/],
    ["a slow answer", "slow", "pending", /no complete answer within/],
    ["an error answer", "missing", "pending", /answered 404/],
  ] as const;
  for (const [name, word, status, error] of cases) {
    it(`refuses ${name}; the post stays, with its generated cover`, async () => {
      const author = await createTestUser();
      const link = `https://open.spotify.com/track/${word}`;
      const postId = await createTestPost(author.id, { linkUrl: link });
      await processPendingUnfurls({ config });
      const row = await unfurlRow(link);
      expect(row?.status).toBe(status);
      expect(row?.error).toMatch(error);
      expect(row?.artworkSha256).toBeNull();
      const post = await getPost({ viewerId: author.id, postId });
      expect(post?.preview).toBeNull();
      expect(renderCard(post ?? expect.fail("post missing"))).toMatch(
        /src="\/art\/[0-9a-f]{16}\.webp"/,
      );
    });
  }

  it("keeps a post with an unreachable link, and leaves the link for a later try", async () => {
    const gone = await startFakeMusicService();
    await gone.stop();
    const unreachable = {
      ...config,
      oembed: { spotify: `${gone.origin}/oembed` },
      trustedOrigins: [gone.origin],
    };
    const author = await createTestUser();
    const link = "https://open.spotify.com/track/unreachable1";
    const postId = await createTestPost(author.id, { linkUrl: link });
    expect(await getPost({ viewerId: author.id, postId })).not.toBeNull();
    await processPendingUnfurls({ config: unreachable });
    expect(await unfurlRow(link)).toMatchObject({ status: "pending", attempts: 1 });
    expect((await getPost({ viewerId: author.id, postId }))?.preview).toBeNull();
  });

  it("does nothing at all while unfurling is off", async () => {
    const author = await createTestUser();
    const link = "https://open.spotify.com/track/whileoff";
    await createTestPost(author.id, { linkUrl: link });
    const seen = fake.requests.length;
    await processPendingUnfurls({ config: { ...config, isEnabled: false } });
    expect(fake.requests.length).toBe(seen);
    expect(await unfurlRow(link)).toMatchObject({ status: "pending", attempts: 0 });
  });
});

describe("safeFetch", () => {
  const base = {
    allowedHosts: ["open.spotify.com"],
    trustedOrigins: [] as string[],
    maxBytes: 1024,
    timeoutMs: 1_000,
    accept: "*/*",
    lookup: async () => [{ address: "127.0.0.1", family: 4 }],
  };
  it("refuses plain HTTP, other hosts, address literals and private resolutions", async () => {
    for (const url of [
      "http://open.spotify.com/oembed",
      "https://evil.example/oembed",
      "https://127.0.0.1/oembed",
      "https://[::1]/oembed",
      "https://open.spotify.com:8443/oembed",
      "https://user:pw@open.spotify.com/oembed",
      "https://open.spotify.com/oembed",
    ]) {
      await expect(safeFetch(url, base), url).rejects.toBeInstanceOf(FetchRefused);
    }
  });

  it("tells public addresses from private ones", () => {
    for (const address of ["8.8.8.8", "151.101.1.1", "2606:4700:4700::1111"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "not an address",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });
});
