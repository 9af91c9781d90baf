const KEY = "soundtrail:last-reload";
/** Spec §9: a failed lazy route load reloads the page at most once per 10 s. */
export const RELOAD_GUARD_MS = 10_000;

/** Reloads the page unless it already did so within the guard window. Returns whether it did. */
export function reloadOnce(
  storage: Pick<Storage, "getItem" | "setItem"> = window.sessionStorage,
  reload: () => void = () => window.location.reload(),
  now = Date.now(),
): boolean {
  const last = Number(storage.getItem(KEY) ?? 0);
  if (now - last < RELOAD_GUARD_MS) return false;
  storage.setItem(KEY, String(now));
  reload();
  return true;
}
