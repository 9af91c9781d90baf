import { isActor } from "@fedify/fedify";
import { eq } from "drizzle-orm";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { profiles } from "~/db/schema";
import { federationContext, isFederationEnabled } from "./federation.server";
import { findRemoteByUri, upsertRemoteActor } from "./remote.server";

const HANDLE = /^@?([A-Za-z0-9_.~-]+)@((?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]+(?::\d{1,5})?)$/;

/** Is this search text a fediverse handle (`@ana@other.host`) or a profile URL? */
export function looksLikeRemotePerson(query: string): boolean {
  const q = query.trim();
  return HANDLE.test(q) || /^https?:\/\/\S+$/i.test(q);
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
    const object = await ctx.lookupObject(handle ? `@${handle[1]}@${handle[2]}` : q);
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
