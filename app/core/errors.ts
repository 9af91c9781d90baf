/** Domain failure codes (ARCHITECTURE §4.5) and the HTTP status each maps to. */
export const APP_ERROR_STATUS = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  blocked: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  rate_limited: 429,
} as const;

export type AppErrorCode = keyof typeof APP_ERROR_STATUS;

/** An expected failure of a feature function, with a message fit to show to the user. */
export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly code: AppErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** The HTTP status for an AppError code. */
export function statusForAppError(code: AppErrorCode): number {
  return APP_ERROR_STATUS[code];
}
