/**
 * The submit-listens checks of ListenBrainz's own server (listenbrainz/webserver/views/api.py
 * `submit_listen` and api_tools.py `validate_listen`), in the same order and with the same
 * messages, so a player that works against listenbrainz.org gets the same answers here. Pure:
 * no database, no request.
 */

/** Largest listen, on average per listen in a request (api_tools.MAX_LISTEN_SIZE). */
export const MAX_LISTEN_SIZE = 10240;
/** Most listens in one request (api_tools.MAX_LISTENS_PER_REQUEST). */
export const MAX_LISTENS_PER_REQUEST = 1000;
/** Largest request body (api_tools.MAX_LISTEN_PAYLOAD_SIZE). */
export const MAX_LISTEN_PAYLOAD_SIZE = MAX_LISTEN_SIZE * MAX_LISTENS_PER_REQUEST;
export const MAX_TAGS_PER_LISTEN = 50;
export const MAX_TAG_SIZE = 64;
/** 24 days, in seconds and in milliseconds. */
export const MAX_DURATION_LIMIT = 24 * 24 * 60 * 60;
export const MAX_DURATION_MS_LIMIT = MAX_DURATION_LIMIT * 1000;
/** 2002-10-01 00:00:00 UTC: older Last.fm data is rubbish (listenstore.LISTEN_MINIMUM_TS). */
export const LISTEN_MINIMUM_TS = Date.UTC(2002, 9, 1) / 1000;
/** Clocks differ: a listen may be up to an hour in the future (API_LISTENED_AT_ALLOWED_SKEW). */
export const LISTENED_AT_ALLOWED_SKEW = 60 * 60;

export const PAYLOAD_TOO_LARGE = `Payload too large. Payload cannot exceed ${MAX_LISTEN_PAYLOAD_SIZE} bytes`;

export type ListenType = "single" | "import" | "playing_now";

type JsonObject = Record<string, unknown>;

/** A listen that passed: names trimmed, timestamp and durations made integers. */
export interface ValidListen {
  listenedAt: number | null;
  artistName: string;
  trackName: string;
  releaseName: string | null;
  /** From additional_info.duration_ms, or duration (seconds) × 1000. */
  durationMs: number | null;
}

export interface ValidSubmission {
  ok: true;
  listenType: ListenType;
  listens: ValidListen[];
}

/**
 * A refusal as ListenBrainz words it. `payload` is the offending listen, which ListenBrainz
 * merges into its error body (`APIBadRequest(message, listen).to_dict()`).
 */
export interface SubmissionError {
  ok: false;
  message: string;
  payload?: JsonObject;
}

class ListenValidationError extends Error {
  constructor(
    message: string,
    readonly payload?: JsonObject,
  ) {
    super(message);
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Python's `int(x)` for what JSON can hold: ints, digit strings, floats (truncated), booleans. */
function pythonInt(value: unknown): number | null {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === "string" && /^\s*[+-]?\d+(?:_\d+)*\s*$/.test(value)) {
    return Number.parseInt(value.replace(/_/g, ""), 10);
  }
  return null;
}

/** Python's `int(float(x))`: also "215.4" and "2e2". */
function pythonIntOfFloat(value: unknown): number | null {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === "string" && /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?\s*$/i.test(value)) {
    const parsed = Number(value.trim());
    return Number.isFinite(parsed) ? Math.trunc(parsed) : null;
  }
  return null;
}

/** Python's `uuid.UUID(u)`: hyphens, braces and a `urn:uuid:` prefix are all accepted. */
export function isValidUuid(value: unknown): boolean {
  if (typeof value !== "string") return false;
  const hex = value
    .replace(/^urn:/i, "")
    .replace(/^uuid:/i, "")
    .replace(/^\{|\}$/g, "")
    .replace(/-/g, "");
  return /^[0-9a-f]{32}$/i.test(hex);
}

/** Falsy in Python's sense, for the values JSON can hold. */
function isFalsy(value: unknown): boolean {
  return (
    value === null ||
    value === undefined ||
    value === false ||
    value === 0 ||
    value === "" ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && Object.keys(value).length === 0)
  );
}

function validateListenedAt(listen: JsonObject): void {
  if (!("listened_at" in listen)) {
    throw new ListenValidationError(
      "JSON document must contain the key listened_at at the top level.",
      listen,
    );
  }
  const value = pythonInt(listen.listened_at);
  if (value === null) {
    throw new ListenValidationError(
      "JSON document must contain an int value for listened_at.",
      listen,
    );
  }
  listen.listened_at = value;
  if (value >= Math.floor(Date.now() / 1000) + LISTENED_AT_ALLOWED_SKEW) {
    throw new ListenValidationError("Value for key listened_at is too high.", listen);
  }
  if (value < LISTEN_MINIMUM_TS) {
    throw new ListenValidationError(
      "Value for key listened_at is too low. listened_at timestamp should be greater than 1033410600 (2002-10-01 00:00:00 UTC).",
      listen,
    );
  }
}

function validateBasicMetadata(
  listen: JsonObject,
  metadata: JsonObject,
  key: string,
  required: boolean,
): void {
  if (key in metadata) {
    const value = metadata[key];
    if (typeof value !== "string") {
      throw new ListenValidationError(`track_metadata.${key} must be a single string.`, listen);
    }
    metadata[key] = value.trim();
    if ((metadata[key] as string).length === 0) {
      if (required)
        throw new ListenValidationError(`field track_metadata.${key} is empty.`, listen);
      delete metadata[key];
    }
  } else if (required) {
    throw new ListenValidationError(
      `JSON document does not contain required field track_metadata.${key}.`,
      listen,
    );
  }
}

function validateDuration(listen: JsonObject, info: JsonObject, key: string, max: number): void {
  if (!(key in info)) return;
  const value = pythonIntOfFloat(info[key]);
  if (value === null || value <= 0) {
    throw new ListenValidationError(
      `Value for ${key} is invalid, should be a positive integer.`,
      listen,
    );
  }
  if (value > max) {
    throw new ListenValidationError(
      `Value for ${key} is too large, max permitted value is ${max}`,
      listen,
    );
  }
  info[key] = value;
}

function validateMbids(listen: JsonObject, info: JsonObject): void {
  for (const key of ["release_mbid", "recording_mbid", "release_group_mbid", "track_mbid"]) {
    if (!(key in info)) continue;
    if (isFalsy(info[key])) {
      delete info[key];
      continue;
    }
    if (!isValidUuid(info[key])) {
      throw new ListenValidationError(`${key} MBID format invalid.`, listen);
    }
  }
  for (const key of ["artist_mbids", "work_mbids"]) {
    if (!(key in info)) continue;
    const value = info[key];
    if (isFalsy(value)) {
      delete info[key];
      continue;
    }
    const mbids = (Array.isArray(value) ? value : [value]).filter((mbid) => !isFalsy(mbid));
    for (const mbid of mbids) {
      if (!isValidUuid(mbid))
        throw new ListenValidationError(`${key} MBID format invalid.`, listen);
    }
    info[key] = mbids;
  }
}

/** Postgres text cannot hold U+0000: ListenBrainz refuses any string that carries one. */
function checkForUnicodeNull(listen: JsonObject, value: unknown): void {
  if (typeof value === "string") {
    if (value.includes("\u0000")) {
      throw new ListenValidationError(`${value} contains a unicode null`, listen);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) checkForUnicodeNull(listen, item);
  } else if (isObject(value)) {
    for (const item of Object.values(value)) checkForUnicodeNull(listen, item);
  }
}

function validateListen(raw: unknown, listenType: ListenType): ValidListen {
  if (!isObject(raw)) throw new ListenValidationError("Listen is empty and cannot be validated.");
  const listen = raw;
  if (listenType === "single" || listenType === "import") {
    validateListenedAt(listen);
    if (!("track_metadata" in listen)) {
      throw new ListenValidationError(
        "JSON document must contain the key track_metadata at the top level.",
        listen,
      );
    }
    if (Object.keys(listen).length > 2) {
      throw new ListenValidationError(
        "JSON document may only contain listened_at and track_metadata top level keys",
        listen,
      );
    }
  } else {
    if ("listened_at" in listen) {
      throw new ListenValidationError(
        "JSON document must not contain listened_at while submitting playing_now.",
        listen,
      );
    }
    if (!("track_metadata" in listen)) {
      throw new ListenValidationError(
        "JSON document must contain the key track_metadata at the top level.",
        listen,
      );
    }
    if (Object.keys(listen).length > 1) {
      throw new ListenValidationError(
        "JSON document may only contain track_metadata as top level key when submitting playing_now.",
        listen,
      );
    }
  }
  const metadata = listen.track_metadata;
  if (metadata === null) {
    throw new ListenValidationError(
      "JSON document may not have track_metadata with null value.",
      listen,
    );
  }
  if (!isObject(metadata)) {
    throw new ListenValidationError("track_metadata must be a JSON object.", listen);
  }
  validateBasicMetadata(listen, metadata, "track_name", true);
  validateBasicMetadata(listen, metadata, "artist_name", true);
  validateBasicMetadata(listen, metadata, "release_name", false);

  // Players send `"additional_info": null` or leave it out; both mean "nothing more".
  const info = isObject(metadata.additional_info) ? metadata.additional_info : null;
  if (info) {
    if ("tags" in info && Array.isArray(info.tags)) {
      if (info.tags.length > MAX_TAGS_PER_LISTEN) {
        throw new ListenValidationError(
          `JSON document may not contain more than ${MAX_TAGS_PER_LISTEN} items in track_metadata.additional_info.tags.`,
          listen,
        );
      }
      for (const tag of info.tags) {
        if (typeof tag === "string" && [...tag].length > MAX_TAG_SIZE) {
          throw new ListenValidationError(
            `JSON document may not contain track_metadata.additional_info.tags longer than ${MAX_TAG_SIZE} characters.`,
            listen,
          );
        }
      }
    }
    if ("duration" in info && "duration_ms" in info) {
      throw new ListenValidationError(
        "JSON document should not contain both duration and duration_ms.",
        listen,
      );
    }
    validateDuration(listen, info, "duration", MAX_DURATION_LIMIT);
    validateDuration(listen, info, "duration_ms", MAX_DURATION_MS_LIMIT);
    validateMbids(listen, info);
  }
  checkForUnicodeNull(listen, listen);

  const durationMs =
    typeof info?.duration_ms === "number"
      ? info.duration_ms
      : typeof info?.duration === "number"
        ? info.duration * 1000
        : null;
  return {
    listenedAt: typeof listen.listened_at === "number" ? listen.listened_at : null,
    artistName: metadata.artist_name as string,
    trackName: metadata.track_name as string,
    releaseName: typeof metadata.release_name === "string" ? metadata.release_name : null,
    durationMs,
  };
}

const LISTEN_TYPES: readonly ListenType[] = ["single", "import", "playing_now"];

/**
 * Checks a submit-listens body (the raw bytes' length and the parsed document) as ListenBrainz
 * does, and returns the listens or the first refusal.
 */
export function validateSubmission(
  rawLength: number,
  document: unknown,
): ValidSubmission | SubmissionError {
  if (!isObject(document)) {
    return {
      ok: false,
      message:
        "Invalid JSON document submitted. Top level of JSON document should be a json object.",
    };
  }
  if (!("payload" in document)) return { ok: false, message: "Invalid JSON document submitted." };
  const payload = document.payload;
  if (!Array.isArray(payload)) {
    return { ok: false, message: "The payload in the JSON document should be a list of listens." };
  }
  if (payload.length === 0) {
    return { ok: false, message: "JSON document does not contain any listens" };
  }
  if (payload.length > MAX_LISTENS_PER_REQUEST) {
    return {
      ok: false,
      message: `Too many listens. You may not submit more than ${MAX_LISTENS_PER_REQUEST} listens at once.`,
    };
  }
  if (rawLength > payload.length * MAX_LISTEN_SIZE) {
    return {
      ok: false,
      message: `JSON document is too large. Each listens may not be larger than ${MAX_LISTEN_SIZE} bytes.`,
    };
  }
  if (!("listen_type" in document)) {
    return { ok: false, message: "Invalid JSON document submitted." };
  }
  const listenType = LISTEN_TYPES.find((type) => type === document.listen_type);
  if (!listenType) return { ok: false, message: "JSON document requires a valid listen_type key." };
  if (listenType !== "import" && payload.length > 1) {
    return {
      ok: false,
      message:
        "JSON document contains more than listen for a single/playing_now. It should contain only one.",
    };
  }
  const listens: ValidListen[] = [];
  for (const listen of payload) {
    try {
      listens.push(validateListen(listen, listenType));
    } catch (error) {
      if (!(error instanceof ListenValidationError)) throw error;
      return { ok: false, message: error.message, payload: error.payload };
    }
  }
  return { ok: true, listenType, listens };
}
