/**
 * How a person is shown wherever they appear (a post's author, a list of people, a comment):
 * the name to show is their display name, else their username. Browser-safe; the columns that
 * select a person are in `person.server.ts`.
 */
export interface PersonNames {
  username: string | null;
  displayName: string | null;
}

/** The display name, else the username, else `fallback` (e.g. "Deleted account"). */
export function shownName(person: Partial<PersonNames>, fallback = ""): string {
  return person.displayName || person.username || fallback;
}

/** The row with `displayName` replaced by the name to show (never empty for a person with a username). */
export function withShownName<T extends { username: string; displayName: string | null }>(
  row: T,
): Omit<T, "displayName"> & { displayName: string } {
  return { ...row, displayName: shownName(row) };
}
