import { isActor } from "@fedify/fedify";
import { eq } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { profiles } from "~/db/schema";
import { safeFetch } from "~/features/unfurl/index.server";
import { getEnv } from "~/lib/env.server";
import { remoteFetchOptions } from "./documents.server";
import { federationContext, isFederationEnabled } from "./federation.server";
import { findRemoteByUri, upsertRemoteActor } from "./remote.server";

const HANDLE = /^@?([A-Za-z0-9_.~-]+)@((?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]+(?::\d{1,5})?)$/;

/** Is this search text a fediverse handle (`@ana@other.host`) or a profile URL? */
export function looksLikeRemotePerson(query: string): boolean {
  const q = query.trim();
  return HANDLE.test(q) || /^https?:\/\/\S+$/i.test(q);
}

/**
 * The actor URL of `user@host` by WebFinger, through the SSRF fence (HTTPS; plain HTTP only for
 * loopback hosts when FEDERATION_ALLOW_LOOPBACK is on), or null.
 */
async function webFinger(name: string, host: string): Promise<string | null> {
  const allowLoopback = getEnv().FEDERATION_ALLOW_LOOPBACK;
  const options = {
    ...remoteFetchOptions(allowLoopback),
    accept: "application/jrd+json, application/json",
  };
  const resource = encodeURIComponent(`acct:${name}@${host}`);
  const schemes = allowLoopback ? ["https", "http"] : ["https"];
  for (const scheme of schemes) {
    let fetched: Awaited<ReturnType<typeof safeFetch>>;
    try {
      fetched = await safeFetch(
        `${scheme}://${host}/.well-known/webfinger?resource=${resource}`,
        options,
      );
    } catch {
      continue;
    }
    const jrd = JSON.parse(fetched.body.toString("utf8")) as {
      links?: { rel?: string; type?: string; href?: string }[];
    };
    const self = jrd.links?.find(
      (link) =>
        link.rel === "self" &&
        (link.type === "application/activity+json" || link.type?.startsWith("application/ld+json")),
    );
    if (self?.href) return self.href;
  }
  return null;
}

/**
 * Finds a remote person by handle (WebFinger) or profile URL, through the SSRF fence, and
 * stores them as a person row with an origin; returns their username here (`name@host`), or
 * null when there is nobody to be found (or federation is off). A handle naming this server
 * is not remote: null.
 */
export async function lookupRemotePerson(query: string): Promise<{ username: string } | null> {
  if (!isFederationEnabled() || !looksLikeRemotePerson(query)) return null;
  const ctx = federationContext();
  const q = query.trim();
  const handle = HANDLE.exec(q);
  if (handle && handle[2]?.toLowerCase() === new URL(ctx.canonicalOrigin).host.toLowerCase())
    return null;
  if (!handle && new URL(q).origin === new URL(ctx.canonicalOrigin).origin) return null;
  try {
    const actorUrl = handle ? await webFinger(handle[1] ?? "", handle[2] ?? "") : q;
    if (!actorUrl) return null;
    const object = await ctx.lookupObject(actorUrl);
    if (!object || !isActor(object) || !object.id) return null;
    const known = await findRemoteByUri(getDb(), object.id.href);
    const person = await upsertRemoteActor(object);
    const [row] = await getDb()
      .select({ username: profiles.username })
      .from(profiles)
      .where(eq(profiles.userId, (known ?? person).userId));
    return row ? { username: row.username } : null;
  } catch (error) {
    logger.info({ err: error, query: q }, "federation: a remote person could not be looked up");
    return null;
  }
}
