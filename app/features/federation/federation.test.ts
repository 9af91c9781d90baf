import { createServer, type Server } from "node:http";
import {
  Accept,
  type Activity,
  Block,
  Create,
  createFederation as createRemoteFederation,
  Delete,
  exportSpki,
  type Federation,
  Follow,
  generateCryptoKeyPair,
  Like,
  MemoryKvStore,
  Note,
  Person,
  PUBLIC_COLLECTION,
  Reject,
  signRequest,
  Tombstone,
  Undo,
  Update,
} from "@fedify/fedify";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { drainJobs } from "~/core/jobs/index.server";
import { getDb, rowsOf } from "~/db/client.server";
import {
  blocks,
  followRequests,
  follows,
  homeTimeline,
  jobs,
  postLikes,
  posts,
  profiles,
  remotePosts,
} from "~/db/schema";
import { acceptFollowRequest, followUser } from "~/features/follows/index.server";
import { likePost, unlikePost } from "~/features/likes/index.server";
import { updateProfile } from "~/features/settings/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { deliverJob } from "./deliver.server";
import { getFederation } from "./federation.server";
import { handleFederationRequest } from "./handler.server";
import { lookupRemotePerson } from "./lookup.server";
import { federationEventJob } from "./outbound.server";
import { federationQueueJob } from "./queue.server";

// This file's server ("here") and a real second ActivityPub server ("remote", Fedify itself on
// another loopback address) talk over HTTP: signatures are made and checked by real code.
const HERE = vi.hoisted(() => {
  const here = { host: "127.0.0.50", port: 4150 };
  process.env.BASE_URL = `http://${here.host}:${here.port}`;
  process.env.FEDERATION = "on";
  process.env.FEDERATION_ALLOW_LOOPBACK = "true";
  return here;
});
const REMOTE = { host: "127.0.0.51", port: 4151 };
const REMOTE_ORIGIN = `http://${REMOTE.host}:${REMOTE.port}`;
const HERE_ORIGIN = `http://${HERE.host}:${HERE.port}`;

// Real servers and RSA keys on 2 shared cores: generous limits (nothing here waits on a timer).
vi.setConfig({ hookTimeout: 600_000, testTimeout: 300_000 });
withTestDatabase();

/** What the remote server's inbox received, verified by its own Fedify. */
const received: Activity[] = [];
let remote: Federation<void>;
let remoteKeys: CryptoKeyPair;
let strangerKeys: CryptoKeyPair;
const servers: Server[] = [];

function listen(server: Server, host: string, port: number) {
  servers.push(server);
  return new Promise<void>((resolve) => server.listen(port, host, resolve));
}

/** A node server answering with a fetch-style handler. */
function nodeServer(handle: (request: Request) => Promise<Response>): Server {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers.set(name, value);
    }
    const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host}`), {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
    });
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

beforeAll(async () => {
  remoteKeys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  strangerKeys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  remote = createRemoteFederation<void>({
    kv: new MemoryKvStore(),
    allowPrivateAddress: true,
    origin: REMOTE_ORIGIN,
  });
  remote
    .setActorDispatcher("/users/{identifier}", async (ctx, identifier) => {
      if (identifier !== "bo") return null;
      const keys = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: "bo",
        name: "Bo Remote",
        summary: "<p>Plays <script>alert(1)</script>bass</p>",
        inbox: ctx.getInboxUri(identifier),
        endpoints: null,
        followers: ctx.getFollowersUri(identifier),
        publicKey: keys[0]?.cryptographicKey ?? null,
      });
    })
    .setKeyPairsDispatcher(async () => [remoteKeys]);
  remote.setFollowersDispatcher("/users/{identifier}/followers", async () => ({ items: [] }));
  remote
    .setInboxListeners("/users/{identifier}/inbox", "/inbox")
    .on(Follow, (_ctx, a) => void received.push(a))
    .on(Accept, (_ctx, a) => void received.push(a))
    .on(Create, (_ctx, a) => void received.push(a))
    .on(Update, (_ctx, a) => void received.push(a))
    .on(Delete, (_ctx, a) => void received.push(a))
    .on(Like, (_ctx, a) => void received.push(a))
    .on(Undo, (_ctx, a) => void received.push(a));
  await listen(
    nodeServer((request) => remote.fetch(request, { contextData: undefined })),
    REMOTE.host,
    REMOTE.port,
  );
  await listen(
    nodeServer((request) =>
      handleFederationRequest(request, async () => new Response("app page", { status: 200 })),
    ),
    HERE.host,
    HERE.port,
  );
  void getFederation().startQueue(undefined);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

const JOBS = [federationQueueJob, federationEventJob, deliverJob];

/** Runs every queued federation job (inbound processing, outbound events, deliveries). */
async function settle(): Promise<void> {
  while ((await drainJobs(JOBS)) > 0) {
    // another round: a job may have queued more
  }
}

/** POSTs an activity to our inbox signed (draft-cavage) with `keys` as bo's key. */
async function deliver(
  activity: Activity | Record<string, unknown>,
  options: {
    keys?: CryptoKeyPair;
    keyId?: string;
    tamper?: (body: string) => string;
    inbox?: string;
  } = {},
): Promise<Response> {
  const json =
    "toJsonLd" in activity && typeof activity.toJsonLd === "function"
      ? await (activity as Activity).toJsonLd({ format: "compact" })
      : activity;
  const body = JSON.stringify(json);
  const request = new Request(`${HERE_ORIGIN}${options.inbox ?? "/inbox"}`, {
    method: "POST",
    headers: { "Content-Type": "application/activity+json" },
    body,
  });
  const signed = await signRequest(
    request,
    (options.keys ?? remoteKeys).privateKey,
    new URL(options.keyId ?? `${REMOTE_ORIGIN}/users/bo#main-key`),
  );
  const sent = options.tamper
    ? new Request(signed.url, {
        method: "POST",
        headers: signed.headers,
        body: options.tamper(body),
      })
    : signed;
  return fetch(sent);
}

const BO = `${REMOTE_ORIGIN}/users/bo`;

function getJson(path: string, accept = "application/activity+json") {
  return fetch(`${HERE_ORIGIN}${path}`, { headers: { Accept: accept } });
}

describe("federation", () => {
  it("answers WebFinger, NodeInfo and actor documents; browsers still get the page", async () => {
    const ana = await createTestUser({ username: "ana" });
    await createTestPost(ana.id);
    const finger = await getJson(
      `/.well-known/webfinger?resource=acct:ana@${HERE.host}:${HERE.port}`,
      "application/jrd+json",
    );
    expect(finger.status).toBe(200);
    const jrd = (await finger.json()) as { links: { rel: string; href?: string }[] };
    expect(jrd.links.find((l) => l.rel === "self")?.href).toBe(`${HERE_ORIGIN}/u/ana`);

    const actor = await getJson("/u/ana");
    expect(actor.status).toBe(200);
    expect(actor.headers.get("content-type")).toContain("application/activity+json");
    const person = (await actor.json()) as Record<string, unknown>;
    expect(person).toMatchObject({
      type: "Person",
      id: `${HERE_ORIGIN}/u/ana`,
      preferredUsername: "ana",
      inbox: `${HERE_ORIGIN}/u/ana/inbox`,
      outbox: `${HERE_ORIGIN}/u/ana/outbox`,
      followers: `${HERE_ORIGIN}/u/ana/followers`,
      following: `${HERE_ORIGIN}/u/ana/following`,
    });
    expect((person.publicKey as { publicKeyPem: string }).publicKeyPem).toContain(
      "BEGIN PUBLIC KEY",
    );
    expect((person.endpoints as { sharedInbox: string }).sharedInbox).toBe(`${HERE_ORIGIN}/inbox`);

    const ldProfile = await getJson(
      "/u/ana",
      'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
    );
    expect(ldProfile.status).toBe(200);
    const page = await getJson("/u/ana", "text/html,application/xhtml+xml");
    expect(await page.text()).toBe("app page");
    expect((await getJson("/u/nobody")).status).toBe(404);

    const links = (await (await getJson("/.well-known/nodeinfo", "application/json")).json()) as {
      links: { href: string }[];
    };
    const nodeinfo = (await (await fetch(links.links[0]?.href ?? "")).json()) as Record<
      string,
      unknown
    >;
    expect(nodeinfo).toMatchObject({
      version: "2.1",
      software: { name: "soundtrail" },
      protocols: ["activitypub"],
    });
    const usage = nodeinfo.usage as { users: { total: number }; localPosts: number };
    const [counts] = rowsOf<{ users: number; posts: number }>(
      await getDb().execute(
        sql`select (select count(*)::int from "user") as users, (select count(*)::int from posts) as posts`,
      ),
    );
    expect(usage.users.total).toBe(counts?.users);
    expect(usage.localPosts).toBe(counts?.posts);

    const outbox = (await (await getJson("/u/ana/outbox")).json()) as { totalItems: number };
    expect(outbox.totalItems).toBe(1);
  });

  it("refuses deliveries with a wrong key, a tampered body or an actor that is not the signer", async () => {
    const follow = new Follow({
      id: new URL(`${BO}#follows/1`),
      actor: new URL(BO),
      object: new URL(`${HERE_ORIGIN}/u/ana`),
    });
    expect((await deliver(follow, { keys: strangerKeys })).status).toBe(401);
    expect(
      (await deliver(follow, { tamper: (body) => body.replace("follows/1", "follows/2") })).status,
    ).toBe(401);
    const forged = new Follow({
      id: new URL(`${REMOTE_ORIGIN}/users/mallory#follows/1`),
      actor: new URL(`${REMOTE_ORIGIN}/users/mallory`),
      object: new URL(`${HERE_ORIGIN}/u/ana`),
    });
    expect((await deliver(forged)).status).toBe(401);
    await settle();
    expect(await getDb().select().from(follows)).toEqual([]);
    const badType = await fetch(`${HERE_ORIGIN}/inbox`, { method: "POST", body: "{}" });
    expect(badType.status).toBeGreaterThanOrEqual(400);
  });

  it("a remote Follow makes a follower and an Accept goes back; Undo removes it", async () => {
    const [ana] = await getDb().select().from(profiles).where(eq(profiles.username, "ana"));
    if (!ana) throw new Error("ana");
    const follow = new Follow({
      id: new URL(`${BO}#follows/ana`),
      actor: new URL(BO),
      object: new URL(`${HERE_ORIGIN}/u/ana`),
    });
    expect((await deliver(follow)).status).toBe(202);
    await settle();
    const [bo] = await getDb()
      .select()
      .from(profiles)
      .where(eq(profiles.username, `bo@${REMOTE.host}:${REMOTE.port}`));
    expect(bo?.bio).toBe("Plays bass");
    const rows = await getDb().select().from(follows).where(eq(follows.followeeId, ana.userId));
    expect(rows.map((r) => r.followerId)).toEqual([bo?.userId]);
    const accept = received.find((a) => a instanceof Accept);
    expect(accept?.actorId?.href).toBe(`${HERE_ORIGIN}/u/ana`);
    expect(accept?.objectId?.href).toBe(follow.id?.href);

    // The same Follow again changes nothing.
    expect((await deliver(follow)).status).toBe(202);
    await settle();
    expect(
      await getDb().select().from(follows).where(eq(follows.followeeId, ana.userId)),
    ).toHaveLength(1);

    const undo = new Undo({ id: new URL(`${BO}#undo/1`), actor: new URL(BO), object: follow });
    expect((await deliver(undo)).status).toBe(202);
    await settle();
    expect(await getDb().select().from(follows).where(eq(follows.followeeId, ana.userId))).toEqual(
      [],
    );
    // Following again (a new Follow, as servers send) makes bo a follower for the next tests.
    const again = new Follow({
      id: new URL(`${BO}#follows/ana-again`),
      actor: new URL(BO),
      object: new URL(`${HERE_ORIGIN}/u/ana`),
    });
    expect((await deliver(again)).status).toBe(202);
    await settle();
    expect(
      await getDb().select().from(follows).where(eq(follows.followeeId, ana.userId)),
    ).toHaveLength(1);
  });

  it("posts travel by audience: Everyone to Public, Followers to the followers only, Only me never", async () => {
    const [ana] = await getDb().select().from(profiles).where(eq(profiles.username, "ana"));
    if (!ana) throw new Error("ana");
    received.length = 0;
    const everyone = await createTestPost(ana.userId, {
      audience: "everyone",
      note: "Hear this #jazz",
    });
    const followersOnly = await createTestPost(ana.userId, { audience: "followers" });
    const onlyMe = await createTestPost(ana.userId, { audience: "only_me" });
    await settle();
    const creates = received.filter((a): a is Create => a instanceof Create);
    const byObject = new Map(creates.map((c) => [c.objectId?.href, c]));
    const pub = byObject.get(`${HERE_ORIGIN}/post/${everyone}`);
    expect(pub?.toIds.map((u) => u.href)).toEqual([PUBLIC_COLLECTION.href]);
    const note = await pub?.getObject();
    expect(note).toBeInstanceOf(Note);
    expect(String((note as Note).content)).toContain("Hear this #jazz");
    const priv = byObject.get(`${HERE_ORIGIN}/post/${followersOnly}`);
    expect(priv?.toIds.map((u) => u.href)).toEqual([`${HERE_ORIGIN}/u/ana/followers`]);
    expect([...(priv?.ccIds ?? [])].map((u) => u.href)).not.toContain(PUBLIC_COLLECTION.href);
    expect(byObject.has(`${HERE_ORIGIN}/post/${onlyMe}`)).toBe(false);

    // A remote fetch of the Note: public yes; followers-only and only-me answer 404 unsigned.
    expect((await getJson(`/post/${everyone}`)).status).toBe(200);
    expect((await getJson(`/post/${followersOnly}`)).status).toBe(404);
    expect((await getJson(`/post/${onlyMe}`)).status).toBe(404);
  });

  it("a remote person's Note reaches their local followers' home feed; Update and Delete follow", async () => {
    const cy = await createTestUser({ username: "cy" });
    const found = await lookupRemotePerson(`@bo@${REMOTE.host}:${REMOTE.port}`);
    expect(found?.username).toBe(`bo@${REMOTE.host}:${REMOTE.port}`);
    const [bo] = await getDb()
      .select()
      .from(profiles)
      .where(eq(profiles.username, found?.username ?? ""));
    if (!bo) throw new Error("bo");
    received.length = 0;
    const state = await followUser({ viewerId: cy.id, targetId: bo.userId });
    expect(state).toMatchObject({ following: false, requested: true });
    await settle();
    const sentFollow = received.find((a): a is Follow => a instanceof Follow);
    expect(sentFollow?.objectId?.href).toBe(BO);
    const accept = new Accept({
      id: new URL(`${BO}#accepts/1`),
      actor: new URL(BO),
      object: sentFollow,
    });
    expect((await deliver(accept)).status).toBe(202);
    await settle();
    expect(
      await getDb()
        .select()
        .from(follows)
        .where(and(eq(follows.followerId, cy.id), eq(follows.followeeId, bo.userId))),
    ).toHaveLength(1);

    const noteId = `${BO}/notes/1`;
    const create = new Create({
      id: new URL(`${noteId}/activity`),
      actor: new URL(BO),
      object: new Note({
        id: new URL(noteId),
        attribution: new URL(BO),
        content:
          '<p>New <b>bass</b> line <a href="https://example.org/x" onclick="evil()">here</a><script>alert(1)</script></p>',
        tos: [PUBLIC_COLLECTION],
      }),
      tos: [PUBLIC_COLLECTION],
    });
    expect((await deliver(create)).status).toBe(202);
    expect((await deliver(create)).status).toBe(202);
    await settle();
    const stored = await getDb()
      .select()
      .from(remotePosts)
      .where(eq(remotePosts.objectUri, noteId));
    expect(stored).toHaveLength(1);
    expect(stored[0]?.contentHtml).not.toContain("script");
    expect(stored[0]?.contentHtml).not.toContain("onclick");
    expect(stored[0]?.contentHtml).toContain('rel="nofollow noopener ugc"');
    const postId = stored[0]?.postId ?? "";
    const timeline = await getDb()
      .select()
      .from(homeTimeline)
      .where(eq(homeTimeline.userId, cy.id));
    expect(timeline.map((t) => t.postId)).toContain(postId);

    const update = new Update({
      id: new URL(`${noteId}/update`),
      actor: new URL(BO),
      object: new Note({
        id: new URL(noteId),
        attribution: new URL(BO),
        content: "<p>Edited</p>",
        tos: [PUBLIC_COLLECTION],
      }),
    });
    expect((await deliver(update)).status).toBe(202);
    await settle();
    const [edited] = await getDb().select().from(posts).where(eq(posts.id, postId));
    expect(edited?.note).toBe("Edited");
    expect(edited?.editedAt).not.toBeNull();

    // Local likes of the remote post go out as Like and Undo.
    received.length = 0;
    await likePost({ viewerId: cy.id, postId });
    await unlikePost({ viewerId: cy.id, postId });
    await settle();
    expect(received.some((a) => a instanceof Like && a.objectId?.href === noteId)).toBe(true);
    expect(received.some((a) => a instanceof Undo)).toBe(true);

    const del = new Delete({
      id: new URL(`${noteId}/delete`),
      actor: new URL(BO),
      object: new Tombstone({ id: new URL(noteId) }),
    });
    expect((await deliver(del)).status).toBe(202);
    await settle();
    expect(await getDb().select().from(posts).where(eq(posts.id, postId))).toEqual([]);
  });

  it("remote Likes and Undo Likes of a local post become likes", async () => {
    const [ana] = await getDb().select().from(profiles).where(eq(profiles.username, "ana"));
    const [bo] = await getDb()
      .select()
      .from(profiles)
      .where(eq(profiles.username, `bo@${REMOTE.host}:${REMOTE.port}`));
    if (!ana || !bo) throw new Error("people");
    const postId = await createTestPost(ana.userId, { audience: "everyone" });
    const like = new Like({
      id: new URL(`${BO}#likes/${postId}`),
      actor: new URL(BO),
      object: new URL(`${HERE_ORIGIN}/post/${postId}`),
    });
    expect((await deliver(like)).status).toBe(202);
    await settle();
    expect(await getDb().select().from(postLikes).where(eq(postLikes.postId, postId))).toHaveLength(
      1,
    );
    const undo = new Undo({
      id: new URL(`${BO}#unlikes/${postId}`),
      actor: new URL(BO),
      object: like,
    });
    expect((await deliver(undo)).status).toBe(202);
    await settle();
    expect(await getDb().select().from(postLikes).where(eq(postLikes.postId, postId))).toEqual([]);
    const dead = await getDb().select().from(jobs).where(eq(jobs.status, "dead"));
    expect(dead).toEqual([]);
    void bo;
  });
  it("accepts Mastodon-shaped activities: a reply with HTML, a Like, Delete of a Tombstone, Update Person", async () => {
    const [ana] = await getDb().select().from(profiles).where(eq(profiles.username, "ana"));
    if (!ana) throw new Error("ana");
    const postId = await createTestPost(ana.userId, { audience: "everyone" });
    const context = [
      "https://www.w3.org/ns/activitystreams",
      "https://w3id.org/security/v1",
      {
        manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
        toot: "http://joinmastodon.org/ns#",
        sensitive: "as:sensitive",
        Hashtag: "as:Hashtag",
        atomUri: "ostatus:atomUri",
        ostatus: "http://ostatus.org#",
        conversation: "ostatus:conversation",
      },
    ];
    const noteId = `${BO}/statuses/110000000000000001`;
    const reply = {
      "@context": context,
      id: `${noteId}/activity`,
      type: "Create",
      actor: BO,
      published: "2026-11-29T12:00:00Z",
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      cc: [`${BO}/followers`, `${HERE_ORIGIN}/u/ana`],
      object: {
        id: noteId,
        type: "Note",
        summary: null,
        inReplyTo: `${HERE_ORIGIN}/post/${postId}`,
        published: "2026-11-29T12:00:00Z",
        url: `${REMOTE_ORIGIN}/@bo/110000000000000001`,
        attributedTo: BO,
        to: ["https://www.w3.org/ns/activitystreams#Public"],
        cc: [`${BO}/followers`, `${HERE_ORIGIN}/u/ana`],
        sensitive: false,
        atomUri: noteId,
        conversation: "tag:example,2026:objectId=1:objectType=Conversation",
        content: `<p><span class="h-card" translate="no"><a href="${HERE_ORIGIN}/u/ana" class="u-url mention">@<span>ana</span></a></span> what a track! <img src=x onerror=alert(1)></p>`,
        contentMap: { en: "<p>what a track!</p>" },
        attachment: [],
        tag: [{ type: "Mention", href: `${HERE_ORIGIN}/u/ana`, name: "@ana" }],
        replies: {
          id: `${noteId}/replies`,
          type: "Collection",
          first: {
            type: "CollectionPage",
            next: `${noteId}/replies?page=true`,
            partOf: `${noteId}/replies`,
            items: [],
          },
        },
      },
    };
    expect((await deliver(reply)).status).toBe(202);
    await settle();
    const [comment] = rowsOf<{ content: string; user_id: string }>(
      await getDb().execute(
        sql`select content, user_id from comments where post_id = ${postId}::uuid`,
      ),
    );
    expect(comment?.content).toBe("@ana what a track!");

    const like = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${BO}#likes/42`,
      type: "Like",
      actor: BO,
      object: `${HERE_ORIGIN}/post/${postId}`,
    };
    expect((await deliver(like)).status).toBe(202);
    await settle();
    expect(await getDb().select().from(postLikes).where(eq(postLikes.postId, postId))).toHaveLength(
      1,
    );

    const del = {
      "@context": [
        "https://www.w3.org/ns/activitystreams",
        { ostatus: "http://ostatus.org#", atomUri: "ostatus:atomUri" },
      ],
      id: `${noteId}#delete`,
      type: "Delete",
      actor: BO,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      object: { id: noteId, type: "Tombstone", atomUri: noteId },
    };
    expect((await deliver(del)).status).toBe(202);
    await settle();
    expect(
      rowsOf(await getDb().execute(sql`select 1 from comments where post_id = ${postId}::uuid`)),
    ).toEqual([]);

    const update = {
      "@context": context,
      id: `${BO}#updates/1`,
      type: "Update",
      actor: BO,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      object: {
        id: BO,
        type: "Person",
        preferredUsername: "bo",
        name: "Bo Renamed",
        summary: "<p>Now on drums</p>",
        inbox: `${BO}/inbox`,
        followers: `${BO}/followers`,
        publicKey: {
          id: `${BO}#main-key`,
          owner: BO,
          publicKeyPem: await exportSpki(remoteKeys.publicKey),
        },
      },
    };
    expect((await deliver(update)).status).toBe(202);
    await settle();
    const [bo] = await getDb()
      .select()
      .from(profiles)
      .where(eq(profiles.username, `bo@${REMOTE.host}:${REMOTE.port}`));
    expect(bo).toMatchObject({ displayName: "Bo Renamed", bio: "Now on drums" });
  });

  it("a profile change reaches followers elsewhere as Update Person; a request from afar waits for approval; Reject and Block from afar are kept", async () => {
    const [ana] = await getDb().select().from(profiles).where(eq(profiles.username, "ana"));
    const [bo] = await getDb()
      .select()
      .from(profiles)
      .where(eq(profiles.username, `bo@${REMOTE.host}:${REMOTE.port}`));
    if (!ana || !bo) throw new Error("ana and bo");
    // bo follows ana (an earlier test): her new name and bio go to bo's server.
    received.length = 0;
    await updateProfile({
      userId: ana.userId,
      displayName: "Ana Renamed",
      username: "ana",
      bio: "Jazz & <more>",
    });
    await settle();
    const update = received.find(
      (a): a is Update => a instanceof Update && a.actorId?.href === `${HERE_ORIGIN}/u/ana`,
    );
    const person = await update?.getObject();
    expect(person).toBeInstanceOf(Person);
    expect(String((person as Person).name)).toBe("Ana Renamed");
    expect(String((person as Person).summary)).toBe("<p>Jazz &amp; &lt;more&gt;</p>");
    expect(update?.toIds.map((u) => u.href)).toEqual([PUBLIC_COLLECTION.href]);

    // dee approves her followers: bo's Follow is a request until she accepts it.
    const dee = await createTestUser({ username: "dee" });
    await getDb()
      .update(profiles)
      .set({ requiresFollowApproval: true })
      .where(eq(profiles.userId, dee.id));
    received.length = 0;
    const follow = new Follow({
      id: new URL(`${BO}#follows/dee`),
      actor: new URL(BO),
      object: new URL(`${HERE_ORIGIN}/u/dee`),
    });
    expect((await deliver(follow)).status).toBe(202);
    await settle();
    expect(await getDb().select().from(follows).where(eq(follows.followeeId, dee.id))).toEqual([]);
    const waiting = await getDb()
      .select()
      .from(followRequests)
      .where(eq(followRequests.targetId, dee.id));
    expect(waiting.map((r) => r.requesterId)).toEqual([bo.userId]);
    expect(received.some((a) => a instanceof Accept)).toBe(false);
    await acceptFollowRequest({ viewerId: dee.id, requesterId: bo.userId });
    await settle();
    const follower = await getDb().select().from(follows).where(eq(follows.followeeId, dee.id));
    expect(follower.map((r) => r.followerId)).toEqual([bo.userId]);
    const accepted = received.find((a): a is Accept => a instanceof Accept);
    expect(accepted?.actorId?.href).toBe(`${HERE_ORIGIN}/u/dee`);
    expect(accepted?.objectId?.href).toBe(follow.id?.href);

    // eve asks to follow bo; bo's server says no: the request is gone.
    const eve = await createTestUser({ username: "eve" });
    received.length = 0;
    expect(await followUser({ viewerId: eve.id, targetId: bo.userId })).toMatchObject({
      requested: true,
    });
    await settle();
    const asked = received.find((a): a is Follow => a instanceof Follow);
    expect(asked?.actorId?.href).toBe(`${HERE_ORIGIN}/u/eve`);
    const reject = new Reject({
      id: new URL(`${BO}#rejects/eve`),
      actor: new URL(BO),
      object: asked,
    });
    expect((await deliver(reject)).status).toBe(202);
    await settle();
    expect(
      await getDb().select().from(followRequests).where(eq(followRequests.requesterId, eve.id)),
    ).toEqual([]);
    expect(await getDb().select().from(follows).where(eq(follows.followerId, eve.id))).toEqual([]);

    // bo blocks eve: a block like a local one (neither sees the other).
    const block = new Block({
      id: new URL(`${BO}#blocks/eve`),
      actor: new URL(BO),
      object: new URL(`${HERE_ORIGIN}/u/eve`),
    });
    expect((await deliver(block)).status).toBe(202);
    await settle();
    const blocked = await getDb().select().from(blocks).where(eq(blocks.blockerId, bo.userId));
    expect(blocked.map((b) => b.blockedId)).toEqual([eve.id]);
  });
});
