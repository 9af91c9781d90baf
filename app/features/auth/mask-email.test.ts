import { describe, expect, it } from "vitest";
import { maskEmail } from "./account-changes.server";

describe("maskEmail (the new address as the old one is told of it)", () => {
  it("keeps two letters and the domain", () => {
    expect(maskEmail("newname@example.org")).toBe("ne•••@example.org");
    expect(maskEmail("a@example.org")).toBe("a•••@example.org");
  });

  it("never echoes something that is not an address", () => {
    expect(maskEmail("no-at-sign")).toBe("another address");
    expect(maskEmail("@example.org")).toBe("another address");
  });
});
