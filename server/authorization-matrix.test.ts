import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { comments, posts } from "~/db/schema";
import routes from "~/routes";
import {
  insertAccounts,
  type LiveAccount,
  type LiveServer,
  signIn,
  signInAsGuest,
  startLiveServer,
} from "../tests/support/live-server";

/*
 * The authorization matrix: every route in app/routes.ts — its loader as a document request,
 * its action as a form POST, resource routes alike — asked by someone signed out, a guest, a
 * member, a banned member, an admin, and for things somebody owns, by the owner and by someone
 * else. What each should get is one declarative table keyed by route file (POLICIES); a route
 * in the table of routes without an entry fails the suite, so a new route cannot be forgotten.
 * Never a 5xx anywhere. Runs the production server on a fresh PGlite (real middleware, real
 * sessions, real guards).
 */

type Role = "signedOut" | "banned" | "guest" | "other" | "admin" | "owner";
/** Run in this order: the owner last, so refused attempts by the others come first. */
const ROLES: Role[] = ["signedOut", "banned", "guest", "other", "admin", "owner"];

/**
 * What came back: `ok` (2xx), `login` (redirect to sign-in), `feed` (redirect to /feed),
 * `redirect` (any other redirect), else the status code.
 */
type Outcome = "ok" | "login" | "feed" | "redirect" | `${number}`;
type Expect = Outcome | Outcome[];
type PerRole = Partial<Record<Role, Expect>>;

interface Ids {
  post: string;
  sparePost: string;
  hiddenPost: string;
  ownerComment: string;
  spareComment: string;
  /** A second session of the other member's, which nobody else may end. */
  otherSession: string;
  owner: LiveAccount;
  other: LiveAccount;
}

interface ActionCase {
  name: string;
  /** Form fields (url-encoded) or a JSON body. */
  body: (ids: Ids, role: Role) => Record<string, string> | { json: unknown };
  expect: PerRole;
}

interface Policy {
  /** The default for this kind of route: expected answers of GET and of a POST. */
  kind: "public-page" | "auth-page" | "app-page" | "admin-page" | "resource" | "absent";
  /** Overrides the URL sampled from the pattern. */
  url?: (ids: Ids) => string;
  get?: PerRole;
  actions?: ActionCase[];
  /** Why a route has no action case although it exports an action, or other notes. */
  note?: string;
}

const SIGNED_IN: Role[] = ["guest", "other", "admin", "owner"];
const MEMBERS: Role[] = ["other", "admin", "owner"];
const all = (outcome: Expect, roles: Role[] = ROLES): PerRole =>
  Object.fromEntries(roles.map((r) => [r, outcome]));
const ANY: Expect = ["ok", "login", "feed", "redirect", "400", "401", "403", "404", "405"];
/** Signed out and banned (a banned account's session counts for nothing). */
const OUT = (outcome: Expect): PerRole => ({ signedOut: outcome, banned: outcome });

const DEFAULT_GET: Record<Policy["kind"], PerRole> = {
  "public-page": { ...OUT("ok"), ...all("ok", SIGNED_IN) },
  "auth-page": { ...OUT(["ok", "redirect", "login", "400", "404"]), ...all(ANY, SIGNED_IN) },
  "app-page": { ...OUT("login"), ...all("ok", SIGNED_IN) },
  "admin-page": { ...OUT("login"), ...all("feed", ["guest", "other", "owner"]), admin: "ok" },
  resource: all(ANY),
  absent: all("404"),
};

/** An admin mutation: 401 signed out, 403 without the role, answered for an admin. */
const ADMIN_ACTION: PerRole = {
  ...OUT("401"),
  ...all("403", ["guest", "other", "owner"]),
  admin: ["ok", "redirect", "400", "404"],
};
/** A signed-in mutation in the app area: the redirect rule sends signed-out visitors to sign in. */
const APP_ACTION = (signedIn: Expect): PerRole => ({
  ...OUT("login"),
  ...all(signedIn, SIGNED_IN),
});
const NONE = "00000000-0000-4000-8000-000000000000";

const POLICIES: Record<string, Policy> = {
  "routes/_landing/layout.tsx": { kind: "public-page", note: "layout of /" },
  "routes/_landing/home.tsx": {
    kind: "public-page",
    get: { ...OUT("ok"), ...all("feed", SIGNED_IN) },
  },
  "routes/_auth/layout.tsx": { kind: "auth-page", note: "layout of /auth/*" },
  "routes/_auth/index.tsx": { kind: "auth-page" },
  "routes/_auth/login.tsx": {
    kind: "auth-page",
    get: { ...OUT("ok"), ...all("feed", SIGNED_IN) },
    actions: [
      {
        name: "a wrong password",
        body: (ids) => ({ intent: "password", email: ids.owner.email, password: "not-it-1977" }),
        // Signed in, the sign-in page is an entry page: the redirect rule sends you to /feed.
        expect: { ...OUT(["400", "401", "403", "429"]), ...all("feed", SIGNED_IN) },
      },
    ],
  },
  "routes/_auth/signup.tsx": {
    kind: "auth-page",
    get: { ...OUT("ok"), ...all("feed", SIGNED_IN) },
    actions: [
      {
        name: "an empty form",
        body: () => ({}),
        expect: all(["400", "feed"]),
      },
    ],
  },
  "routes/_auth/confirm.tsx": {
    kind: "auth-page",
    actions: [{ name: "a wrong code", body: () => ({ code: "000000" }), expect: all(ANY) }],
  },
  "routes/_auth/two-factor.tsx": {
    kind: "auth-page",
    actions: [{ name: "a wrong code", body: () => ({ code: "000000" }), expect: all(ANY) }],
  },
  "routes/_auth/forgot-password.tsx": {
    kind: "auth-page",
    actions: [{ name: "no address", body: () => ({}), expect: all(ANY) }],
  },
  "routes/_auth/reset-password.tsx": {
    kind: "auth-page",
    actions: [
      {
        name: "a forged token",
        body: () => ({ token: "forged", password: "Another-Pass-1977!", confirm: "x" }),
        expect: all(ANY),
      },
    ],
  },
  "routes/_auth/upgrade.tsx": {
    kind: "auth-page",
    get: { ...OUT("login"), guest: "ok", ...all("redirect", MEMBERS) },
    actions: [
      {
        name: "an empty form",
        body: () => ({}),
        expect: { ...OUT("login"), guest: "400", ...all(["redirect", "400"], MEMBERS) },
      },
    ],
  },
  "routes/_auth/logout.tsx": {
    kind: "auth-page",
    note: "a GET never signs anyone out; the POST is checked by the sign-out tests",
    get: all(ANY),
  },
  "routes/_auth/not-found.tsx": { kind: "auth-page", get: all("404") },

  "routes/_app/layout.tsx": { kind: "app-page", note: "layout of the app area" },
  "routes/_app/setup.tsx": {
    kind: "app-page",
    note: "the one-time setup link; the sampled token is never the current one",
    actions: [
      {
        // A wrong link answers the page with its reason; only the current one redirects to /admin.
        name: "become the administrator with a link that is not the current one",
        body: () => ({}),
        expect: APP_ACTION("ok"),
      },
    ],
  },
  "routes/not-found.tsx": { kind: "absent", note: "any unknown path, inside the app's shell" },
  "routes/_app/feed.tsx": {
    kind: "app-page",
    get: { ...OUT("ok"), ...all("ok", SIGNED_IN) },
    actions: [
      {
        name: "a post without a title",
        body: () => ({ kind: "track", title: "", audience: "everyone" }),
        expect: APP_ACTION("400"),
      },
    ],
  },
  "routes/_app/post.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "delete someone's comment",
        body: (ids, role) => ({
          intent: "delete-comment",
          commentId: role === "owner" ? ids.spareComment : ids.ownerComment,
        }),
        // Someone else's comment is "not found" for them; the state check below proves it
        // is still there.
        expect: { ...OUT("login"), ...all("404", ["guest", "other", "admin"]), owner: "ok" },
      },
      {
        name: "edit someone's comment",
        body: (ids, role) => ({
          intent: "edit-comment",
          commentId: ids.ownerComment,
          content: role === "owner" ? COMMENT : "overwritten by someone else",
        }),
        expect: { ...OUT("login"), ...all("404", ["guest", "other", "admin"]), owner: "ok" },
      },
      {
        name: "delete someone's post",
        body: (ids, role) => ({
          intent: "delete-post",
          _post: role === "owner" ? ids.sparePost : ids.post,
        }),
        // Refused with an error toast back on the post; the owner lands on the feed.
        expect: { ...OUT("login"), ...all("redirect", ["guest", "other", "admin"]), owner: "feed" },
      },
    ],
  },
  "routes/_app/post-edit.tsx": {
    kind: "app-page",
    get: { ...OUT("login"), ...all("404", ["guest", "other", "admin"]), owner: "ok" },
    actions: [
      {
        name: "rename the post",
        body: (_ids, role) => ({
          kind: "track",
          title: role === "owner" ? TITLE : "Renamed by someone else",
          artist: "Owner Band",
          audience: "everyone",
        }),
        expect: { ...OUT("login"), ...all("404", ["guest", "other", "admin"]), owner: "redirect" },
      },
    ],
  },
  "routes/_app/user.tsx": { kind: "app-page" },
  "routes/_app/user-people.tsx": { kind: "app-page" },
  "routes/_app/user-journey.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "title a chapter that is not theirs",
        body: () => ({ intent: "chapter", chapterId: NONE, title: "Mine now" }),
        expect: APP_ACTION("404"),
      },
      {
        // Someone else's card is refused; the owner's own has no plays to draw here.
        name: "post a recap card",
        body: () => ({ intent: "recap-post", audience: "everyone", period: "week" }),
        expect: APP_ACTION("404"),
      },
      { name: "an empty form", body: () => ({}), expect: APP_ACTION("400") },
    ],
    note: "the page answers 200 to anyone signed in; who sees the journey itself (audience, blocks, hidden artists) is in app/features/journey/stats.test.ts",
  },
  "routes/_app/profile.tsx": { kind: "app-page" },
  "routes/_app/search.tsx": { kind: "app-page" },
  "routes/_app/notifications.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "mark all read",
        body: () => ({ intent: "read-all" }),
        expect: APP_ACTION(["ok", "redirect"]),
      },
    ],
  },
  "routes/_app/chatbot.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "delete a conversation that is not theirs",
        body: () => ({ intent: "delete", conversationId: NONE }),
        expect: APP_ACTION("404"),
      },
      {
        name: "rename a conversation that is not theirs",
        body: () => ({ intent: "rename", conversationId: NONE, title: "Mine now" }),
        expect: APP_ACTION("404"),
      },
    ],
  },
  "routes/_app/settings.tsx": {
    kind: "app-page",
    get: { ...OUT("login"), ...all(["ok", "redirect"], SIGNED_IN) },
  },
  "routes/_app/settings-index.tsx": {
    kind: "app-page",
    get: { ...OUT("login"), ...all(["ok", "redirect"], SIGNED_IN) },
  },
  "routes/_app/settings-profile.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "an overlong display name",
        body: () => ({ displayName: "x".repeat(500) }),
        expect: APP_ACTION(["400", "ok", "redirect"]),
      },
    ],
  },
  "routes/_app/settings-account.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "delete the account without the password",
        body: () => ({ intent: "delete" }),
        expect: APP_ACTION(["400", "401", "403", "ok"]),
      },
    ],
  },
  "routes/_app/settings-security.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "end someone else's session",
        // The other member asks to end a session that is not theirs either (their own would
        // sign them out for the rest of the matrix); the state check below proves it lives.
        body: (ids, role) => ({
          intent: "revoke-session",
          sessionId: role === "other" ? "someone-elses-session" : ids.otherSession,
        }),
        expect: APP_ACTION(["400", "403", "404", "ok", "redirect"]),
      },
    ],
  },
  "routes/_app/settings-notifications.tsx": {
    kind: "app-page",
    actions: [
      { name: "an empty form", body: () => ({}), expect: APP_ACTION(["ok", "redirect", "400"]) },
    ],
  },
  "routes/_app/settings-privacy.tsx": {
    kind: "app-page",
    actions: [
      { name: "an empty form", body: () => ({}), expect: APP_ACTION(["ok", "redirect", "400"]) },
    ],
  },
  "routes/_app/settings-scrobbling.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "revoke a token that is not theirs",
        body: () => ({ intent: "revoke", tokenId: NONE }),
        expect: APP_ACTION("redirect"),
      },
      {
        name: "a token without a name",
        body: () => ({ intent: "create", name: "  " }),
        expect: APP_ACTION("400"),
      },
    ],
    note: "revoking another person's real token is refused in listenbrainz.test.ts",
  },
  "routes/_app/settings-listening.tsx": {
    kind: "app-page",
    actions: [
      {
        name: "confirm an import that is not theirs",
        body: () => ({ intent: "confirm", importId: NONE }),
        expect: APP_ACTION("404"),
      },
      {
        name: "an empty form",
        body: () => ({}),
        expect: APP_ACTION("400"),
      },
    ],
    note: "another person's real import answering 404 is in app/features/journey/import.test.ts",
  },
  "routes/_app/settings-data.tsx": { kind: "app-page" },
  "routes/_app/settings-appearance.tsx": { kind: "app-page" },
  "routes/_app/settings-data-export.tsx": {
    kind: "app-page",
    note: "exports the viewer's own data only; it takes no id",
  },
  "routes/_app/settings-data-archive.tsx": {
    kind: "app-page",
    get: { ...OUT("login"), ...all("404", SIGNED_IN) },
    note: "an export id nobody has; another person's real export answering 404 is in app/features/settings/export-archive.test.ts",
  },
  "routes/_app/confirm-email.tsx": {
    kind: "app-page",
    get: { ...OUT("login"), ...all(["400", "401", "403", "404"], SIGNED_IN) },
  },
  "routes/_app/admin/layout.tsx": { kind: "admin-page" },
  "routes/_app/admin/statistics.tsx": { kind: "admin-page" },
  "routes/_app/admin/comments.tsx": {
    kind: "admin-page",
    actions: [
      {
        name: "delete a comment",
        body: () => ({ intent: "delete", commentId: NONE, reason: "x" }),
        expect: ADMIN_ACTION,
      },
    ],
  },
  "routes/_app/admin/users.tsx": {
    kind: "admin-page",
    actions: [
      {
        name: "ban a member",
        // The admin unbans (a no-op) so the other member stays usable; everyone else tries a ban.
        body: (ids, role) =>
          role === "admin"
            ? { intent: "unban", userId: ids.other.id, reason: "" }
            : { intent: "ban", userId: ids.other.id, reason: "matrix" },
        expect: ADMIN_ACTION,
      },
    ],
  },
  "routes/_app/admin/reports.tsx": {
    kind: "admin-page",
    actions: [
      {
        name: "resolve a report",
        body: () => ({ intent: "resolve", reportId: NONE }),
        expect: ADMIN_ACTION,
      },
    ],
  },
  "routes/_app/admin/audit.tsx": { kind: "admin-page" },
  "routes/_app/admin/jobs.tsx": {
    kind: "admin-page",
    actions: [
      {
        name: "retry a job",
        body: () => ({ intent: "retry", jobId: "999999999" }),
        expect: ADMIN_ACTION,
      },
    ],
  },
  "routes/_app/admin/email.tsx": {
    kind: "admin-page",
    actions: [
      {
        name: "send a campaign",
        body: () => ({ json: { subject: "S", html: "B", audience: "selected", userIds: [] } }),
        expect: ADMIN_ACTION,
      },
    ],
  },
  "routes/unsubscribe.tsx": {
    kind: "resource",
    note: "authorised by its signed token, not a session (RFC 8058 one-click)",
    get: all(["400", "ok"]),
    actions: [
      { name: "a forged token", body: () => ({ token: "forged" }), expect: all(["400", "ok"]) },
    ],
  },
  "routes/bench-fixture.tsx": { kind: "absent", note: "exists only under SOUNDTRAIL_BENCH=1" },
  "routes/bench-floor.tsx": { kind: "absent", note: "exists only under SOUNDTRAIL_BENCH=1" },
  "routes/api/color-mode.ts": {
    kind: "resource",
    note: "a preference cookie, for anyone",
    get: all(["405", "404", "400"]),
    actions: [
      { name: "dark", body: () => ({ mode: "dark" }), expect: all(["ok", "redirect", "204"]) },
    ],
  },
  "routes/api/listening-now.ts": {
    kind: "resource",
    note: "friends' now playing as JSON; nobody for someone signed out",
    get: all("ok"),
  },
  "routes/api/events.ts": {
    kind: "resource",
    get: { ...OUT("401"), ...all("ok", SIGNED_IN) },
  },
  "routes/api/like.ts": {
    kind: "resource",
    get: all(["405", "404", "400"]),
    actions: [
      {
        name: "like a hidden post",
        body: (ids) => ({ intent: "like", postId: ids.hiddenPost }),
        expect: {
          ...OUT("login"),
          ...all(["404", "redirect"], ["guest", "other", "admin"]),
          owner: ["ok", "redirect"],
        },
      },
    ],
  },
  "routes/api/follow.ts": {
    kind: "resource",
    get: all(["405", "404", "400"]),
    actions: [
      {
        name: "follow the owner",
        body: (ids) => ({ intent: "follow", userId: ids.owner.id }),
        expect: { ...OUT("login"), ...all(["ok", "redirect", "400", "403"], SIGNED_IN) },
      },
    ],
  },
  "routes/api/listens.ts": {
    kind: "resource",
    get: all(["405", "404", "400"]),
    actions: [
      {
        name: "delete a listen that is not there",
        body: (ids) => ({
          intent: "delete",
          ownerId: ids.owner.id,
          ts: "1700000000",
          msid: "0b2c6f5e-7a9d-5c1e-9f3b-5d8a2e4c6b10",
        }),
        expect: { ...OUT("login"), ...all(["404", "redirect"], SIGNED_IN) },
      },
      {
        name: "love a listen of the owner's hidden journey",
        body: (ids) => ({
          intent: "love",
          ownerId: ids.owner.id,
          ts: "1700000000",
          msid: "0b2c6f5e-7a9d-5c1e-9f3b-5d8a2e4c6b10",
        }),
        expect: { ...OUT("login"), ...all(["404", "redirect"], SIGNED_IN) },
      },
    ],
  },
  "routes/api/block.ts": {
    kind: "resource",
    get: all(["405", "404", "400"]),
    actions: [
      {
        name: "an unknown person",
        body: () => ({ intent: "block", userId: "nobody-at-all" }),
        expect: { ...OUT("login"), ...all(["404", "400", "redirect"], SIGNED_IN) },
      },
    ],
  },
  "routes/api/report.ts": {
    kind: "resource",
    get: all(["405", "404", "400"]),
    actions: [
      {
        name: "report a hidden post",
        body: (ids) => ({ postId: ids.hiddenPost, reason: "spam" }),
        expect: { ...OUT("login"), ...all(["404", "400", "redirect", "ok"], SIGNED_IN) },
      },
    ],
  },
  "routes/api/assistant.ts": {
    kind: "resource",
    get: all(["405", "404", "400"]),
    actions: [
      {
        name: "a message to a conversation that is not theirs",
        body: () => ({ message: "my top artists", conversationId: NONE }),
        expect: { ...OUT("401"), ...all("404", SIGNED_IN) },
      },
    ],
  },
  "routes/api/music-suggest.ts": {
    kind: "resource",
    url: () => "/api/music-suggest?field=artist&q=ow",
    get: { ...OUT("401"), ...all("ok", SIGNED_IN) },
  },
  "routes/media.ts": {
    kind: "resource",
    get: all("404"),
    note: "images of posts the viewer may not see are 404 (media.test.ts)",
  },
  "routes/art.ts": {
    kind: "resource",
    url: () => "/art/0123456789abcdef.svg",
    get: all("ok"),
    note: "generated artwork: a picture from a seed, the same for everyone (cover.test.ts)",
  },
  "routes/journey-recap.ts": {
    kind: "resource",
    url: (ids) => `/u/${ids.owner.username}/journey/recap.png?period=week`,
    // The owner has no plays here (a 404 with "No plays in this period"); the others are refused
    // by the default followers audience. Cards, audiences and recaps off: recap.test.ts.
    get: all("404"),
    note: "recap cards follow the journey audience and the recaps switch (recap.test.ts)",
  },
  "routes/api/auth-callback.ts": {
    kind: "resource",
    get: all(["redirect", "login", "400", "404"]),
  },
  "routes/api/feed.ts": {
    kind: "resource",
    get: all("ok"),
    note: "the feed as JSON: signed-out people get the public posts, as on /feed",
  },
  "routes/auth-v1.ts": {
    kind: "resource",
    url: () => "/auth/v1/settings",
    get: all("ok"),
    actions: [
      {
        name: "POST where only GET is served (the token API never reads the cookie)",
        body: () => ({ json: {} }),
        expect: all("405"),
      },
    ],
    note: "the token API (auth-api.test.ts, supabase-client.test.ts): bearer tokens only",
  },
  "routes/listenbrainz-v1.ts": {
    kind: "resource",
    url: () => "/1/submit-listens",
    get: all("405"),
    actions: [
      {
        name: "a submission with the session cookie but no token (cookies never count)",
        body: () => ({ json: { listen_type: "single", payload: [] } }),
        expect: all("401"),
      },
    ],
    note: "the ListenBrainz API: `Authorization: Token <token>` only (listenbrainz.test.ts)",
  },
  "routes/api/send-email-batch.ts": {
    kind: "resource",
    get: all(["405", "404", "400"]),
    actions: [
      {
        name: "a batch",
        body: () => ({ json: { emails: [] } }),
        expect: { ...OUT("401"), ...all("403", ["guest", "other", "owner"]), admin: ["ok", "400"] },
      },
    ],
  },
};

interface RouteEntry {
  id?: string;
  path?: string;
  index?: boolean;
  file: string;
  children?: RouteEntry[];
}

interface FlatRoute {
  file: string;
  /** null for a layout without a path of its own: its loader runs with its children's URLs. */
  pattern: string | null;
}

/** Every route module with the URL pattern it answers (layouts at their own prefix). */
function flatten(entries: RouteEntry[], prefix = ""): FlatRoute[] {
  return entries.flatMap((entry) => {
    const here = entry.path ? `${prefix}/${entry.path}` : prefix;
    const pattern = entry.index
      ? prefix || "/"
      : !entry.path && entry.children
        ? null
        : here || "/";
    return [{ file: entry.file, pattern }, ...flatten(entry.children ?? [], here)];
  });
}

const table = flatten(routes as RouteEntry[]);

function sample(pattern: string, ids: Ids): string {
  return pattern
    .replace(":id/edit", `${ids.post}/edit`)
    .replace("post/:id", `post/${ids.post}`)
    .replace(":id", NONE)
    .replace(":username", ids.owner.username)
    .replace(":list", "followers")
    .replace(":provider", "github")
    .replace("*", "no/such/page");
}

function classify(status: number, location: string | null): Outcome {
  if (status >= 300 && status < 400) {
    if (location?.startsWith("/auth/login")) return "login";
    if (location === "/feed") return "feed";
    return "redirect";
  }
  if (status >= 200 && status < 300) return "ok";
  return `${status}`;
}

const OWNER: LiveAccount = {
  id: "matrix-owner",
  email: "owner@matrix.test",
  username: "matrix_owner",
  displayName: "Olive Owner",
};
const OTHER: LiveAccount = {
  id: "matrix-other",
  email: "other@matrix.test",
  username: "matrix_other",
  displayName: "Otto Other",
};
const ADMIN: LiveAccount = {
  id: "matrix-admin",
  email: "admin@matrix.test",
  username: "matrix_admin",
  displayName: "Ada Admin",
  isAdmin: true,
};
const BANNED: LiveAccount = {
  id: "matrix-banned",
  email: "banned@matrix.test",
  username: "matrix_banned",
  displayName: "Ben Banned",
};
const IDS: Ids = {
  post: "11110000-0000-4000-8000-000000000001",
  sparePost: "11110000-0000-4000-8000-000000000002",
  hiddenPost: "11110000-0000-4000-8000-000000000003",
  ownerComment: "22220000-0000-4000-8000-000000000001",
  spareComment: "22220000-0000-4000-8000-000000000002",
  otherSession: "",
  owner: OWNER,
  other: OTHER,
};
const TITLE = "Olives track";
const COMMENT = "The owners own comment";

describe("authorization matrix (every route in app/routes.ts × who is asking)", () => {
  let server: LiveServer;
  const cookies: Partial<Record<Role, string>> = {};
  let otherSpareCookie = "";
  let ip = 10;
  const nextIp = () => `198.51.100.${ip++}`;

  beforeAll(async () => {
    server = await startLiveServer({
      seed: async (db) => {
        await insertAccounts(db, [OWNER, OTHER, ADMIN, BANNED]);
        await db.insert(posts).values([
          { id: IDS.post, authorId: OWNER.id, kind: "track", title: TITLE, artist: "Owner Band" },
          { id: IDS.sparePost, authorId: OWNER.id, kind: "track", title: "Spare", artist: "B" },
          {
            id: IDS.hiddenPost,
            authorId: OWNER.id,
            kind: "track",
            title: "Only me",
            artist: "B",
            audience: "only_me",
          },
        ]);
        await db.insert(comments).values([
          { commentId: IDS.ownerComment, postId: IDS.post, userId: OWNER.id, content: COMMENT },
          { commentId: IDS.spareComment, postId: IDS.post, userId: OWNER.id, content: "spare" },
        ]);
      },
    });
    cookies.signedOut = "";
    cookies.owner = await signIn(server.base, OWNER.email, nextIp());
    cookies.other = await signIn(server.base, OTHER.email, nextIp());
    cookies.admin = await signIn(server.base, ADMIN.email, nextIp());
    cookies.banned = await signIn(server.base, BANNED.email, nextIp());
    cookies.guest = await signInAsGuest(server.base, nextIp());
    otherSpareCookie = await signIn(server.base, OTHER.email, nextIp());
    const security = await fetch(`${server.base}/settings/security`, {
      headers: { Cookie: cookies.other },
    }).then((r) => r.text());
    IDS.otherSession = /name="sessionId" value="([^"]+)"/.exec(security)?.[1] ?? "";
    expect(IDS.otherSession, "the other member's second session").not.toBe("");
    // The ban takes effect on the banned member's very next request.
    const ban = await fetch(`${server.base}/admin/users`, {
      method: "POST",
      redirect: "manual",
      headers: {
        Cookie: cookies.admin,
        Origin: server.base,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ intent: "ban", userId: BANNED.id, reason: "matrix" }),
    });
    expect(ban.status).toBeLessThan(300);
  }, 420_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function ask(
    role: Role,
    url: string,
    init: { method?: string; body?: Record<string, string> | { json: unknown } } = {},
  ): Promise<{ outcome: Outcome; status: number; location: string | null }> {
    const headers: Record<string, string> = { Origin: server.base, "X-Forwarded-For": nextIp() };
    const cookie = cookies[role];
    if (cookie) headers.Cookie = cookie;
    let body: string | undefined;
    if (init.body && "json" in init.body) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(init.body.json);
    } else if (init.body) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.body as Record<string, string>).toString();
    }
    const controller = new AbortController();
    const response = await fetch(`${server.base}${url}`, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers,
      body,
      signal: controller.signal,
    });
    // Event streams never end: the status and headers are the answer.
    controller.abort();
    const location = response.headers.get("location");
    return { outcome: classify(response.status, location), status: response.status, location };
  }

  it("has a policy for every route, and no policy for a route that is gone", () => {
    const files = new Set(table.map((r) => r.file));
    const missing = [...files].filter((file) => !POLICIES[file]);
    expect(missing, "routes without an entry in POLICIES").toEqual([]);
    const stale = Object.keys(POLICIES).filter((file) => !files.has(file));
    expect(stale, "POLICIES entries for routes that no longer exist").toEqual([]);
  });

  it("answers every loader as the table says, never with a 5xx", async () => {
    const failures: string[] = [];
    for (const route of table) {
      const policy = POLICIES[route.file];
      if (!policy || route.pattern === null) continue;
      const url = policy.url?.(IDS) ?? sample(route.pattern, IDS);
      const expected = { ...DEFAULT_GET[policy.kind], ...policy.get };
      for (const role of ROLES) {
        const { outcome, status, location } = await ask(role, url);
        const allowed = ([] as Outcome[]).concat(expected[role] ?? ANY);
        if (status >= 500 || !allowed.includes(outcome)) {
          failures.push(
            `GET ${url} as ${role}: ${status}${location ? ` → ${location}` : ""} (expected ${allowed.join("|")}) [${route.file}]`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("answers every action as the table says, and nobody changes what is not theirs", async () => {
    const failures: string[] = [];
    for (const route of table) {
      const policy = POLICIES[route.file];
      if (route.pattern === null) continue;
      for (const action of policy?.actions ?? []) {
        const pattern = policy?.url?.(IDS) ?? sample(route.pattern, IDS);
        for (const role of ROLES) {
          const fields = action.body(IDS, role);
          let url = pattern;
          if ("_post" in fields) {
            url = `/post/${fields._post}`;
            delete (fields as Record<string, string>)._post;
          }
          const { outcome, status, location } = await ask(role, url, {
            method: "POST",
            body: fields,
          });
          const allowed = ([] as Outcome[]).concat(action.expect[role] ?? ANY);
          if (status >= 500 || !allowed.includes(outcome)) {
            failures.push(
              `POST ${url} (${action.name}) as ${role}: ${status}${location ? ` → ${location}` : ""} (expected ${allowed.join("|")}) [${route.file}]`,
            );
          }
        }
      }
    }
    expect(failures).toEqual([]);

    // Only the owner's own attempts changed anything: the post keeps its title and comment,
    // the spare post and the spare comment (the owner's targets) are gone.
    const page = await fetch(`${server.base}/post/${IDS.post}`, {
      headers: { Cookie: cookies.owner ?? "" },
    });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain(TITLE);
    expect(html).toContain(COMMENT);
    expect(html).not.toContain("overwritten by someone else");
    expect(html).not.toContain("Renamed by someone else");
    const spare = await fetch(`${server.base}/post/${IDS.sparePost}`, {
      headers: { Cookie: cookies.owner ?? "" },
    });
    expect(spare.status).toBe(404);
    await spare.text();
    // Nobody ended the other member's second session.
    const spareSession = await fetch(`${server.base}/feed`, {
      redirect: "manual",
      headers: { Cookie: otherSpareCookie },
    });
    expect(await spareSession.text()).toContain(OTHER.displayName);
    // The ban attempts by non-admins did not ban anyone: the other member still signs in.
    expect(await signIn(server.base, OTHER.email, nextIp())).toContain("session_token");
  }, 120_000);

  it("logged nothing uncaught", () => {
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
  });
});
