import { profiles } from "~/db/schema";

/**
 * The columns every query that shows a person selects from `profiles` (the author projection):
 * spread into a `select({ ... })` beside the query's own columns, and pass the rows through
 * `withShownName` (core/person.ts) so an empty display name shows the username.
 */
export const personColumns = {
  id: profiles.userId,
  username: profiles.username,
  displayName: profiles.displayName,
  avatarUrl: profiles.avatarUrl,
} as const;
