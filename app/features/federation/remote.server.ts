import { randomUUID } from "node:crypto";
import { type Actor, type Context, type DocumentLoader, isActor } from "@fedify/fedify";
import { eq, sql } from "drizzle-orm";
import { type DbOrTx, getDb, rowsOf } from "~/db/client.server";
import { profiles, remoteActors, user } from "~/db/schema";
import { htmlToText } from "./sanitize.server";

/** A local person as federation sees them. */
export interface LocalPerson {
  userId: string;
  username: string;
  displayName: string | null;
  bio: string;
  avatarUrl: string | null;
  requiresFollowApproval: boolean;
  createdAt: Date;
}

/** The local (not remote) person with this username, any case; null when there is none. */
export async function findLocalPerson(username: string): Promise<LocalPerson | null> {
  if (!/^[A-Za-z0-9_.]{1,30}$/.test(username)) return null;
  const [row] = rowsOf<{
    user_id: string;
    username: string;
    display_name: string | null;
    bio: string;
    avatar_url: string | null;
    requires_follow_approval: boolean;
    created_at: string | Date;
  }>(
    await getDb().execute(sql`
      select p.user_id, p.username, p.display_name, p.bio, p.avatar_url,
        p.requires_follow_approval, p.created_at
      from ${profiles} p
      join ${user} u on u.id = p.user_id
      where lower(p.username) = lower(${username})
        and not exists (select 1 from ${remoteActors} r where r.user_id = p.user_id)
        and coalesce(u.is_anonymous, false) = false
        and coalesce(u.banned, false) = false`),
  );
  if (!row) return null;
  return {
    userId: row.user_id,
    username: row.username,
    displayName: row.display_name,
    bio: row.bio,
    avatarUrl: row.avatar_url,
    requiresFollowApproval: row.requires_follow_approval,
    createdAt: new Date(row.created_at),
  };
}

/** The username of a local person by id (null for a remote or unknown one). */
export async function localUsernameOf(db: DbOrTx, userId: string): Promise<string | null> {
  const [row] = rowsOf<{ username: string }>(
    await db.execute(sql`
      select p.username from ${profiles} p
      where p.user_id = ${userId}
        and not exists (select 1 from ${remoteActors} r where r.user_id = p.user_id)`),
  );
  return row?.username ?? null;
}

export interface RemotePerson {
  userId: string;
  actorUri: string;
  host: string;
  inbox: string;
  sharedInbox: string | null;
}

/** The remote person with this id, or null for a local or unknown one. */
export async function findRemotePerson(db: DbOrTx, userId: string): Promise<RemotePerson | null> {
  const [row] = await db
    .select({
      userId: remoteActors.userId,
      actorUri: remoteActors.actorUri,
      host: remoteActors.host,
      inbox: remoteActors.inbox,
      sharedInbox: remoteActors.sharedInbox,
    })
    .from(remoteActors)
    .where(eq(remoteActors.userId, userId));
  return row ?? null;
}

/** The remote person with this actor URI, or null. */
export async function findRemoteByUri(db: DbOrTx, actorUri: string): Promise<RemotePerson | null> {
  const [row] = await db
    .select({
      userId: remoteActors.userId,
      actorUri: remoteActors.actorUri,
      host: remoteActors.host,
      inbox: remoteActors.inbox,
      sharedInbox: remoteActors.sharedInbox,
    })
    .from(remoteActors)
    .where(eq(remoteActors.actorUri, actorUri));
  return row ?? null;
}

function hostOf(url: URL): string {
  return url.host.toLowerCase();
}

/**
 * Stores (or refreshes) a remote actor as a person row with an origin: a `user` without any
 * way to sign in, a `profiles` row whose username is `name@host` (so it never clashes with a
 * local one) and which always asks for approval (a remote follow is "Requested" until their
 * server sends `Accept`), and the `remote_actors` row saying where they live.
 */
export async function upsertRemoteActor(actor: Actor): Promise<RemotePerson> {
  const id = actor.id;
  const inbox = actor.inboxId;
  if (!id || !inbox) throw new Error("a remote actor without an id or an inbox");
  const host = hostOf(id);
  const handleName = (actor.preferredUsername?.toString() ?? "").replace(/[^A-Za-z0-9_.-]/g, "");
  const baseUsername = `${handleName || "someone"}@${host}`.slice(0, 200);
  const displayName = htmlToText(actor.name?.toString() ?? "").slice(0, 100) || null;
  const bio = htmlToText(actor.summary?.toString() ?? "").slice(0, 500);
  const sharedInbox = actor.endpoints?.sharedInbox?.href ?? null;
  const profileUrl = actor.url instanceof URL ? actor.url.href : (actor.url?.href?.href ?? null);
  const followersUri = actor.followersId?.href ?? null;
  return getDb().transaction(async (tx) => {
    const [existing] = await tx
      .select({ userId: remoteActors.userId })
      .from(remoteActors)
      .where(eq(remoteActors.actorUri, id.href))
      .for("update");
    if (existing) {
      await tx
        .update(remoteActors)
        .set({ inbox: inbox.href, sharedInbox, profileUrl, followersUri, fetchedAt: sql`now()` })
        .where(eq(remoteActors.userId, existing.userId));
      await tx
        .update(profiles)
        .set({ displayName, bio })
        .where(eq(profiles.userId, existing.userId));
      return {
        userId: existing.userId,
        actorUri: id.href,
        host,
        inbox: inbox.href,
        sharedInbox,
      };
    }
    const userId = randomUUID();
    // A second actor with the same name on the host (renamed, recreated) gets a suffix.
    const [taken] = rowsOf<{ n: number }>(
      await tx.execute(
        sql`select count(*)::int as n from ${profiles} where lower(username) = lower(${baseUsername})`,
      ),
    );
    const username = (taken?.n ?? 0) > 0 ? `${baseUsername}~${userId.slice(0, 6)}` : baseUsername;
    await tx.insert(user).values({
      id: userId,
      name: displayName ?? username,
      // Never an address mail is sent to: `.invalid` is reserved (RFC 2606).
      email: `${userId}@remote.invalid`,
      emailVerified: false,
    });
    await tx.insert(profiles).values({
      userId,
      username,
      displayName,
      bio,
      requiresFollowApproval: true,
      isDiscoverable: true,
    });
    await tx.insert(remoteActors).values({
      userId,
      actorUri: id.href,
      host,
      inbox: inbox.href,
      sharedInbox,
      profileUrl,
      followersUri,
    });
    return { userId, actorUri: id.href, host, inbox: inbox.href, sharedInbox };
  });
}

/**
 * The inboxes that reach `authorId`'s remote followers: each follower's shared inbox when their
 * server offers one (one delivery per server), else their own inbox.
 */
export async function remoteFollowerInboxes(db: DbOrTx, authorId: string): Promise<string[]> {
  const rows = rowsOf<{ inbox: string }>(
    await db.execute(sql`
      select distinct coalesce(r.shared_inbox, r.inbox) as inbox
      from follows f join ${remoteActors} r on r.user_id = f.follower_id
      where f.followee_id = ${authorId}`),
  );
  return rows.map((r) => r.inbox);
}

/**
 * The remote person who sent an activity: the one we know by its actor URI, or fetched (through
 * the document loader: the SSRF fence) and stored. Null when it cannot be had.
 */
export async function remoteActorOf(
  ctx: Context<void>,
  activity: {
    actorId: URL | null;
    getActor(options?: { documentLoader?: DocumentLoader }): Promise<unknown>;
  },
): Promise<RemotePerson | null> {
  if (!activity.actorId) return null;
  const known = await findRemoteByUri(getDb(), activity.actorId.href);
  if (known) return known;
  const actor = await activity.getActor({ documentLoader: ctx.documentLoader });
  if (!actor || !isActor(actor as never)) return null;
  return upsertRemoteActor(actor as Actor);
}
