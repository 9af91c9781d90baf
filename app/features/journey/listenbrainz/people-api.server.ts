import { sql } from "drizzle-orm";
import { blockedBetween } from "~/core/visibility.server";
import { getDb, rowsOf } from "~/db/client.server";
import { follows, profiles, user } from "~/db/schema";

/** ListenBrainz's SEARCH_USER_LIMIT. */
export const SEARCH_USER_LIMIT = 10;
/** The most names a followers or following list answers with. */
const PEOPLE_LIMIT = 1000;

const inGoodStanding = sql`not (coalesce(${user.banned}, false)
  and (${user.banExpires} is null or ${user.banExpires} > now()))`;

function notBlockedWith(readerId: string | null) {
  return readerId ? sql`not ${blockedBetween(profiles.userId, readerId)}` : sql`true`;
}

/**
 * ListenBrainz's `GET /1/search/users`: usernames that start with or contain the term, exact
 * and prefix matches first; only people who appear in search, none in a block with the reader.
 */
export async function searchUserNames(options: {
  readerId: string | null;
  term: string;
}): Promise<{ user_name: string }[]> {
  const term = options.term.trim().toLowerCase().slice(0, 60);
  if (!term) return [];
  const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = rowsOf<{ username: string }>(
    await getDb().execute(sql`
      select ${profiles.username} as username
      from ${profiles} join ${user} on ${user.id} = ${profiles.userId}
      where lower(${profiles.username}) like ${pattern}
        and (${profiles.isDiscoverable} or ${profiles.userId} = ${options.readerId ?? ""})
        and ${inGoodStanding} and ${notBlockedWith(options.readerId)}
      order by lower(${profiles.username}) = ${term} desc,
        starts_with(lower(${profiles.username}), ${term}) desc,
        char_length(${profiles.username}), lower(${profiles.username})
      limit ${SEARCH_USER_LIMIT}`),
  );
  return rows.map((row) => ({ user_name: row.username }));
}

/**
 * The usernames of a person's followers or of the people they follow (Soundtrail follows,
 * accepted ones), newest first, without anyone in a block with the reader.
 */
export async function followNames(options: {
  readerId: string | null;
  userId: string;
  list: "followers" | "following";
}): Promise<string[]> {
  const other = options.list === "followers" ? follows.followerId : follows.followeeId;
  const mine = options.list === "followers" ? follows.followeeId : follows.followerId;
  const rows = rowsOf<{ username: string }>(
    await getDb().execute(sql`
      select ${profiles.username} as username
      from ${follows}
      join ${profiles} on ${profiles.userId} = ${other}
      join ${user} on ${user.id} = ${profiles.userId}
      where ${mine} = ${options.userId} and ${inGoodStanding} and ${notBlockedWith(options.readerId)}
      order by ${follows.createdAt} desc
      limit ${PEOPLE_LIMIT}`),
  );
  return rows.map((row) => row.username);
}
