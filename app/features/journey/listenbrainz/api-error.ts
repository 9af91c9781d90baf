/** An error as ListenBrainz's `APIError.to_dict()`: the payload's keys, then code and error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly payload?: Record<string, unknown>,
  ) {
    super(message);
  }
  body(): Record<string, unknown> {
    return { ...this.payload, code: this.status, error: this.message };
  }
}

/** ListenBrainz's `APINoContent`: a 204 with no body (its stats before they are computed). */
export class NoContent extends Error {}

export const NOT_FOUND_MESSAGE =
  "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.";

/** `validate_auth_header`'s three refusals. */
export const NO_AUTH_HEADER = "You need to provide an Authorization header.";
export const BAD_AUTH_HEADER = "Provided Authorization header is invalid.";
export const BAD_TOKEN = "Invalid authorization token.";

/** ListenBrainz's `log_raise_400`. */
export function badRequest(message: string, payload?: Record<string, unknown>): ApiError {
  return new ApiError(400, message, payload);
}

/** ListenBrainz's `_parse_int_arg`: absent or empty gives the default; else an integer or a 400. */
export function intArg(
  params: URLSearchParams,
  name: string,
  fallback: number | null,
): number | null {
  const value = params.get(name);
  if (!value) return fallback;
  const parsed = pythonInt(value);
  if (parsed === null) throw badRequest(`Invalid ${name} argument: ${value}`);
  return parsed;
}

/** ListenBrainz's `get_non_negative_param`. */
export function nonNegativeArg(params: URLSearchParams, name: string, fallback: number): number {
  const value = params.get(name);
  if (value === null) return fallback;
  const parsed = pythonInt(value);
  if (parsed === null || parsed < 0) {
    throw badRequest(`'${name}' should be a non-negative integer`);
  }
  return parsed;
}

/** Python's `int(str)`: optional sign and surrounding spaces, digits (underscores between). */
export function pythonInt(value: string): number | null {
  const trimmed = value.trim();
  if (!/^[+-]?\d+(_\d+)*$/.test(trimmed)) return null;
  const parsed = Number(trimmed.replaceAll("_", ""));
  return Number.isSafeInteger(parsed) ? parsed : null;
}

/** ListenBrainz's `parse_boolean_arg`: "true" or "false" in any case, else a 400. */
export function booleanArg(params: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = params.get(name);
  if (!value) return fallback;
  const lower = value.toLowerCase();
  if (lower !== "true" && lower !== "false") {
    throw badRequest(`Invalid ${name} argument: ${lower}. Must be 'true' or 'false'`);
  }
  return lower === "true";
}
