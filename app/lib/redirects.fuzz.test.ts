import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideRedirect, loginUrlFor, safeRedirectPath } from "./redirects";

/*
 * Property tests for the open-redirect guard (issue 11, item 3): whatever string a visitor
 * puts in `redirectTo`, what comes back stays on this origin — checked the way a browser reads
 * a Location header, against more than one base.
 */

const BASES = [process.env.BASE_URL ?? "http://localhost:3000", "https://soundtrail.example"];

function staysOnSite(path: string): boolean {
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return false;
  return BASES.every((base) => new URL(path, base).origin === new URL(base).origin);
}

/** Strings built from the pieces that open redirects are made of. */
const tricky = fc
  .array(
    fc.constantFrom(
      "/",
      "\\",
      ".",
      "..",
      "%2e",
      "%2E",
      "%2f",
      "%5c",
      "%09",
      "\t",
      "\n",
      "\r",
      " ",
      "\u0000",
      "\u3002",
      "evil.example",
      "@",
      ":",
      "?",
      "#",
      "http:",
      "https:",
      "javascript:",
      "//",
      "a",
      "feed",
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

const inputs = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.webPath(),
  fc.webUrl(),
  tricky,
  tricky.map((s) => `/${s}`),
);

describe("safeRedirectPath under arbitrary input", () => {
  it("returns null or a path that stays on this origin", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const result = safeRedirectPath(input);
        return result === null || staysOnSite(result);
      }),
      { numRuns: 20_000 },
    );
  });

  it("is stable: what it returns, it returns unchanged", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const result = safeRedirectPath(input);
        return result === null || safeRedirectPath(result) === result;
      }),
      { numRuns: 5_000 },
    );
  });

  it("never hands a signed-in visitor a destination off this origin", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const search = `?${new URLSearchParams({ redirectTo: input })}`;
        const to = decideRedirect({ pathname: "/auth/login", search, viewer: { isAdmin: false } });
        const login = loginUrlFor(input);
        return to !== null && staysOnSite(to) && staysOnSite(login);
      }),
      { numRuns: 5_000 },
    );
  });

  it.each([
    "/.//evil.example",
    "/..//evil.example",
    "/%2e//evil.example",
    "/a/..//evil.example/x",
    "/./\\evil.example",
    "/%2E%2E//evil.example",
  ])("refuses %s, whose normalised form is protocol-relative", (input) => {
    expect(safeRedirectPath(input)).toBeNull();
  });
});
