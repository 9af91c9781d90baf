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
  upstream: 502,
} as const;

export type AppErrorCode = keyof typeof APP_ERROR_STATUS;

/**
 * An expected failure of a feature function, with a message fit to show to the user. Its HTTP
 * status follows from its code (APP_ERROR_STATUS); a `rate_limited` one says when to retry.
 */
export class AppError extends Error {
  override name = "AppError";
  readonly status: number;
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.status = APP_ERROR_STATUS[code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** The HTTP status for an AppError code. */
export function statusForAppError(code: AppErrorCode): number {
  return APP_ERROR_STATUS[code];
}

/**
 * The AppError code for an HTTP status another component answered with (better-auth's
 * endpoints): the code whose status it is, else `invalid` for a 4xx and `upstream` for the rest.
 */
export function appErrorCodeForStatus(status: number): AppErrorCode {
  const known = (Object.keys(APP_ERROR_STATUS) as AppErrorCode[]).find(
    (code) => APP_ERROR_STATUS[code] === status,
  );
  if (known) return known;
  return status >= 400 && status < 500 ? "invalid" : "upstream";
}

/**
 * The status and headers a failure answers with (Retry-After for `rate_limited`): an AppError,
 * or any result that carries its code (the account flows' `AuthFailure` as `kind`).
 */
export function appErrorInit(failure: {
  code: AppErrorCode;
  retryAfterSeconds?: number;
}): ResponseInit {
  return {
    status: statusForAppError(failure.code),
    headers:
      failure.retryAfterSeconds !== undefined
        ? { "Retry-After": String(Math.max(1, Math.ceil(failure.retryAfterSeconds))) }
        : undefined,
  };
}
