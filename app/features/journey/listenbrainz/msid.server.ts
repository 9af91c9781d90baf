import { createHash } from "node:crypto";

/**
 * The namespace of Soundtrail's recording MSIDs (a fixed random UUID): a name-based UUID in it
 * never equals one made for anything else.
 */
const MSID_NAMESPACE = "0b2c6f5e-7a9d-4c1e-9f3b-5d8a2e4c6b10";

const NAMESPACE_BYTES = Buffer.from(MSID_NAMESPACE.replaceAll("-", ""), "hex");

/**
 * A listen's `recording_msid` (ADR 033): a name-based UUID (version 5, RFC 9562) of the names it
 * is stored with, lower-cased, as MessyBrainz keys a recording by what was submitted. The same
 * artist, track and release give the same MSID for every listen and every person, as on
 * ListenBrainz; it is computed, never stored, so the history needs no column and no backfill.
 */
export function recordingMsid(listen: {
  artistName: string;
  trackName: string;
  releaseName: string | null;
}): string {
  const name = JSON.stringify([
    listen.artistName.toLowerCase(),
    listen.trackName.toLowerCase(),
    (listen.releaseName ?? "").toLowerCase(),
  ]);
  const hash = createHash("sha1").update(NAMESPACE_BYTES).update(name, "utf8").digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** ListenBrainz's `is_valid_uuid` (Python's `uuid.UUID(u)`: hyphens optional, any case). */
export function isValidUuid(value: unknown): value is string {
  return (
    typeof value === "string" &&
    UUID.test(
      value
        .trim()
        .replace(/^\{|\}$/g, "")
        .replace(/^urn:uuid:/i, ""),
    )
  );
}

/** A UUID in its canonical form (lower case, hyphenated). */
export function canonicalUuid(value: string): string {
  const hex = value
    .trim()
    .replace(/^\{|\}$/g, "")
    .replace(/^urn:uuid:/i, "")
    .replaceAll("-", "")
    .toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
