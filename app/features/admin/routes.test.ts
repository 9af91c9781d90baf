import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "~/core/errors";
import { setDatabase } from "~/db/client.server";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as auditRoute from "~/routes/_app/admin/audit";
import * as commentsRoute from "~/routes/_app/admin/comments";
import * as emailRoute from "~/routes/_app/admin/email";
import * as reportsRoute from "~/routes/_app/admin/reports";
import * as statisticsRoute from "~/routes/_app/admin/statistics";
import * as usersRoute from "~/routes/_app/admin/users";
import { contextFor, outcomeOf, viewerOf } from "../../../tests/support/admin-fixtures";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { LOAD_ERRORS } from "./errors";
import { loadAdminData } from "./route-helpers.server";

const audit = atTheEdge(auditRoute);
const comments = atTheEdge(commentsRoute);
const email = atTheEdge(emailRoute);
const reports = atTheEdge(reportsRoute);
const statistics = atTheEdge(statisticsRoute);
const users = atTheEdge(usersRoute);

let testDb: TestDatabase;
let admin: TestUser;
let member: TestUser;

beforeAll(async () => {
  testDb = await createTestDatabase();
  setDatabase(testDb);
  admin = await createTestUser({ isAdmin: true });
  member = await createTestUser();
});

afterAll(async () => {
  setDatabase(undefined);
  await testDb.destroy();
});

type Args = { request: Request; context: ReturnType<typeof contextFor>; params: object };
type Handler = (args: never) => unknown;

function call(
  handler: Handler,
  url: string,
  viewer: Parameters<typeof contextFor>[0],
  init?: RequestInit,
) {
  const args: Args = {
    request: new Request(`http://localhost:3000${url}`, init),
    context: contextFor(viewer),
    params: {},
  };
  return outcomeOf(() => (handler as (args: Args) => unknown)(args));
}

function location(body: unknown): string | null {
  return body instanceof Response ? body.headers.get("Location") : null;
}

const pages: [string, Handler, string][] = [
  ["statistics", statistics.loader, "/admin"],
  ["comments", comments.loader, "/admin/comments"],
  ["users", users.loader, "/admin/users"],
  ["reports", reports.loader, "/admin/reports"],
  ["audit", audit.loader, "/admin/audit"],
  ["email", email.loader, "/admin/email"],
];

describe("admin page loaders", () => {
  for (const [name, loader, url] of pages) {
    it(`${name}: signed out → sign in, member → feed, admin → data`, async () => {
      const run = async (viewer: Parameters<typeof contextFor>[0]) => {
        try {
          await (loader as (args: Args) => unknown)({
            request: new Request(`http://localhost:3000${url}`),
            context: contextFor(viewer),
            params: {},
          });
          return "ok";
        } catch (thrown) {
          return location(thrown) ?? "threw";
        }
      };
      expect(await run(null)).toMatch(/^\/auth\/login/);
      expect(await run(viewerOf(member, false))).toBe("/feed");
      expect(await run(viewerOf(admin, true))).toBe("ok");
    });
  }
});

const formPost = (fields: Record<string, string>): RequestInit => ({
  method: "POST",
  body: new URLSearchParams(fields),
});
const jsonPost = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

const actions: [string, Handler, string, () => RequestInit][] = [
  ["users", users.action, "/admin/users", () => formPost({ intent: "unban", userId: member.id })],
  [
    "comments",
    comments.action,
    "/admin/comments",
    () =>
      formPost({
        intent: "delete",
        commentId: "00000000-0000-4000-8000-000000000000",
        reason: "x",
      }),
  ],
  [
    "reports",
    reports.action,
    "/admin/reports",
    () => formPost({ intent: "resolve", reportId: "00000000-0000-4000-8000-000000000000" }),
  ],
  [
    "email",
    email.action,
    "/admin/email",
    () => jsonPost({ subject: "S", html: "B", audience: "selected", userIds: [member.id] }),
  ],
];

describe("admin actions", () => {
  for (const [name, action, url, init] of actions) {
    it(`${name}: 401 signed out, 403 for a member, answered for an admin`, async () => {
      expect((await call(action, url, null, init())).status).toBe(401);
      expect((await call(action, url, viewerOf(member, false), init())).status).toBe(403);
      const asAdmin = await call(action, url, viewerOf(admin, true), init());
      expect([200, 404]).toContain(asAdmin.status);
    });
  }

  it("users: the action answers what happened, and refusals with their reason", async () => {
    const ok = await call(
      users.action,
      "/admin/users",
      viewerOf(admin, true),
      formPost({ intent: "grant-admin", userId: member.id }),
    );
    expect(ok).toEqual({ status: 200, body: { ok: true, message: "Admin role granted." } });
    const self = await call(
      users.action,
      "/admin/users",
      viewerOf(admin, true),
      formPost({ intent: "ban", userId: admin.id, reason: "test" }),
    );
    expect(self).toEqual({
      status: 400,
      body: { ok: false, message: "You cannot ban yourself.", fieldErrors: {} },
    });
    const noReason = await call(
      users.action,
      "/admin/users",
      viewerOf(admin, true),
      formPost({ intent: "ban", userId: member.id, reason: " " }),
    );
    expect(noReason).toEqual({
      status: 400,
      body: { ok: false, message: "Give a reason.", fieldErrors: { reason: ["Give a reason."] } },
    });
  });

  it("email: creating a campaign answers its recipients for the browser to send", async () => {
    const result = await call(
      email.action,
      "/admin/email",
      viewerOf(admin, true),
      jsonPost({ subject: "Hi", html: "<p>{{username}}</p>", audience: "everyone", userIds: [] }),
    );
    expect(result.status).toBe(200);
    const body = result.body as { ok: boolean; campaign: { recipients: unknown[] } };
    expect(body.ok).toBe(true);
    expect(body.campaign.recipients).toHaveLength(2);
    const invalid = await call(
      email.action,
      "/admin/email",
      viewerOf(admin, true),
      jsonPost({ subject: "", html: "", audience: "everyone" }),
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      ok: false,
      fieldErrors: { subject: ["Give the mail a subject."], html: ["Write the body of the mail."] },
    });
  });
});

describe("loading failures", () => {
  it("shows the spec's message instead of an error page, and an empty list for all users", async () => {
    const request = new Request("http://localhost:3000/admin/users");
    expect(
      await loadAdminData(request, LOAD_ERRORS.users, async () => {
        throw new Error("database went away");
      }),
    ).toEqual({ data: null, error: "Failed to load users" });
    await expect(
      loadAdminData(request, LOAD_ERRORS.users, async () => {
        throw new AppError("forbidden", "no");
      }),
    ).rejects.toSatisfy((thrown) => location(thrown) === "/feed");
  });
});
