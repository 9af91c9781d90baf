import { sql } from "drizzle-orm";
import { blockedBetween } from "~/core/visibility.server";
import { getDb, rowsOf } from "~/db/client.server";
import { profiles, user } from "~/db/schema";
import { getJourneyAccess } from "../access.server";
import { ApiError, BAD_AUTH_HEADER, BAD_TOKEN } from "./api-error";
import type { ListenTokenOwner } from "./tokens.server";

/** A person named in a /1/user/{user}/… path. */
export interface ApiUser {
  id: string;
  /** As they wrote it (ListenBrainz answers with the name as asked; this is the stored one). */
  username: string;
}

/** What a reader may see of a person's listens. */
export interface ReadAccess {
  isOwner: boolean;
  /** Artist keys left out of everything the reader sees (empty for the owner). */
  hidden: string[];
}

/**
 * The person a username names, found case-insensitively as profiles are, when the account is
 * in good standing (a banned account is not found, as its profile is not).
 */
export async function findApiUser(username: string): Promise<ApiUser | null> {
  const name = username.trim();
  if (!/^[A-Za-z0-9_.]{1,60}$/.test(name)) return null;
  const [row] = rowsOf<{ id: string; username: string }>(
    await getDb().execute(sql`
      select ${profiles.userId} as id, ${profiles.username} as username
      from ${profiles} join ${user} on ${user.id} = ${profiles.userId}
      where lower(${profiles.username}) = ${name.toLowerCase()}
        and not (coalesce(${user.banned}, false)
          and (${user.banExpires} is null or ${user.banExpires} > now()))
      limit 1`),
  );
  return row ?? null;
}

/** `Cannot find user: x`, ListenBrainz's 404 for an unknown name. */
export function userNotFound(name: string): ApiError {
  return new ApiError(404, `Cannot find user: ${name}`);
}

/**
 * The reader of a request: nobody without an Authorization header; its token's owner with one;
 * a header that names no working token is ListenBrainz's 401 (a read never falls back to
 * reading as nobody when the player meant to sign in).
 */
export async function readerOf(
  request: Request,
  lookup: (token: string | null) => Promise<ListenTokenOwner | null>,
): Promise<ListenTokenOwner | null> {
  const header = request.headers.get("Authorization");
  if (!header) return null;
  const token = header.split(" ")[1]?.trim();
  if (token === undefined) throw new ApiError(401, BAD_AUTH_HEADER);
  const owner = (await lookup(token)) ?? (await lookup(storedFormOf(token)));
  if (!owner) throw new ApiError(401, BAD_TOKEN);
  return owner;
}

/**
 * The token a read's header carries in the form Jellyfin's ListenBrainz plugin stores it:
 * its reads (the MSID lookup before a love, the loved-tracks sync) send the configuration's
 * base64 of the token instead of the token (`ApiToken = config.ApiToken`, where submits use
 * `PlaintextApiToken`). ListenBrainz ignores the token on a read, so they work there; here a
 * journey is not always open to everyone, so the owner's own token in that form is taken as
 * theirs. Null when the header's token is not base64 of a token-shaped string.
 */
function storedFormOf(token: string): string | null {
  if (!/^[A-Za-z0-9+/]{40,64}={0,2}$/.test(token)) return null;
  const decoded = Buffer.from(token, "base64").toString("utf8");
  return /^[0-9a-fA-F-]{32,36}$/.test(decoded) ? decoded : null;
}

/**
 * Whether `reader` may read `owner`'s listens, by the journey's own rule (getJourneyAccess):
 * the owner always; otherwise as the journey's audience allows. Refusals are ListenBrainz JSON:
 * nobody signed in → 401 (a token may open it); someone the audience leaves out → 403; across a
 * block either way the person is not found (404), as their profile is not.
 */
export async function readAccess(options: {
  reader: ListenTokenOwner | null;
  owner: ApiUser;
  asked: string;
}): Promise<ReadAccess> {
  const { reader, owner } = options;
  const viewerId = reader?.userId ?? null;
  const access = await getJourneyAccess({ viewerId, ownerId: owner.id });
  if (access.allowed) return { isOwner: access.isOwner, hidden: access.hiddenArtists };
  if (!viewerId) {
    throw new ApiError(
      401,
      `${refusal(owner.username, access.audience)} You need to provide an Authorization header.`,
    );
  }
  const [row] = rowsOf<{ blocked: boolean }>(
    await getDb().execute(
      sql`select ${blockedBetween(sql`${owner.id}`, sql`${viewerId}`)} as blocked`,
    ),
  );
  if (row?.blocked) throw userNotFound(options.asked);
  throw new ApiError(403, refusal(owner.username, access.audience));
}

function refusal(username: string, audience: string): string {
  if (audience === "followers")
    return `${username} shares their listens with their followers only.`;
  return `${username} keeps their listens private.`;
}
