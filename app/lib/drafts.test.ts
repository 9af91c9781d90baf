import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clearAllDrafts, clearDraft, draftKey, readDraft, writeDraft } from "./drafts";

/** The Web Storage interface over a Map (Node has no localStorage of its own). */
class MapStorage implements Storage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear() {
    this.items.clear();
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  key(index: number) {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
  setItem(key: string, value: string) {
    this.items.set(key, String(value));
  }
}

const localStorage = new MapStorage();
// A `window` for these tests only: the shared project's next file runs in this process, and a
// `window` left behind makes libraries take Node for a browser (PGlite then fails to start).
beforeAll(() => {
  Object.assign(globalThis, { window: { localStorage } });
});
afterAll(() => {
  Reflect.deleteProperty(globalThis, "window");
});

describe("drafts on this device", () => {
  beforeEach(() => localStorage.clear());

  it("keeps a draft until it is cleared, and only the fields asked for", () => {
    const key = draftKey("comment", "post-1");
    writeDraft(key, { content: "So good", clientId: "abc", extra: 1 });
    expect(readDraft(key, ["content", "clientId"])).toEqual({
      content: "So good",
      clientId: "abc",
    });
    clearDraft(key);
    expect(readDraft(key, ["content"])).toBeNull();
  });

  it("reads nothing from what is not a draft", () => {
    localStorage.setItem(draftKey("post", "new"), "{not json");
    expect(readDraft(draftKey("post", "new"), ["title"])).toBeNull();
    localStorage.setItem(draftKey("post", "new"), "[1,2]");
    expect(readDraft(draftKey("post", "new"), ["title"])).toBeNull();
    localStorage.setItem(draftKey("post", "new"), "null");
    expect(readDraft(draftKey("post", "new"), ["title"])).toBeNull();
  });

  it("forgets every draft, and nothing else, on sign-out", () => {
    writeDraft(draftKey("post", "new"), { title: "A" });
    writeDraft(draftKey("comment", "p"), { content: "B" });
    localStorage.setItem("color-mode", "dark");
    clearAllDrafts();
    expect(localStorage.length).toBe(1);
    expect(localStorage.getItem("color-mode")).toBe("dark");
  });
});
