import { describe, expect, it } from "vitest";
import { lazyModule, loadPg, loadSharp } from "./lazy-module.server";

describe("lazyModule", () => {
  it("loads once, on the first call, and gives every caller the same module", async () => {
    let loads = 0;
    const load = lazyModule(async () => {
      loads++;
      return { name: "module" };
    });
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(await load()).toBe(a);
    expect(loads).toBe(1);
  });

  it("tries again after a failed import instead of keeping the failure", async () => {
    let loads = 0;
    const load = lazyModule(async () => {
      loads++;
      if (loads === 1) throw new Error("not there yet");
      return "module";
    });
    await expect(load()).rejects.toThrow("not there yet");
    expect(await load()).toBe("module");
    expect(loads).toBe(2);
  });

  it("loads the real packages it names", async () => {
    expect(typeof (await loadSharp())).toBe("function");
    expect(typeof (await loadPg()).Pool).toBe("function");
  });
});
