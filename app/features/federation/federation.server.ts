import {
  Accept,
  Announce,
  Block,
  type Context,
  Create,
  createFederation,
  Delete,
  Endpoints,
  exportJwk,
  type Federation,
  Follow,
  generateCryptoKeyPair,
  Image,
  importJwk,
  Like,
  Note,
  Person,
  type Recipient,
  Reject,
  Undo,
  Update,
} from "@fedify/fedify";
import { Temporal } from "@js-temporal/polyfill";
import { eq, sql } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { getDb, rowsOf } from "~/db/client.server";
import {
  comments,
  federationKeys,
  follows,
  posts,
  profiles,
  remoteActors,
  user,
} from "~/db/schema";
import { getEnv } from "~/lib/env.server";
import { setDeliveryContext } from "./deliver.server";
import { createCachedDocumentLoader, createDocumentLoader } from "./documents.server";
import {
  handleInboundCreate,
  handleInboundDelete,
  handleInboundUpdate,
} from "./inbound-posts.server";
import {
  inboundAccept,
  inboundBlock,
  inboundFollow,
  inboundLike,
  inboundReject,
  inboundUndo,
} from "./inbound-social.server";
import { DatabaseKvStore } from "./kv.server";
import { loadLocalPost, postToNote } from "./notes.server";
import { JobsMessageQueue } from "./queue.server";
import { findLocalPerson } from "./remote.server";

const SOFTWARE_VERSION = {
  major: 0,
  minor: 1,
  patch: 0,
  prerelease: [] as string[],
  build: [] as string[],
};
const COLLECTION_PAGE = 50;

let current: Federation<void> | null = null;

/** Is federation on here (FEDERATION is not `off`)? */
export function isFederationEnabled(): boolean {
  return getEnv().FEDERATION;
}

/** This process's federation (built once). Throws when FEDERATION=off. */
export function getFederation(): Federation<void> {
  if (!isFederationEnabled()) throw new Error("federation is off (FEDERATION=off)");
  if (!current) {
    current = buildFederation();
    setDeliveryContext(federationContext);
  }
  return current;
}

/** A context outside a request (jobs, search). */
export function federationContext(): Context<void> {
  return getFederation().createContext(new URL(getEnv().BASE_URL));
}

/** Forgets the built federation (tests that change the environment). */
export function resetFederation(): void {
  current = null;
}

function absolute(url: string | null, base: string): URL | null {
  if (!url) return null;
  try {
    return new URL(url, base);
  } catch {
    return null;
  }
}

/** Signing keys of a local person: made once (RSA for HTTP Signatures, Ed25519 for proofs). */
async function keyPairsOf(userId: string): Promise<CryptoKeyPair[]> {
  const db = getDb();
  let [row] = await db.select().from(federationKeys).where(eq(federationKeys.userId, userId));
  if (!row) {
    const rsa = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
    const ed = await generateCryptoKeyPair("Ed25519");
    await db
      .insert(federationKeys)
      .values({
        userId,
        rsaPublic: await exportJwk(rsa.publicKey),
        rsaPrivate: await exportJwk(rsa.privateKey),
        ed25519Public: await exportJwk(ed.publicKey),
        ed25519Private: await exportJwk(ed.privateKey),
      })
      .onConflictDoNothing();
    [row] = await db.select().from(federationKeys).where(eq(federationKeys.userId, userId));
  }
  if (!row) throw new Error("signing keys were not stored");
  return [
    {
      publicKey: await importJwk(row.rsaPublic as JsonWebKey, "public"),
      privateKey: await importJwk(row.rsaPrivate as JsonWebKey, "private"),
    },
    {
      publicKey: await importJwk(row.ed25519Public as JsonWebKey, "public"),
      privateKey: await importJwk(row.ed25519Private as JsonWebKey, "private"),
    },
  ];
}

/**
 * A local person's actor document (`Person`), as `/u/{username}` answers it to other servers and
 * as an `Update` carries it when their profile changes. Null for nobody by that name.
 */
export async function localActorDocument(
  ctx: Context<void>,
  identifier: string,
): Promise<Person | null> {
  const person = await findLocalPerson(identifier);
  if (!person) return null;
  const keys = await ctx.getActorKeyPairs(person.username);
  const avatar = absolute(person.avatarUrl, ctx.canonicalOrigin);
  return new Person({
    id: ctx.getActorUri(person.username),
    preferredUsername: person.username,
    name: person.displayName ?? person.username,
    summary: person.bio
      ? `<p>${person.bio.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</p>`
      : null,
    url: new URL(`/u/${person.username}`, ctx.canonicalOrigin),
    icon: avatar ? new Image({ url: avatar }) : null,
    inbox: ctx.getInboxUri(person.username),
    outbox: ctx.getOutboxUri(person.username),
    followers: ctx.getFollowersUri(person.username),
    following: ctx.getFollowingUri(person.username),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    manuallyApprovesFollowers: person.requiresFollowApproval,
    discoverable: true,
    published: Temporal.Instant.from(person.createdAt.toISOString()),
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((k) => k.multikey),
  });
}

/** Fedify's federation with our dispatchers, inbox listeners, store and queue. */
function buildFederation(): Federation<void> {
  const env = getEnv();
  const kv = new DatabaseKvStore();
  const allowLoopback = env.FEDERATION_ALLOW_LOOPBACK;
  const federation = createFederation<void>({
    kv,
    queue: { inbox: new JobsMessageQueue() },
    manuallyStartQueue: true,
    origin: env.BASE_URL,
    documentLoaderFactory: () => createCachedDocumentLoader(kv, allowLoopback),
    contextLoaderFactory: () => createCachedDocumentLoader(kv, allowLoopback),
    authenticatedDocumentLoaderFactory: (identity) => createDocumentLoader(allowLoopback, identity),
    skipSignatureVerification: false,
  });

  federation
    .setActorDispatcher("/u/{identifier}", (ctx, identifier) => localActorDocument(ctx, identifier))
    .mapHandle(async (_ctx, handle) => (await findLocalPerson(handle))?.username ?? null)
    .setKeyPairsDispatcher(async (_ctx, identifier) => {
      const person = await findLocalPerson(identifier);
      return person ? keyPairsOf(person.userId) : [];
    });

  federation
    .setFollowersDispatcher("/u/{identifier}/followers", async (ctx, identifier, cursor) => {
      const person = await findLocalPerson(identifier);
      if (!person) return null;
      const offset = cursor ? Number.parseInt(cursor, 10) || 0 : 0;
      const rows = rowsOf<{
        actor_uri: string | null;
        inbox: string | null;
        shared_inbox: string | null;
        username: string;
      }>(
        await getDb().execute(sql`
          select r.actor_uri, r.inbox, r.shared_inbox, p.username
          from ${follows} f
          join ${profiles} p on p.user_id = f.follower_id
          left join ${remoteActors} r on r.user_id = f.follower_id
          where f.followee_id = ${person.userId}
          order by f.created_at, f.follower_id
          offset ${offset} limit ${COLLECTION_PAGE + 1}`),
      );
      const items: Recipient[] = rows.slice(0, COLLECTION_PAGE).map((row) =>
        row.actor_uri
          ? {
              id: new URL(row.actor_uri),
              inboxId: row.inbox ? new URL(row.inbox) : null,
              endpoints: row.shared_inbox ? { sharedInbox: new URL(row.shared_inbox) } : null,
            }
          : {
              id: ctx.getActorUri(row.username),
              inboxId: ctx.getInboxUri(row.username),
              endpoints: { sharedInbox: ctx.getInboxUri() },
            },
      );
      return {
        items,
        nextCursor: rows.length > COLLECTION_PAGE ? String(offset + COLLECTION_PAGE) : null,
      };
    })
    .setFirstCursor(() => "0")
    .setCounter(async (_ctx, identifier) => {
      const person = await findLocalPerson(identifier);
      if (!person) return null;
      const [row] = rowsOf<{ n: number }>(
        await getDb().execute(
          sql`select count(*)::int as n from ${follows} where followee_id = ${person.userId}`,
        ),
      );
      return row?.n ?? 0;
    });

  federation
    .setFollowingDispatcher("/u/{identifier}/following", async (ctx, identifier, cursor) => {
      const person = await findLocalPerson(identifier);
      if (!person) return null;
      const offset = cursor ? Number.parseInt(cursor, 10) || 0 : 0;
      const rows = rowsOf<{ actor_uri: string | null; username: string }>(
        await getDb().execute(sql`
          select r.actor_uri, p.username
          from ${follows} f
          join ${profiles} p on p.user_id = f.followee_id
          left join ${remoteActors} r on r.user_id = f.followee_id
          where f.follower_id = ${person.userId}
          order by f.created_at, f.followee_id
          offset ${offset} limit ${COLLECTION_PAGE + 1}`),
      );
      return {
        items: rows
          .slice(0, COLLECTION_PAGE)
          .map((row) => (row.actor_uri ? new URL(row.actor_uri) : ctx.getActorUri(row.username))),
        nextCursor: rows.length > COLLECTION_PAGE ? String(offset + COLLECTION_PAGE) : null,
      };
    })
    .setFirstCursor(() => "0")
    .setCounter(async (_ctx, identifier) => {
      const person = await findLocalPerson(identifier);
      if (!person) return null;
      const [row] = rowsOf<{ n: number }>(
        await getDb().execute(
          sql`select count(*)::int as n from ${follows} where follower_id = ${person.userId}`,
        ),
      );
      return row?.n ?? 0;
    });

  federation
    .setOutboxDispatcher("/u/{identifier}/outbox", async (ctx, identifier, cursor) => {
      const person = await findLocalPerson(identifier);
      if (!person) return null;
      const offset = cursor ? Number.parseInt(cursor, 10) || 0 : 0;
      // Public posts only: the outbox is readable by anybody.
      const ids = rowsOf<{ id: string }>(
        await getDb().execute(sql`
          select id from ${posts}
          where author_id = ${person.userId} and audience = 'everyone'
          order by created_at desc, id desc
          offset ${offset} limit ${COLLECTION_PAGE + 1}`),
      );
      const items = [];
      for (const { id } of ids.slice(0, COLLECTION_PAGE)) {
        const post = await loadLocalPost(getDb(), id);
        if (!post) continue;
        const note = postToNote(ctx, post);
        items.push(
          new Create({
            id: new URL(`/post/${post.id}#create`, ctx.canonicalOrigin),
            actor: ctx.getActorUri(post.username),
            object: note,
            tos: note.toIds,
            ccs: note.ccIds,
            published: note.published,
          }),
        );
      }
      return {
        items,
        nextCursor: ids.length > COLLECTION_PAGE ? String(offset + COLLECTION_PAGE) : null,
      };
    })
    .setFirstCursor(() => "0")
    .setCounter(async (_ctx, identifier) => {
      const person = await findLocalPerson(identifier);
      if (!person) return null;
      const [row] = rowsOf<{ n: number }>(
        await getDb().execute(
          sql`select count(*)::int as n from ${posts} where author_id = ${person.userId} and audience = 'everyone'`,
        ),
      );
      return row?.n ?? 0;
    });

  // A post's Note: public ones to anybody; followers-only ones only to a request signed by a
  // follower (or a follower's server); only-me ones never. Anything else answers 404.
  federation.setObjectDispatcher(Note, "/post/{id}", async (ctx, { id }) => {
    const post = await loadLocalPost(getDb(), id ?? "");
    if (!post || post.audience === "only_me") return null;
    if (post.audience === "followers") {
      const owner = await ctx.getSignedKeyOwner();
      if (!owner?.id) return null;
      const [row] = rowsOf<{ ok: boolean }>(
        await getDb().execute(sql`
          select exists (
            select 1 from ${follows} f join ${remoteActors} r on r.user_id = f.follower_id
            where f.followee_id = ${post.authorId}
              and (r.actor_uri = ${owner.id.href} or r.host = ${owner.id.host.toLowerCase()})
          ) as ok`),
      );
      if (!row?.ok) return null;
    }
    return postToNote(ctx, post);
  });

  federation.setNodeInfoDispatcher("/nodeinfo/2.1", async () => {
    const [counts] = rowsOf<{
      users: number;
      month: number;
      halfyear: number;
      posts: number;
      comments: number;
    }>(
      await getDb().execute(sql`
        with locals as (
          select u.id from ${user} u
          where not exists (select 1 from ${remoteActors} r where r.user_id = u.id)
            and coalesce(u.is_anonymous, false) = false
        )
        select
          (select count(*)::int from locals) as users,
          (select count(distinct p.author_id)::int from ${posts} p join locals l on l.id = p.author_id
            where p.created_at > now() - interval '30 days') as month,
          (select count(distinct p.author_id)::int from ${posts} p join locals l on l.id = p.author_id
            where p.created_at > now() - interval '180 days') as halfyear,
          (select count(*)::int from ${posts} p join locals l on l.id = p.author_id) as posts,
          (select count(*)::int from ${comments} c join locals l on l.id = c.user_id) as comments`),
    );
    return {
      software: { name: "soundtrail", version: SOFTWARE_VERSION },
      protocols: ["activitypub"],
      openRegistrations: true,
      usage: {
        users: {
          total: counts?.users ?? 0,
          activeMonth: counts?.month ?? 0,
          activeHalfyear: counts?.halfyear ?? 0,
        },
        localPosts: counts?.posts ?? 0,
        localComments: counts?.comments ?? 0,
      },
    };
  });

  federation
    .setInboxListeners("/u/{identifier}/inbox", "/inbox")
    .setSharedKeyDispatcher(async () => {
      // Fetches made while processing shared-inbox deliveries sign as the instance's first
      // person would; without anyone, unsigned.
      const [row] = rowsOf<{ username: string }>(
        await getDb().execute(sql`
          select p.username from ${federationKeys} k join ${profiles} p on p.user_id = k.user_id
          order by k.created_at limit 1`),
      );
      return row ? { identifier: row.username } : null;
    })
    .on(Follow, inboundFollow)
    .on(Accept, inboundAccept)
    .on(Reject, inboundReject)
    .on(Undo, inboundUndo)
    .on(Block, inboundBlock)
    .on(Like, inboundLike)
    .on(Create, handleInboundCreate)
    .on(Update, handleInboundUpdate)
    .on(Delete, handleInboundDelete)
    // Boosts are accepted and not shown (yet): an unknown or unhandled type is no error.
    .on(Announce, () => undefined)
    .onError((_ctx, error) => {
      logger.warn({ err: error }, "federation: an inbound activity failed");
    });

  return federation;
}
