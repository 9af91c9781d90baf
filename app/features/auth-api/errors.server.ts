/**
 * Errors of the token API, answered in both of Supabase Auth's shapes: `{ code, error_code, msg }`
 * by default and `{ code: <error_code>, message }` when the request says
 * `X-Supabase-Api-Version: 2024-01-01` (which the answer then echoes). Every error also carries
 * `x-sb-error-code`.
 */
export class AuthApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly errorCode: string,
    message: string,
    public readonly extra: Record<string, unknown> = {},
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AuthApiError";
  }
}

export const API_VERSION_HEADER = "X-Supabase-Api-Version";
export const API_VERSION_2024 = "2024-01-01";

/** The API version the request asked for, when it is one we speak. */
export function requestedApiVersion(headers: Headers): string | null {
  const value = headers.get(API_VERSION_HEADER)?.trim();
  return value === API_VERSION_2024 ? value : null;
}

export function errorBody(error: AuthApiError, apiVersion: string | null): Record<string, unknown> {
  return apiVersion
    ? { code: error.errorCode, message: error.message, ...error.extra }
    : { code: error.status, error_code: error.errorCode, msg: error.message, ...error.extra };
}

export const MISSING_CREDENTIALS =
  "You must provide either an email or phone number and a password";
export const MISSING_CONTACT = "You must provide either an email or phone number.";
export const INVALID_LOGIN = "Invalid login credentials";

export function validationFailed(message: string): AuthApiError {
  return new AuthApiError(400, "validation_failed", message);
}

export function rateLimitedError(retryAfterSeconds: number | undefined): AuthApiError {
  return new AuthApiError(
    429,
    "over_request_rate_limit",
    "Request rate limit reached",
    {},
    retryAfterSeconds ? { "Retry-After": String(retryAfterSeconds) } : {},
  );
}
