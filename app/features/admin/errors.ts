import { AppError, type AppErrorCode } from "~/core/errors";

type AdminErrorStatus = 400 | 401 | 403 | 404 | 409;

const CODES: Record<AdminErrorStatus, AppErrorCode> = {
  400: "invalid",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
};

/**
 * An admin operation refused for a reason the caller can show. It is an AppError (so the
 * shared mapping applies) that also carries its HTTP status.
 */
export class AdminError extends AppError {
  override name = "AdminError";
  constructor(
    public readonly status: AdminErrorStatus,
    message: string,
  ) {
    super(CODES[status], message);
  }
}

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
} as const;

/** Spec §8: shown when any batch of a bulk mail fails. */
export const SEND_FAILED = "Failed to send some emails";
