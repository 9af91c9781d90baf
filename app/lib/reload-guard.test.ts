import { describe, expect, it } from "vitest";
import { RELOAD_GUARD_MS, reloadOnce } from "./reload-guard";

function memoryStorage() {
  const map = new Map<string, string>();
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
  };
}

describe("reloading after a failed lazy route load", () => {
  it("reloads once, then not again within 10 s, then again afterwards", () => {
    const storage = memoryStorage();
    let reloads = 0;
    const reload = () => {
      reloads++;
    };
    expect(reloadOnce(storage, reload, 1_000_000)).toBe(true);
    expect(reloadOnce(storage, reload, 1_000_000 + RELOAD_GUARD_MS - 1)).toBe(false);
    expect(reloads).toBe(1);
    expect(reloadOnce(storage, reload, 1_000_000 + RELOAD_GUARD_MS)).toBe(true);
    expect(reloads).toBe(2);
  });
});
