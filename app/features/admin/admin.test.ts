import { count, eq, sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { isAppError } from "~/core/errors";
import { rowsOf } from "~/db/client.server";
import { auditLog, comments, posts, profiles, reports, session, user } from "~/db/schema";
import { insertComments, insertPost } from "../../../tests/support/admin-fixtures";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { assertAdmin } from "./access.server";
import { listAuditLog } from "./audit.server";
import { deleteCommentAsAdmin, listComments } from "./comments.server";
import { discardJobAsAdmin, listJobsForAdmin, retryJobAsAdmin } from "./jobs.server";
import { pageInfo, parsePageParam } from "./paging";
import { deleteReportedContent, listReports, resolveReport } from "./reports.server";
import { getStatistics } from "./statistics.server";
import { banUser, LAST_ADMIN, listUsers, setUserAdmin, unbanUser } from "./users.server";

const testDb = withTestDatabase();

beforeEach(async () => {
  await testDb().db.delete(auditLog);
  await testDb().db.delete(user);
});

async function auditActions(): Promise<string[]> {
  const rows = await testDb()
    .db.select({ action: auditLog.action })
    .from(auditLog)
    .orderBy(auditLog.createdAt);
  return rows.map((row) => row.action);
}

async function statusOf(run: () => Promise<unknown>): Promise<number> {
  try {
    await run();
    return 200;
  } catch (error) {
    if (isAppError(error)) return error.status;
    throw error;
  }
}

describe("who may use the admin functions", () => {
  let admin: TestUser;
  let member: TestUser;
  let bannedAdmin: TestUser;
  let postId: string;
  let commentId: string;
  let reportId: string;

  beforeEach(async () => {
    admin = await createTestUser({ isAdmin: true });
    member = await createTestUser();
    bannedAdmin = await createTestUser({ isAdmin: true, banned: true });
    postId = await insertPost(member.id);
    const [comment] = await insertComments(postId, member.id, 1);
    commentId = comment?.commentId ?? "";
    const [report] = await testDb()
      .db.insert(reports)
      .values({ reporterId: admin.id, postId, reason: "spam" })
      .returning({ id: reports.id });
    reportId = report?.id ?? "";
  });

  // Each admin function, called as `actorId`. Mutations aim at harmless targets.
  const calls: [string, (actorId: string | null) => Promise<unknown>][] = [
    ["getStatistics", (actorId) => getStatistics({ actorId: actorId as string })],
    ["listUsers", (actorId) => listUsers({ actorId: actorId as string, page: 1 })],
    ["listComments", (actorId) => listComments({ actorId: actorId as string, page: 1 })],
    ["listAuditLog", (actorId) => listAuditLog({ actorId: actorId as string, page: 1 })],
    ["listJobsForAdmin", (actorId) => listJobsForAdmin({ actorId: actorId as string, page: 1 })],
    [
      "listReports",
      (actorId) => listReports({ actorId: actorId as string, page: 1, status: "open" }),
    ],
    [
      "setUserAdmin",
      (actorId) => setUserAdmin({ actorId: actorId as string, userId: member.id, isAdmin: true }),
    ],
    [
      "banUser",
      (actorId) => banUser({ actorId: actorId as string, userId: member.id, reason: "spam" }),
    ],
    ["unbanUser", (actorId) => unbanUser({ actorId: actorId as string, userId: member.id })],
    [
      "deleteCommentAsAdmin",
      (actorId) => deleteCommentAsAdmin({ actorId: actorId as string, commentId, reason: "rude" }),
    ],
    ["resolveReport", (actorId) => resolveReport({ actorId: actorId as string, reportId })],
    [
      "deleteReportedContent",
      (actorId) => deleteReportedContent({ actorId: actorId as string, reportId, reason: "spam" }),
    ],
  ];

  for (const [name, call] of calls) {
    it(`${name}: 401 signed out, 403 for a member or a banned admin, fine for an admin`, async () => {
      expect(await statusOf(() => call(null))).toBe(401);
      expect(await statusOf(() => call("no-such-account"))).toBe(401);
      expect(await statusOf(() => call(member.id))).toBe(403);
      expect(await statusOf(() => call(bannedAdmin.id))).toBe(403);
      const before = await auditActions();
      expect(before).toEqual([]);
      expect(await statusOf(() => call(admin.id))).toBe(200);
    });
  }

  it("counts an account whose role check fails as not an admin", async () => {
    await expect(assertAdmin(admin.id)).resolves.toMatchObject({ id: admin.id });
    const broken = {
      select: () => {
        throw new Error("connection lost");
      },
    } as unknown as Parameters<typeof assertAdmin>[1];
    await expect(assertAdmin(admin.id, broken)).rejects.toMatchObject({ status: 403 });
  });
});

describe("paging", () => {
  it("reads page numbers leniently and clamps them", () => {
    expect(parsePageParam(null)).toBe(1);
    expect(parsePageParam("0")).toBe(1);
    expect(parsePageParam("-2")).toBe(1);
    expect(parsePageParam("abc")).toBe(1);
    expect(parsePageParam("3")).toBe(3);
    expect(pageInfo(0, 5)).toMatchObject({ page: 1, totalPages: 1, hasNext: false });
    expect(pageInfo(25, 9)).toMatchObject({ page: 3, totalPages: 3, hasPrevious: true });
  });

  async function seedComments(n: number) {
    const author = await createTestUser({ displayName: "Commenter" });
    const postId = await insertPost(author.id, "Station to Station");
    return insertComments(postId, author.id, n);
  }

  it.each([
    [0, 1, 0, false],
    [12, 1, 12, false],
    [13, 2, 12, true],
  ])(
    "comments: %i comments make %i page(s), the first with %i, Next %s",
    async (n, pages, firstPage, hasNext) => {
      const admin = await createTestUser({ isAdmin: true });
      await seedComments(n);
      const first = await listComments({ actorId: admin.id, page: 1 });
      expect(first).toMatchObject({
        total: n,
        totalPages: pages,
        page: 1,
        hasNext,
        hasPrevious: false,
      });
      expect(first.items).toHaveLength(firstPage);
      if (n === 13) {
        // Newest first: page 1 starts with the 13th comment, page 2 holds only the 1st.
        expect(first.items[0]?.content).toBe("Comment 13");
        const second = await listComments({ actorId: admin.id, page: 2 });
        expect(second).toMatchObject({ page: 2, hasNext: false, hasPrevious: true });
        expect(second.items.map((c) => c.content)).toEqual(["Comment 1"]);
        expect(second.items[0]?.author).toMatchObject({ displayName: "Commenter" });
      }
    },
  );

  it.each([
    [0, 1, 0],
    [12, 1, 12],
    [13, 2, 12],
  ])("users: %i profiles make %i page(s), the first with %i", async (others, pages, firstPage) => {
    // The admin is a profile too: create one fewer other account.
    const admin = await createTestUser({ isAdmin: true });
    if (others === 0) {
      // Zero rows cannot be listed by an admin who is a row; check the empty maths instead.
      expect(pageInfo(0, 1)).toMatchObject({ totalPages: 1, hasNext: false, hasPrevious: false });
      return;
    }
    for (let i = 1; i < others; i++) await createTestUser();
    const page = await listUsers({ actorId: admin.id, page: 1 });
    expect(page).toMatchObject({ total: others, totalPages: pages, hasNext: pages > 1 });
    expect(page.items).toHaveLength(firstPage);
    expect(page.items[0]).toHaveProperty("email");
    expect(page.items[0]).toHaveProperty("roles");
    const last = await listUsers({ actorId: admin.id, page: 99 });
    expect(last.page).toBe(pages);
    if (others === 13) {
      expect(last.items).toHaveLength(1);
      // Newest first: the admin, created first, is on the last page.
      expect(last.items[0]?.userId).toBe(admin.id);
    }
  });
});

describe("users: roles and bans", () => {
  it("grants and revokes admin, and records both in the audit log", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const other = await createTestUser();
    expect(await setUserAdmin({ actorId: admin.id, userId: other.id, isAdmin: true })).toBe(
      "granted",
    );
    expect(await setUserAdmin({ actorId: admin.id, userId: other.id, isAdmin: true })).toBe(
      "unchanged",
    );
    expect(await setUserAdmin({ actorId: other.id, userId: admin.id, isAdmin: false })).toBe(
      "revoked",
    );
    expect(await auditActions()).toEqual(["user.grant_admin", "user.revoke_admin"]);
    const log = await listAuditLog({ actorId: other.id, page: 1 });
    expect(log.items[0]).toMatchObject({
      action: "user.revoke_admin",
      actorUsername: other.username,
      targetId: admin.id,
    });
  });

  it("does not let the last admin give up the role", async () => {
    const admin = await createTestUser({ isAdmin: true });
    await expect(
      setUserAdmin({ actorId: admin.id, userId: admin.id, isAdmin: false }),
    ).rejects.toMatchObject({ status: 409, message: LAST_ADMIN });
    const [row] = await testDb()
      .db.select({ roles: profiles.roles })
      .from(profiles)
      .where(eq(profiles.userId, admin.id));
    expect(row?.roles).toContain("admin");
    expect(await auditActions()).toEqual([]);

    // With a second admin, stepping down works.
    const second = await createTestUser({ isAdmin: true });
    await setUserAdmin({ actorId: admin.id, userId: admin.id, isAdmin: false });
    await expect(
      setUserAdmin({ actorId: second.id, userId: second.id, isAdmin: false }),
    ).rejects.toMatchObject({ status: 409 });
  });

  it("a ban ends every session at once; unban lifts it; nobody bans themselves", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const troll = await createTestUser();
    const bystander = await createTestUser();
    const expiresAt = new Date(Date.now() + 86_400_000);
    await testDb()
      .db.insert(session)
      .values([
        { id: "s1", token: "t1", userId: troll.id, expiresAt, updatedAt: new Date() },
        { id: "s2", token: "t2", userId: troll.id, expiresAt, updatedAt: new Date() },
        { id: "s3", token: "t3", userId: bystander.id, expiresAt, updatedAt: new Date() },
      ]);
    expect(await banUser({ actorId: admin.id, userId: troll.id, reason: "Spam" })).toEqual({
      sessionsEnded: 2,
    });
    const left = await testDb().db.select({ userId: session.userId }).from(session);
    expect(left).toEqual([{ userId: bystander.id }]);
    const users = await listUsers({ actorId: admin.id, page: 1 });
    expect(users.items.find((u) => u.userId === troll.id)).toMatchObject({
      isBanned: true,
      banReason: "Spam",
    });

    await unbanUser({ actorId: admin.id, userId: troll.id });
    const [row] = await testDb()
      .db.select({ banned: user.banned, banReason: user.banReason })
      .from(user)
      .where(eq(user.id, troll.id));
    expect(row).toEqual({ banned: false, banReason: null });

    await expect(
      banUser({ actorId: admin.id, userId: admin.id, reason: "oops" }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      banUser({ actorId: admin.id, userId: "nobody", reason: "x" }),
    ).rejects.toMatchObject({ status: 404 });
    expect(await auditActions()).toEqual(["user.ban", "user.unban"]);
  });
});

describe("comments and reports moderation", () => {
  it("deletes a comment with a reason that the audit log keeps", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const author = await createTestUser();
    const postId = await insertPost(author.id);
    const [comment] = await insertComments(postId, author.id, 1);
    await deleteCommentAsAdmin({
      actorId: admin.id,
      commentId: comment?.commentId ?? "",
      reason: "Harassment",
    });
    const [left] = await testDb().db.select({ n: count() }).from(comments);
    expect(left?.n).toBe(0);
    const [entry] = await testDb().db.select().from(auditLog);
    expect(entry).toMatchObject({
      action: "comment.delete",
      actorId: admin.id,
      targetType: "comment",
      targetId: comment?.commentId,
      details: { reason: "Harassment", content: "Comment 1", postId },
    });
    await expect(
      deleteCommentAsAdmin({ actorId: admin.id, commentId: comment?.commentId ?? "", reason: "x" }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("lists reports of posts and comments; resolving closes every open report of it", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const author = await createTestUser();
    const a = await createTestUser();
    const b = await createTestUser();
    const postId = await insertPost(author.id, "Low");
    const [comment] = await insertComments(postId, author.id, 1);
    const inserted = await testDb()
      .db.insert(reports)
      .values([
        { reporterId: a.id, postId, reason: "spam" },
        { reporterId: b.id, postId, reason: "spam", details: "Again" },
        { reporterId: a.id, commentId: comment?.commentId, reason: "harassment" },
      ])
      .returning({ id: reports.id });
    const open = await listReports({ actorId: admin.id, page: 1, status: "open" });
    expect(open.total).toBe(3);
    expect(open.items.map((r) => r.target.type).sort()).toEqual(["comment", "post", "post"]);
    expect(open.items.find((r) => r.target.type === "comment")?.target).toMatchObject({
      content: "Comment 1",
      authorUsername: author.username,
    });

    await resolveReport({ actorId: admin.id, reportId: inserted[0]?.id ?? "" });
    const stillOpen = await listReports({ actorId: admin.id, page: 1, status: "open" });
    expect(stillOpen.items.map((r) => r.target.type)).toEqual(["comment"]);
    const resolved = await listReports({ actorId: admin.id, page: 1, status: "resolved" });
    expect(resolved.total).toBe(2);

    expect(
      await deleteReportedContent({
        actorId: admin.id,
        reportId: inserted[2]?.id ?? "",
        reason: "Abuse",
      }),
    ).toBe("comment");
    const [left] = await testDb().db.select({ n: count() }).from(comments);
    expect(left?.n).toBe(0);
    expect(await auditActions()).toEqual(["report.resolve", "comment.delete"]);
  });

  it("deletes a reported post", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const author = await createTestUser();
    const postId = await insertPost(author.id);
    const [report] = await testDb()
      .db.insert(reports)
      .values({ reporterId: admin.id, postId, reason: "copyright" })
      .returning({ id: reports.id });
    expect(
      await deleteReportedContent({
        actorId: admin.id,
        reportId: report?.id ?? "",
        reason: "DMCA",
      }),
    ).toBe("post");
    expect(await testDb().db.select().from(posts)).toEqual([]);
    const [entry] = await testDb().db.select().from(auditLog);
    expect(entry).toMatchObject({ action: "post.delete", targetId: postId });
  });
});

describe("statistics", () => {
  it("counts exactly, per day over 30 days, and who was active", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const poster = await createTestUser();
    const old = await createTestUser();
    await testDb()
      .db.update(profiles)
      .set({ createdAt: sql`now() - interval '40 days'` })
      .where(eq(profiles.userId, old.id));
    const postId = await insertPost(poster.id);
    await insertPost(poster.id, "Old one", new Date(Date.now() - 3 * 86_400_000));
    await insertPost(old.id, "Ancient", new Date(Date.now() - 60 * 86_400_000));
    await insertComments(postId, admin.id, 2);

    const stats = await getStatistics({ actorId: admin.id });
    expect(stats.totals).toEqual({ profiles: 3, posts: 3, likes: 0, comments: 2 });
    expect(stats.daily).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(stats.daily.at(-1)).toEqual({ day: today, accounts: 2, posts: 1 });
    expect(stats.daily.reduce((sum, d) => sum + d.posts, 0)).toBe(2);
    expect(stats.daily.reduce((sum, d) => sum + d.accounts, 0)).toBe(2);
    // Active: the poster (posts) and the admin (comments); `old` posted 60 days ago.
    expect(stats.active).toEqual({ last7Days: 2, last30Days: 2 });
  });

  it("has 30 empty days when nothing happened", async () => {
    const admin = await createTestUser({ isAdmin: true });
    await testDb().db.update(profiles).set({ createdAt: sql`now() - interval '90 days'` });
    const stats = await getStatistics({ actorId: admin.id });
    expect(stats.daily.every((d) => d.accounts === 0 && d.posts === 0)).toBe(true);
    expect(stats.active).toEqual({ last7Days: 0, last30Days: 0 });
  });
});

describe("background jobs", () => {
  async function jobOf(status: "queued" | "dead", kind = "test.admin-jobs") {
    const [row] = rowsOf<{ id: number }>(
      await testDb().db.execute(sql`insert into jobs (kind, payload, status, attempts, last_error,
          finished_at)
        values (${kind}, '{}'::jsonb, ${status}, ${status === "dead" ? 8 : 0},
          ${status === "dead" ? "the service said no" : null},
          ${status === "dead" ? sql`now()` : null})
        returning id`),
    );
    return Number(row?.id);
  }
  const statusOfJob = async (id: number) =>
    rowsOf<{ status: string; attempts: number }>(
      await testDb().db.execute(sql`select status, attempts from jobs where id = ${id}`),
    )[0] ?? null;

  it("lists jobs by kind and state, and an admin retries a dead one or discards it, recorded", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const member = await createTestUser();
    const dead = await jobOf("dead");
    const waiting = await jobOf("queued");
    const listed = await listJobsForAdmin({
      actorId: admin.id,
      kind: "test.admin-jobs",
      status: "dead",
      page: 1,
    });
    expect(listed.items.map((j) => j.id)).toEqual([dead]);
    expect(listed.items[0]?.lastError).toBe("the service said no");
    expect(listed.kinds.find((k) => k.kind === "test.admin-jobs")?.counts).toMatchObject({
      dead: 1,
      queued: 1,
    });

    expect(await statusOf(() => retryJobAsAdmin({ actorId: member.id, jobId: dead }))).toBe(403);
    await retryJobAsAdmin({ actorId: admin.id, jobId: dead });
    expect(await statusOfJob(dead)).toEqual({ status: "queued", attempts: 0 });
    // Only a dead job can be retried: a second retry finds nothing to do.
    expect(await statusOf(() => retryJobAsAdmin({ actorId: admin.id, jobId: dead }))).toBe(404);

    await discardJobAsAdmin({ actorId: admin.id, jobId: waiting });
    expect(await statusOfJob(waiting)).toBeNull();
    expect(await statusOf(() => discardJobAsAdmin({ actorId: admin.id, jobId: waiting }))).toBe(
      404,
    );
    const actions = await auditActions();
    expect(actions).toEqual(expect.arrayContaining(["job.retry", "job.discard"]));
  });
});
