import { isUuid } from "~/core/ids";

/**
 * Keyset cursors of the search lists: the sort values of the last row shown, as base64url JSON.
 * Decoding checks every field; anything that is not one of ours restarts at the first page.
 */
export function encodeSearchCursor(values: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

function decodeValues(raw: string | null | undefined): unknown[] | null {
  if (!raw || raw.length > 1200) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** (score, id): people by relevance. */
export function decodeScoreCursor(raw: string | null | undefined) {
  const v = decodeValues(raw);
  if (v?.length !== 2) return null;
  const [score, id] = v;
  if (!isFiniteNumber(score) || typeof id !== "string" || id.length > 200) return null;
  return { score, id };
}

/** (rank, createdAt, id): posts by relevance then recency; rank 0 for lists by time only. */
export function decodePostCursor(raw: string | null | undefined) {
  const v = decodeValues(raw);
  if (v?.length !== 3) return null;
  const [rank, createdAt, id] = v;
  if (!isFiniteNumber(rank) || typeof createdAt !== "string" || !ISO_MS.test(createdAt)) {
    return null;
  }
  if (Number.isNaN(Date.parse(createdAt)) || typeof id !== "string" || !isUuid(id)) return null;
  return { rank, createdAt, id };
}

/** (count, key): groups (tags, artists …) by how many posts, then by name. */
export function decodeCountCursor(raw: string | null | undefined) {
  const v = decodeValues(raw);
  if (v?.length !== 2) return null;
  const [count, key] = v;
  if (!Number.isInteger(count) || typeof key !== "string" || key.length > 1000) return null;
  return { count: count as number, key };
}
