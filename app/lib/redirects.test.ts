import { describe, expect, it } from "vitest";
import { decideRedirect, loginUrlFor, safeRedirectPath } from "./redirects";

const signedOut = null;
const member = { isAdmin: false };
const admin = { isAdmin: true };

describe("redirect rules (spec §2)", () => {
  it.each([
    // signed-in users skip the landing and auth entry pages
    ["/", "", member, "/feed"],
    ["/auth/login", "", member, "/feed"],
    ["/auth/signup", "", admin, "/feed"],
    ["/auth/confirm", "?token=abc", member, "/feed"],
    ["/auth/login", "?redirectTo=%2Fprofile", member, "/profile"],
    ["/auth/login", "?redirectTo=https%3A%2F%2Fevil.example", member, "/feed"],
    ["/auth/login", "?redirectTo=%2Fauth%2Flogin", member, "/feed"],
    // other auth pages stay reachable when signed in
    ["/auth/reset-password", "", member, null],
    ["/feed", "", member, null],
    ["/profile", "", member, null],
    ["/post/42", "", member, null],
    // admin area
    ["/admin", "", member, "/feed"],
    ["/admin/users", "", member, "/feed"],
    ["/admin", "", admin, null],
    ["/admin", "", signedOut, "/auth/login?redirectTo=%2Fadmin"],
    // signed-out visitors
    ["/", "", signedOut, null],
    ["/feed", "", signedOut, null],
    ["/auth/login", "", signedOut, null],
    ["/auth/anything/else", "", signedOut, null],
    ["/profile", "", signedOut, "/auth/login?redirectTo=%2Fprofile"],
    ["/search", "?q=jazz", signedOut, "/auth/login?redirectTo=%2Fsearch%3Fq%3Djazz"],
    ["/notifications", "", signedOut, "/auth/login?redirectTo=%2Fnotifications"],
    ["/chatbot", "", signedOut, "/auth/login?redirectTo=%2Fchatbot"],
    ["/settings", "", signedOut, "/auth/login?redirectTo=%2Fsettings"],
    // shared posts and profiles too: the sign-in page previews them (spec §2)
    ["/post/abc", "", signedOut, "/auth/login?redirectTo=%2Fpost%2Fabc"],
    ["/post/does-not-exist", "", signedOut, "/auth/login?redirectTo=%2Fpost%2Fdoes-not-exist"],
    ["/u/ana", "", signedOut, "/auth/login?redirectTo=%2Fu%2Fana"],
    ["/u/ana/followers", "", signedOut, "/auth/login?redirectTo=%2Fu%2Fana%2Ffollowers"],
    ["/post/abc/edit", "", signedOut, "/auth/login?redirectTo=%2Fpost%2Fabc%2Fedit"],
    ["/posts", "", signedOut, "/auth/login?redirectTo=%2Fposts"],
    ["/user/ana", "", signedOut, "/auth/login?redirectTo=%2Fuser%2Fana"],
    ["/feeds", "", signedOut, "/auth/login?redirectTo=%2Ffeeds"],
  ] as const)("%s%s as %o → %s", (pathname, search, viewer, expected) => {
    expect(decideRedirect({ pathname, search, viewer })).toBe(expected);
  });
});

describe("safeRedirectPath", () => {
  it.each([
    ["/profile", "/profile"],
    ["/search?q=a%20b#top", "/search?q=a%20b#top"],
    ["/a/../admin", "/admin"],
  ])("keeps the same-site path %s", (input, expected) => {
    expect(safeRedirectPath(input)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "//evil.example/path",
    "/\\evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "/\tevil",
    " /profile",
    "profile",
    "",
    null,
    undefined,
  ])("refuses %s", (input) => {
    expect(safeRedirectPath(input)).toBeNull();
  });

  it("builds login URLs that remember only safe destinations", () => {
    expect(loginUrlFor("/settings")).toBe("/auth/login?redirectTo=%2Fsettings");
    expect(loginUrlFor("//evil.example")).toBe("/auth/login");
    expect(loginUrlFor("/feed")).toBe("/auth/login");
  });
});
