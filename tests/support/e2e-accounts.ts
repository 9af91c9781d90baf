// Accounts the browser tests find already in the database (seeded by tests/support/e2e-seed.ts
// before the server starts). Plain data, safe for specs to import.

export const E2E_PASSWORD = "Seeded-Fixture-Pass-1977";

export const E2E_ADMIN = {
  id: "e2e-admin",
  email: "admin@e2e.test",
  username: "e2e_admin",
  displayName: "Ada Admin",
} as const;

export const E2E_MEMBER = {
  id: "e2e-member",
  email: "member@e2e.test",
  username: "e2e_member",
  displayName: "Max Member",
} as const;

/**
 * The account the admin spec grants admin to, bans and unbans: the newest seeded account (first
 * in the users list), and not one of the bulk accounts, so a ban left behind by a failed attempt
 * cannot change who the bulk e-mail tests reach.
 */
export const E2E_TARGET = {
  id: "e2e-target",
  email: "target@e2e.test",
  username: "e2e_target",
  displayName: "Tess Target",
} as const;

/** 250 accounts for the bulk e-mail test, newest first in the order of their number. */
export const BULK_COUNT = 250;

export interface BulkAccount {
  id: string;
  email: string;
  username: string;
  displayName: string | null;
}

/** The n-th (1-based) bulk account; every fifth has no display name. */
export function bulkAccount(n: number): BulkAccount {
  const number = String(n).padStart(3, "0");
  return {
    id: `e2e-bulk-${number}`,
    email: `bulk_${number}@bulk.test`,
    username: `bulk_${number}`,
    displayName: n % 5 === 0 ? null : `Bulk Fan ${number}`,
  };
}

/** Comments seeded on one post by the member, for paging through the admin's comments list. */
export const SEEDED_COMMENTS = 14;
export const SEEDED_POST_TITLE = "Seeded track for moderation";
/** Reported by bulk_003 (harassment); the seeded post is reported by bulk_002 (copyright). */
export const REPORTED_COMMENT = "Seeded comment 1";

/** Posts by E2E_MEMBER for the shared-link previews (old, so they sit at the feed's end). */
export const SHARED_POSTS = {
  public: {
    id: "5a1e0000-0000-4000-8000-000000000001",
    title: "Sour Times",
    artist: "Portishead",
    note: "The song that taught me what trip-hop was.",
  },
  followersOnly: {
    id: "5a1e0000-0000-4000-8000-000000000002",
    title: "Secret Followers Track",
    artist: "Hidden Band",
    note: "Only for my followers.",
  },
} as const;

/**
 * The journey spec's people: Jo has plays (audience left at the default, followers), Fay
 * follows Jo, Stan is a stranger to Jo.
 */
export const JOURNEY_OWNER = {
  id: "e2e-journey-owner",
  email: "journey-owner@e2e.test",
  username: "e2e_journey",
  displayName: "Jo Journey",
} as const;
export const JOURNEY_FOLLOWER = {
  id: "e2e-journey-follower",
  email: "journey-follower@e2e.test",
  username: "e2e_journey_fan",
  displayName: "Fay Fanning",
} as const;
export const JOURNEY_STRANGER = {
  id: "e2e-journey-stranger",
  email: "journey-stranger@e2e.test",
  username: "e2e_journey_stranger",
  displayName: "Stan Stranger",
} as const;
/** Jo's plays in the last days before the seed runs: artist → plays (most played first). */
export const JOURNEY_PLAYS = [
  { artist: "Cocteau Twins", track: "Heaven or Las Vegas", plays: 6 },
  { artist: "Slowdive", track: "Alison", plays: 4 },
  { artist: "Mazzy Star", track: "Fade Into You", plays: 2 },
] as const;
