/**
 * Drafts of posts and comments kept on this device (localStorage), so a reload or a lost
 * connection never loses what was typed; cleared when the send succeeds (ADR 037). Storage may
 * be full, disabled or hold something unreadable: a draft is then simply not kept.
 */

const PREFIX = "soundtrail:draft:";

export function draftKey(kind: "post" | "comment", scope: string): string {
  return `${PREFIX}${kind}:${scope}`;
}

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

/** The draft stored under `key`, when it is an object whose string fields are all strings. */
export function readDraft<T extends Record<string, unknown>>(
  key: string,
  fields: readonly (keyof T & string)[],
): Partial<T> | null {
  const raw = storage()?.getItem(key);
  if (!raw) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const draft: Record<string, unknown> = {};
  for (const field of fields) {
    const value = (parsed as Record<string, unknown>)[field];
    if (value !== undefined) draft[field] = value;
  }
  return draft as Partial<T>;
}

export function writeDraft(key: string, draft: Record<string, unknown>): void {
  try {
    storage()?.setItem(key, JSON.stringify(draft));
  } catch {
    // full or disabled: the draft is not kept
  }
}

export function clearDraft(key: string): void {
  try {
    storage()?.removeItem(key);
  } catch {
    // disabled storage holds nothing to clear
  }
}

/** Forgets every draft on this device (on sign-out: another person may use it next). */
export function clearAllDrafts(): void {
  const store = storage();
  if (!store) return;
  try {
    const keys: string[] = [];
    for (let i = 0; i < store.length; i++) {
      const key = store.key(i);
      if (key?.startsWith(PREFIX)) keys.push(key);
    }
    for (const key of keys) store.removeItem(key);
  } catch {
    // nothing to clear
  }
}
