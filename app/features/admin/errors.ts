export const NOT_SIGNED_IN = "Sign in to continue.";
export const NOT_ADMIN = "You need the admin role for this.";

/** Spec §8 messages shown when an admin screen cannot load its data. */
export const LOAD_ERRORS = {
  statistics: "Failed to load statistics",
  comments: "Failed to load comments",
  users: "Failed to load users",
  allUsers: "Failed to load all users",
  reports: "Failed to load reports",
  audit: "Failed to load the audit log",
  campaigns: "Failed to load campaigns",
  jobs: "Failed to load background jobs",
} as const;

/** Spec §8: shown when any batch of a bulk mail fails. */
export const SEND_FAILED = "Failed to send some emails";
