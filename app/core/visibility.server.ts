import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { blocks, follows, journeySettings, posts } from "~/db/schema";

/** What a post the visibility rule hides answers: the same words whether it exists or not. */
export const POST_NOT_FOUND = "This post does not exist, or you cannot see it.";

/** The columns the visibility rule needs; `posts` itself or an alias of it (`alias(posts, "p")`). */
export interface PostColumns {
  authorId: AnyPgColumn;
  audience: AnyPgColumn;
}

/**
 * True when either person has blocked the other. Two primary-key probes, so it is cheap
 * inside per-row predicates.
 */
export function blockedBetween(a: SQLWrapper | string, b: SQLWrapper | string): SQL {
  return sql`(exists (select 1 from ${blocks} where ${blocks.blockerId} = ${a} and ${blocks.blockedId} = ${b})
    or exists (select 1 from ${blocks} where ${blocks.blockerId} = ${b} and ${blocks.blockedId} = ${a}))`;
}

/**
 * THE visibility rule, as one SQL predicate reused by the feed, the post page, profiles,
 * comments, likes and autocomplete:
 * - `everyone`: anybody, signed out included;
 * - `followers`: the author and the people who follow them;
 * - `only_me`: the author;
 * - a block (either direction) hides everything of the author from the other person.
 * Administrators get no extra read power here (they review reports in the admin area).
 */
export function canSeePost(viewerId: string | null, p: PostColumns = posts): SQL {
  if (!viewerId) return sql`(${p.audience} = 'everyone')`;
  return sql`(${p.authorId} = ${viewerId} or (
    not ${blockedBetween(p.authorId, viewerId)}
    and (${p.audience} = 'everyone'
      or (${p.audience} = 'followers' and exists (
        select 1 from ${follows}
        where ${follows.followerId} = ${viewerId} and ${follows.followeeId} = ${p.authorId})))))`;
}

/**
 * The journey rule (features/journey/access.server.ts, getJourneyAccess and canSeeJourney) with
 * the reader as an SQL expression, for many readers at once (a column; never null): the owner
 * themself, or across no block an `everyone` journey, or a `followers` one (the default, also
 * without a settings row) of someone they follow.
 */
export function journeyOpenTo(reader: SQLWrapper, ownerId: string | SQLWrapper): SQL {
  const owner = typeof ownerId === "string" ? sql`${ownerId}` : ownerId;
  const audience = sql`coalesce((select ${journeySettings.audience} from ${journeySettings}
    where ${journeySettings.userId} = ${owner}), 'followers')`;
  return sql`(${reader} = ${owner} or (
    not ${blockedBetween(owner, reader)}
    and (${audience} = 'everyone'
      or (${audience} = 'followers' and exists (select 1 from ${follows}
        where ${follows.followerId} = ${reader} and ${follows.followeeId} = ${owner})))))`;
}

/**
 * The journey rule as an SQL predicate on an owner (an id, or a column for lists of people), for
 * one viewer: journeyOpenTo with the viewer's id; signed out, only `everyone`.
 */
export function canSeeJourney(
  viewerId: string | SQLWrapper | null,
  ownerId: string | SQLWrapper,
): SQL {
  if (!viewerId) {
    return sql`(coalesce((select ${journeySettings.audience} from ${journeySettings}
      where ${journeySettings.userId} = ${ownerId}), 'followers') = 'everyone')`;
  }
  return journeyOpenTo(typeof viewerId === "string" ? sql`${viewerId}` : viewerId, ownerId);
}
