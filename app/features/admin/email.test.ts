import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setDatabase } from "~/db/client.server";
import { auditLog, emailCampaignRecipients, mailOutbox, user } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import {
  createMailTransport,
  createUnsubscribeToken,
  readUnsubscribeToken,
  setMailTransport,
} from "~/features/mail/index.server";
import { setEmailPreference } from "~/features/notifications/index.server";
import { getEnv } from "~/lib/env.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as sendEmailBatchRoute from "~/routes/api/send-email-batch";
import { contextFor, outcomeOf, viewerOf } from "../../../tests/support/admin-fixtures";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { startSmtpSink } from "../../../tests/support/smtp-sink";
import { EMAIL_BATCH_SIZE, settleWithConcurrency, splitIntoBatches } from "./batches";
import { sendCampaignInBatches } from "./bulk-send";
import {
  createCampaign,
  getCampaignForSending,
  listAllUsers,
  listCampaigns,
  sendEmailBatch,
} from "./email.server";
import { htmlToText, senderAddress, withUnsubscribeFooter } from "./email-content";
import { MAX_HTML_LENGTH } from "./limits";
import {
  applyPlaceholders,
  applyTextPlaceholders,
  displayNameFor,
  usernameFor,
} from "./placeholders";
import type { SendEmailBatchResponse } from "./schemas";

const { action: sendBatchAction } = atTheEdge(sendEmailBatchRoute);

let testDb: TestDatabase;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  setDatabase(testDb);
  sink = await startSmtpSink();
  setMailTransport(createMailTransport({ smtpUrl: sink.url, mailDir: "/nonexistent" }));
});

afterAll(async () => {
  setMailTransport(undefined);
  setDatabase(undefined);
  await sink.close();
  await testDb.destroy();
});

beforeEach(async () => {
  sink.received.length = 0;
  sink.setRefuse(() => false);
  await testDb.db.delete(mailOutbox);
  await testDb.db.delete(auditLog);
  await testDb.db.delete(user);
});

const FROM = getEnv().MAIL_FROM;

describe("placeholders", () => {
  it("uses the username and display name when there are some", () => {
    const html = "<p>Hi {{display_name}} (@{{ username }})</p>";
    expect(applyPlaceholders(html, { username: "ziggy", displayName: "Ziggy Stardust" })).toBe(
      "<p>Hi Ziggy Stardust (@ziggy)</p>",
    );
  });

  it("falls back: username → there; display name → username → there", () => {
    expect(usernameFor({ username: null, displayName: "Ziggy" })).toBe("there");
    expect(usernameFor({ username: "  ", displayName: null })).toBe("there");
    expect(displayNameFor({ username: "ziggy", displayName: null })).toBe("ziggy");
    expect(displayNameFor({ username: "ziggy", displayName: "" })).toBe("ziggy");
    expect(displayNameFor({ username: null, displayName: null })).toBe("there");
    expect(
      applyPlaceholders("Hello {{display_name}}, aka {{username}}", {
        username: null,
        displayName: null,
      }),
    ).toBe("Hello there, aka there");
  });

  it("escapes names so they cannot inject markup", () => {
    expect(
      applyPlaceholders("<p>{{display_name}}</p>", {
        username: "x",
        displayName: `<img src=x onerror="alert(1)"> & co`,
      }),
    ).toBe("<p>&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; co</p>");
  });

  it("works in a subject line too, with the same fallbacks and no HTML escaping", () => {
    expect(
      applyTextPlaceholders("News for {{display_name}} (@{{username}})", {
        username: "ziggy",
        displayName: "Ziggy & the Spiders",
      }),
    ).toBe("News for Ziggy & the Spiders (@ziggy)");
    expect(
      applyTextPlaceholders("Hi {{ display_name }}, {{username}}", {
        username: null,
        displayName: null,
      }),
    ).toBe("Hi there, there");
  });

  it("leaves other braces alone", () => {
    expect(applyPlaceholders("{{email}} {username}", { username: "a", displayName: "b" })).toBe(
      "{{email}} {username}",
    );
  });
});

describe("batches", () => {
  it("splits 250 recipients into 100, 100 and 50", () => {
    const recipients = Array.from({ length: 250 }, (_, i) => i);
    expect(splitIntoBatches(recipients).map((b) => b.length)).toEqual([100, 100, 50]);
    expect(splitIntoBatches(recipients).flat()).toEqual(recipients);
    expect(splitIntoBatches([])).toEqual([]);
    expect(splitIntoBatches(recipients.slice(0, 100)).map((b) => b.length)).toEqual([100]);
    expect(EMAIL_BATCH_SIZE).toBe(100);
  });

  it("runs at most `limit` tasks at once and settles all of them", async () => {
    let running = 0;
    let peak = 0;
    const results = await settleWithConcurrency([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      if (n === 4) throw new Error("four");
      return n * 2;
    });
    expect(peak).toBe(3);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : "x"))).toEqual([
      2,
      4,
      6,
      "x",
      10,
      12,
      14,
    ]);
  });

  it("posts 250 recipients as 100/100/50 with each greeting filled in; a failed batch does not stop the others", async () => {
    const recipients = Array.from({ length: 250 }, (_, i) => ({
      userId: `u${i}`,
      email: `u${i}@example.org`,
      username: i % 10 === 0 ? null : `user${i}`,
      displayName: i % 5 === 0 ? null : `User ${i}`,
    }));
    const posted: { size: number; html: string[] }[] = [];
    const progress: number[] = [];
    const outcome = await sendCampaignInBatches({
      campaign: { id: "c", from: FROM, subject: "Hi", html: "Hi {{display_name}}!" },
      recipients,
      onProgress: (done) => progress.push(done),
      postBatch: async (body): Promise<SendEmailBatchResponse> => {
        posted.push({ size: body.emails.length, html: body.emails.map((e) => e.html) });
        if (body.emails[0]?.to[0] === "u100@example.org") throw new Error("Network down");
        return {
          sent: body.emails.length,
          failed: 0,
          results: body.emails.map((e) => ({
            to: e.to[0],
            ok: true,
            id: "m",
            status: "sent" as const,
          })),
        };
      },
    });
    expect(posted.map((p) => p.size).sort()).toEqual([100, 100, 50]);
    const html = posted.flatMap((p) => p.html);
    expect(html).toContain("Hi User 1!");
    expect(html).toContain("Hi user5!"); // no display name → username
    expect(html).toContain("Hi there!"); // neither
    expect(outcome).toMatchObject({ sent: 150, batches: 3, failedBatches: 1 });
    expect(outcome.failed).toHaveLength(100);
    expect(outcome.failed[0]).toMatchObject({
      recipient: { email: "u100@example.org" },
      error: "Network down",
    });
    expect(progress.at(0)).toBe(0);
    expect(progress.at(-1)).toBe(250);
  });
});

describe("mail content", () => {
  it("adds an unsubscribe link to the HTML and text parts", () => {
    const url = "http://localhost:3000/unsubscribe?token=a&b";
    const { html, text } = withUnsubscribeFooter(
      '<html><body><h1>News</h1><p>Hello <a href="https://x.org">there</a></p></body></html>',
      url,
    );
    expect(html).toMatch(/Unsubscribe from announcements<\/a>\.<\/p><\/body><\/html>$/);
    expect(html).toContain('href="http://localhost:3000/unsubscribe?token=a&amp;b"');
    expect(text).toContain("News\n\nHello there (https://x.org)");
    expect(text).toContain(`Unsubscribe from announcements: ${url}`);
    expect(htmlToText("<style>p{}</style>A&amp;B<br>C")).toBe("A&B\nC");
    expect(senderAddress("Soundtrail <No-Reply@Example.org>")).toBe("no-reply@example.org");
  });

  it("signs unsubscribe tokens", () => {
    const token = createUnsubscribeToken({ userId: "user-1", kind: "announcements" });
    expect(readUnsubscribeToken(token)).toEqual({ userId: "user-1", kind: "announcements" });
    const forged = token.replace(/^[^.]+/, Buffer.from("user-2").toString("base64url"));
    expect(readUnsubscribeToken(forged)).toBeNull();
    expect(readUnsubscribeToken("nonsense")).toBeNull();
    expect(readUnsubscribeToken(`${token.split(".")[0]}.marketing.x`)).toBeNull();
  });
});

describe("campaigns", () => {
  let admin: TestUser;

  beforeEach(async () => {
    admin = await createTestUser({ isAdmin: true, username: "boss" });
  });

  it("lists everyone newest first and says who is left out", async () => {
    const quiet = await createTestUser({ username: "quiet" });
    const banned = await createTestUser({ username: "banned", banned: true });
    const fresh = await createTestUser({ username: "fresh", displayName: null });
    await setEmailPreference({ userId: quiet.id, kind: "announcements", isSubscribed: false });
    const all = await listAllUsers({ actorId: admin.id });
    expect(all.map((u) => u.username)).toEqual(["fresh", "banned", "quiet", "boss"]);
    expect(all.find((u) => u.userId === quiet.id)?.excludedBecause).toBe("unsubscribed");
    expect(all.find((u) => u.userId === banned.id)?.excludedBecause).toBe("banned");
    expect(all.find((u) => u.userId === fresh.id)).toMatchObject({
      excludedBecause: null,
      displayName: null,
      email: fresh.email,
    });
  });

  it("stores a campaign for everyone who takes announcements, or for a selection", async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    const out = await createTestUser();
    await setEmailPreference({ userId: out.id, kind: "announcements", isSubscribed: false });
    const everyone = await createCampaign({
      actorId: admin.id,
      subject: "News",
      html: "<p>Hi {{username}}</p>",
      audience: "everyone",
      userIds: [],
    });
    expect(everyone.recipients.map((r) => r.userId).sort()).toEqual([admin.id, a.id, b.id].sort());
    expect(everyone.from).toBe(FROM);
    const some = await createCampaign({
      actorId: admin.id,
      subject: "News",
      html: "x",
      audience: "selected",
      userIds: [b.id, out.id, "nobody"],
    });
    expect(some.recipients.map((r) => r.userId)).toEqual([b.id]);
    await expect(
      createCampaign({
        actorId: admin.id,
        subject: "x",
        html: "x",
        audience: "selected",
        userIds: [out.id],
      }),
    ).rejects.toMatchObject({ status: 400 });
    const listed = await listCampaigns({ actorId: admin.id, page: 1 });
    expect(listed.total).toBe(2);
    expect(listed.items[0]).toMatchObject({ total: 1, pending: 1, sent: 0, createdBy: "boss" });
  });

  it("sends, survives a refusing mail server mid-batch, and a retry sends the rest exactly once", async () => {
    const people: TestUser[] = [];
    for (let i = 0; i < 6; i++) {
      people.push(
        await createTestUser({ username: `fan${i}`, displayName: i === 0 ? null : `Fan ${i}` }),
      );
    }
    const campaign = await createCampaign({
      actorId: admin.id,
      subject: "Tour dates",
      html: "<p>Hello {{display_name}}</p>",
      audience: "selected",
      userIds: people.map((p) => p.id),
    });
    const refused = new Set([people[2]?.email, people[4]?.email]);
    sink.setRefuse((to) => refused.has(to));
    const post = async (body: object) => {
      const outcome = await outcomeOf(() =>
        sendBatchAction({
          request: new Request("http://localhost:3000/api/send-email-batch", {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(body),
          }),
          context: contextFor(viewerOf(admin, true)),
          params: {},
        } as unknown as Parameters<typeof sendBatchAction>[0]),
      );
      if (outcome.status !== 200) throw new Error(`HTTP ${outcome.status}`);
      return outcome.body as SendEmailBatchResponse;
    };

    const first = await sendCampaignInBatches({
      campaign,
      recipients: campaign.recipients,
      postBatch: post,
      batchSize: 2,
    });
    expect(first.sent).toBe(4);
    expect(first.failed.map((f) => f.recipient.email).sort()).toEqual([...refused].sort());
    expect(first.failed[0]?.error).toContain("450");
    expect(sink.received).toHaveLength(4);
    const fan0 = sink.received.find((m) => m.to[0] === people[0]?.email);
    expect(fan0?.raw).toContain("Hello fan0");
    const headers = (fan0?.raw ?? "").replace(/\r?\n(?=[ \t])/g, "");
    expect(headers).toMatch(/^List-Unsubscribe: <http:\/\/localhost:3000\/unsubscribe\?token=/m);
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);

    // The failures are stored: the campaign knows who is left, and the outbox keeps their mails.
    const left = await getCampaignForSending({ actorId: admin.id, campaignId: campaign.id });
    expect(left.recipients.map((r) => r.email).sort()).toEqual([...refused].sort());
    const failedRows = await testDb.db
      .select({ status: mailOutbox.status })
      .from(mailOutbox)
      .where(eq(mailOutbox.status, "failed"));
    expect(failedRows).toHaveLength(2);

    // Retry everything (as a confused admin might): the 4 sent are answered "sent", not resent.
    sink.setRefuse(() => false);
    const retry = await sendCampaignInBatches({
      campaign,
      recipients: campaign.recipients,
      postBatch: post,
    });
    expect(retry).toMatchObject({ sent: 6, failed: [] });
    expect(sink.received).toHaveLength(6);
    expect(new Set(sink.received.map((m) => m.to[0])).size).toBe(6);
    const summary = await listCampaigns({ actorId: admin.id, page: 1 });
    expect(summary.items[0]).toMatchObject({ total: 6, sent: 6, failed: 0, pending: 0 });
    const done = await getCampaignForSending({ actorId: admin.id, campaignId: campaign.id });
    expect(done.recipients).toEqual([]);
    const recipients = await testDb.db
      .select()
      .from(emailCampaignRecipients)
      .where(eq(emailCampaignRecipients.campaignId, campaign.id));
    expect(recipients.map((r) => [r.status, Boolean(r.mailId)])).toEqual(
      Array.from({ length: 6 }, () => ["sent", true]),
    );
    const batches = await testDb.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "campaign.send_batch"));
    expect(batches.length).toBe(4);
  });

  it("leaves out someone who unsubscribed after the campaign was made", async () => {
    const fan = await createTestUser();
    const campaign = await createCampaign({
      actorId: admin.id,
      subject: "S",
      html: "B",
      audience: "selected",
      userIds: [fan.id],
    });
    await setEmailPreference({ userId: fan.id, kind: "announcements", isSubscribed: false });
    const result = await sendEmailBatch({
      actorId: admin.id,
      campaignId: campaign.id,
      emails: [{ from: FROM, to: [fan.email], subject: "S", html: "B" }],
    });
    expect(result.results[0]).toMatchObject({ ok: false, status: "skipped" });
    expect(sink.received).toHaveLength(0);
  });

  it("refuses mails to people who are not recipients of the campaign", async () => {
    const fan = await createTestUser();
    const stranger = await createTestUser();
    const campaign = await createCampaign({
      actorId: admin.id,
      subject: "S",
      html: "B",
      audience: "selected",
      userIds: [fan.id],
    });
    const result = await sendEmailBatch({
      actorId: admin.id,
      campaignId: campaign.id,
      emails: [
        { from: FROM, to: [stranger.email], subject: "S", html: "B" },
        { from: FROM, to: [fan.email], subject: "S", html: "B" },
        { from: FROM, to: [fan.email.toUpperCase()], subject: "S", html: "B" },
      ],
    });
    expect(result.results.map((r) => r.status)).toEqual(["rejected", "sent", "rejected"]);
    expect(sink.received).toHaveLength(1);
  });
});

describe("who may use the bulk e-mail functions", () => {
  it("401 signed out, 403 for a member or a banned admin, fine for an admin", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const member = await createTestUser();
    const bannedAdmin = await createTestUser({ isAdmin: true, banned: true });
    const campaign = await createCampaign({
      actorId: admin.id,
      subject: "S",
      html: "B",
      audience: "selected",
      userIds: [member.id],
    });
    const calls: [string, (actorId: string | null) => Promise<unknown>][] = [
      ["listAllUsers", (actorId) => listAllUsers({ actorId: actorId as string })],
      ["listCampaigns", (actorId) => listCampaigns({ actorId: actorId as string, page: 1 })],
      [
        "createCampaign",
        (actorId) =>
          createCampaign({
            actorId: actorId as string,
            subject: "S",
            html: "B",
            audience: "everyone",
            userIds: [],
          }),
      ],
      [
        "getCampaignForSending",
        (actorId) => getCampaignForSending({ actorId: actorId as string, campaignId: campaign.id }),
      ],
      [
        "sendEmailBatch",
        (actorId) =>
          sendEmailBatch({
            actorId: actorId as string,
            campaignId: campaign.id,
            emails: [{ from: FROM, to: [member.email], subject: "S", html: "B" }],
          }),
      ],
    ];
    const statusOf = async (run: () => Promise<unknown>) => {
      try {
        await run();
        return 200;
      } catch (error) {
        return (error as { status?: number }).status ?? 500;
      }
    };
    for (const [name, call] of calls) {
      expect([name, await statusOf(() => call(null))]).toEqual([name, 401]);
      expect([name, await statusOf(() => call(member.id))]).toEqual([name, 403]);
      expect([name, await statusOf(() => call(bannedAdmin.id))]).toEqual([name, 403]);
      expect([name, await statusOf(() => call(admin.id))]).toEqual([name, 200]);
    }
    expect(sink.received).toHaveLength(1);
  });
});

describe("POST /api/send-email-batch", () => {
  let admin: TestUser;
  let campaignId: string;
  let fan: TestUser;

  beforeEach(async () => {
    admin = await createTestUser({ isAdmin: true });
    fan = await createTestUser();
    campaignId = (
      await createCampaign({
        actorId: admin.id,
        subject: "S",
        html: "B",
        audience: "selected",
        userIds: [fan.id],
      })
    ).id;
  });

  const mail = (overrides: Record<string, unknown> = {}) => ({
    from: FROM,
    to: [fan.email],
    subject: "Hello",
    html: "<p>Hi</p>",
    ...overrides,
  });

  async function call(
    body: unknown,
    viewer: Parameters<typeof contextFor>[0],
    init: RequestInit = {},
  ) {
    return outcomeOf(() =>
      sendBatchAction({
        request: new Request("http://localhost:3000/api/send-email-batch", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: typeof body === "string" ? body : JSON.stringify(body),
          ...init,
        }),
        context: contextFor(viewer),
        params: {},
      } as unknown as Parameters<typeof sendBatchAction>[0]),
    );
  }

  it("answers 401 signed out, 403 for a member and a banned admin, 200 for an admin", async () => {
    const member = await createTestUser();
    const banned = await createTestUser({ isAdmin: true, banned: true });
    const body = { campaignId, emails: [mail()] };
    expect((await call(body, null)).status).toBe(401);
    expect((await call(body, viewerOf(member, false))).status).toBe(403);
    // A banned admin's session is refused upstream; even with one, the database check says no.
    expect((await call(body, viewerOf(banned, true))).status).toBe(403);
    // A viewer whose role was revoked since the session was read is refused too.
    expect((await call(body, viewerOf(member, true))).status).toBe(403);
    const ok = await call(body, viewerOf(admin, true));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ sent: 1, failed: 0, results: [{ ok: true, status: "sent" }] });
    expect(sink.received).toHaveLength(1);
  });

  it.each([
    [
      "more than 100 mails",
      () => ({ campaignId, emails: Array.from({ length: 101 }, () => mail()) }),
      "emails: Send at most 100 mails per batch.",
    ],
    ["no mails", () => ({ campaignId, emails: [] }), "emails: Send at least one mail."],
    [
      "two recipients",
      () => ({ campaignId, emails: [mail({ to: [fan.email, "b@example.org"] })] }),
      "emails.0.to: Send each mail to exactly one address.",
    ],
    [
      "no recipient",
      () => ({ campaignId, emails: [mail({ to: [] })] }),
      "emails.0.to: Send each mail to exactly one address.",
    ],
    [
      "a bad address",
      () => ({ campaignId, emails: [mail(), mail({ to: ["not-an-address"] })] }),
      "emails.1.to.0: This is not a valid e-mail address.",
    ],
    [
      "an empty subject",
      () => ({ campaignId, emails: [mail({ subject: "  " })] }),
      "emails.0.subject: Give the mail a subject.",
    ],
    [
      "an empty body",
      () => ({ campaignId, emails: [mail({ html: "" })] }),
      "emails.0.html: Write the body of the mail.",
    ],
    [
      "a body over the size limit",
      () => ({ campaignId, emails: [mail({ html: "x".repeat(MAX_HTML_LENGTH + 1) })] }),
      `emails.0.html: Keep the body under ${MAX_HTML_LENGTH + 1} characters.`,
    ],
    [
      "a subject over the size limit",
      () => ({ campaignId, emails: [mail({ subject: "s".repeat(201) })] }),
      "emails.0.subject: Keep the subject under 201 characters.",
    ],
    [
      "a foreign sender",
      () => ({ campaignId, emails: [mail({ from: "Evil <ceo@evil.example>" })] }),
      "emails.0.from: Bulk mail must be sent from no-reply@localhost.",
    ],
    [
      "a campaign id that is not one",
      () => ({ campaignId: "nope", emails: [mail()] }),
      "campaignId: This is not the id of a bulk e-mail.",
    ],
    ["not an object", () => [], "Invalid input: expected object, received array"],
  ])("refuses %s with a 400 that says what is wrong", async (_name, body, message) => {
    const result = await call(body(), viewerOf(admin, true));
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ ok: false, message });
    expect(sink.received).toHaveLength(0);
    expect(await testDb.db.select().from(mailOutbox)).toEqual([]);
  });

  it("refuses a body that is not JSON, and one over the request size limit", async () => {
    expect(await call("{nope", viewerOf(admin, true))).toMatchObject({
      status: 400,
      body: { ok: false, message: "The body is not valid JSON." },
    });
    const huge = await call("x", viewerOf(admin, true), {
      headers: { "Content-Type": "application/json", "Content-Length": String(13 * 1024 * 1024) },
    });
    expect(huge.status).toBe(413);
  });

  describe("with the spec's body: no campaign", () => {
    it("delivers each mail once, and a retried request sends nothing more", async () => {
      const body = { emails: [mail({ subject: "Spec body", html: "<p>Hello {{username}}</p>" })] };
      const first = await call(body, viewerOf(admin, true));
      expect(first).toMatchObject({
        status: 200,
        body: { sent: 1, failed: 0, results: [{ to: fan.email, ok: true, status: "sent" }] },
      });
      expect(sink.received).toHaveLength(1);
      expect(sink.received[0]?.raw).toContain(`Hello ${fan.username}`);
      const again = await call(body, viewerOf(admin, true));
      expect(again).toMatchObject({
        status: 200,
        body: { results: [{ ok: true, status: "sent" }] },
      });
      expect(sink.received).toHaveLength(1);
    });

    it("treats a repeated Idempotency-Key as the same request, a new key as a new one", async () => {
      const key = { "Content-Type": "application/json", "Idempotency-Key": "batch-42" };
      await call({ emails: [mail({ html: "<p>one</p>" })] }, viewerOf(admin, true), {
        headers: key,
      });
      // Same key, even with a changed body: already sent.
      await call({ emails: [mail({ html: "<p>two</p>" })] }, viewerOf(admin, true), {
        headers: key,
      });
      expect(sink.received).toHaveLength(1);
      await call({ emails: [mail({ html: "<p>one</p>" })] }, viewerOf(admin, true), {
        headers: { ...key, "Idempotency-Key": "batch-43" },
      });
      expect(sink.received).toHaveLength(2);
      const bad = await call({ emails: [mail()] }, viewerOf(admin, true), {
        headers: { ...key, "Idempotency-Key": "x".repeat(256) },
      });
      expect(bad.status).toBe(400);
    });

    it("replaces placeholders in the subject, with the fallbacks", async () => {
      const nameless = await createTestUser({ displayName: null });
      await call(
        {
          emails: [
            mail({ subject: "News for {{display_name}}" }),
            mail({ to: [nameless.email], subject: "News for {{display_name}}" }),
          ],
        },
        viewerOf(admin, true),
      );
      const subjects = sink.received.map((received) => received.subject).sort();
      expect(subjects).toEqual(
        [`News for ${fan.displayName}`, `News for ${nameless.username}`].sort(),
      );
    });

    it("sends only to accounts here, and skips people who unsubscribed", async () => {
      const quiet = await createTestUser();
      await setEmailPreference({ userId: quiet.id, kind: "announcements", isSubscribed: false });
      const result = await call(
        { emails: [mail({ to: ["stranger@example.org"] }), mail({ to: [quiet.email] })] },
        viewerOf(admin, true),
      );
      expect(result).toMatchObject({
        status: 200,
        body: {
          sent: 0,
          results: [
            {
              ok: false,
              status: "rejected",
              error: "No account on this Soundtrail has this address.",
            },
            { ok: false, status: "skipped", error: "Unsubscribed from announcements." },
          ],
        },
      });
      expect(sink.received).toHaveLength(0);
    });
  });

  it("answers 404 for a campaign that does not exist", async () => {
    const result = await call(
      { campaignId: "00000000-0000-4000-8000-000000000000", emails: [mail()] },
      viewerOf(admin, true),
    );
    expect(result).toMatchObject({ status: 404 });
  });
});
