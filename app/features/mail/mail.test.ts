import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setDatabase } from "~/db/client.server";
import { mailOutbox } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { type GatedSmtpSink, startGatedSmtpSink } from "../../../tests/support/gated-smtp-sink";
import { startSmtpSink } from "../../../tests/support/smtp-sink";
import {
  createMailTransport,
  deliverDueMail,
  deliverMailNow,
  enqueueMail,
  enqueueMails,
  type MailTransport,
  recoverInterruptedMail,
  sendMail,
  setMailTransport,
} from "./mail.server";
import { renderEmail } from "./render";

let testDb: TestDatabase;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let smtp: MailTransport;

beforeAll(async () => {
  testDb = await createTestDatabase();
  setDatabase(testDb);
  sink = await startSmtpSink();
  smtp = createMailTransport({ smtpUrl: sink.url, mailDir: "/nonexistent" });
  setMailTransport(smtp);
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
  await testDb.db.execute(sql`delete from jobs where kind = 'mail.send'`);
});

/** The mail's job: due now (its back-off over), or held by a runner (`lease`: live or run out). */
async function setJob(mailId: string, state: "due" | "live-lease" | "lapsed-lease") {
  const set =
    state === "due"
      ? sql`run_at = now() - interval '1 second'`
      : state === "live-lease"
        ? sql`status = 'running', attempts = 1, lease_token = gen_random_uuid(),
            locked_until = now() + interval '1 minute'`
        : sql`status = 'running', attempts = 1, lease_token = gen_random_uuid(),
            locked_until = now() - interval '1 second'`;
  await testDb.db.execute(sql`update jobs set ${set} where kind = 'mail.send' and key = ${mailId}`);
}

const body = renderEmail({ title: "Hello", paragraphs: ["Hi <there> & welcome"] });

describe("sendMail", () => {
  it("records the mail, sends it over SMTP and marks it sent", async () => {
    const result = await sendMail({ to: "ana@example.org", subject: "Welcome", ...body });
    expect(result.status).toBe("sent");
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]?.to).toEqual(["ana@example.org"]);
    expect(sink.received[0]?.subject).toBe("Welcome");
    expect(sink.received[0]?.messageId).toBe(`<${result.id}@soundtrail>`);
    expect(sink.received[0]?.raw).toContain("text/plain");
    expect(sink.received[0]?.raw).toContain("text/html");
    const [row] = await testDb.db.select().from(mailOutbox).where(eq(mailOutbox.id, result.id));
    expect(row).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("keeps a refused mail, and the retry delivers it exactly once", async () => {
    sink.setRefuse(() => true);
    const first = await sendMail({ to: "bo@example.org", subject: "Try", ...body });
    expect(first.status).toBe("failed");
    expect(sink.received).toHaveLength(0);
    const [failed] = await testDb.db.select().from(mailOutbox).where(eq(mailOutbox.id, first.id));
    expect(failed?.lastError).toContain("450");

    // Not due yet: the worker leaves it alone.
    expect((await deliverDueMail()).size).toBe(0);

    sink.setRefuse(() => false);
    await setJob(first.id, "due");
    const outcomes = await deliverDueMail();
    expect(outcomes.get(first.id)).toBe("sent");
    expect(await deliverDueMail()).toHaveProperty("size", 0);
    expect(sink.received).toHaveLength(1);
  });

  it("queues a mail once per idempotency key", async () => {
    const a = await sendMail({
      to: "cy@example.org",
      subject: "Once",
      idempotencyKey: "k-1",
      ...body,
    });
    const b = await sendMail({
      to: "cy@example.org",
      subject: "Once",
      idempotencyKey: "k-1",
      ...body,
    });
    expect(b.id).toBe(a.id);
    expect(b.status).toBe("queued");
    expect(sink.received).toHaveLength(1);
  });

  it("picks up a mail whose sender crashed mid-send once its lock expires", async () => {
    const { id } = await enqueueMail({ to: "dee@example.org", subject: "Crash", ...body });
    await testDb.db.update(mailOutbox).set({ status: "sending", attempts: 1 });
    await setJob(id, "live-lease");
    expect((await deliverDueMail()).size).toBe(0);
    await setJob(id, "lapsed-lease");
    expect((await deliverDueMail()).get(id)).toBe("sent");
    expect(sink.received).toHaveLength(1);
  });

  it("writes .eml files when no SMTP server is configured", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "st-mail-"));
    const files = createMailTransport({ mailDir: dir });
    const { id } = await enqueueMail({ to: "eve@example.org", subject: "On disk", ...body });
    expect((await deliverDueMail({ ids: [id], transport: files })).get(id)).toBe("sent");
    const [file] = readdirSync(dir);
    expect(file).toMatch(/eve@example\.org\.eml$/);
    const eml = readFileSync(path.join(dir, file ?? ""), "utf8");
    expect(eml).toContain("Subject: On disk");
  });
});

describe("renderEmail", () => {
  it("escapes user text in the HTML part and keeps the text part readable", () => {
    const { html, text } = renderEmail({
      title: "Hi <b>",
      paragraphs: ["<img src=x onerror=alert(1)>"],
      action: { label: "Open", url: "https://example.org/?a=1&b=2" },
    });
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("https://example.org/?a=1&amp;b=2");
    expect(text).toContain("Open: https://example.org/?a=1&b=2");
  });
});

describe("enqueueMails and deliverMailNow", () => {
  const mail = (n: number) => ({
    to: `n${n}@example.org`,
    subject: `Bulk ${n}`,
    idempotencyKey: `bulk-${n}`,
    ...body,
  });

  it("records many mails at once and recognises keys it has seen", async () => {
    const first = await enqueueMails([mail(1), mail(2)]);
    expect([...first.values()].map((m) => m.isNew)).toEqual([true, true]);
    const again = await enqueueMails([mail(2), mail(3)]);
    expect(again.get("bulk-2")).toMatchObject({ id: first.get("bulk-2")?.id, isNew: false });
    expect(again.get("bulk-3")?.isNew).toBe(true);
    expect(await testDb.db.select().from(mailOutbox)).toHaveLength(3);
  });

  it("retries a failed mail at once, and never sends a sent one again", async () => {
    const queued = await enqueueMails([mail(1), mail(2), mail(3)]);
    const ids = [...queued.values()].map((m) => m.id);
    sink.setRefuse((to) => to === "n2@example.org");
    const first = await deliverMailNow({ ids });
    expect([...first.values()].sort()).toEqual(["failed", "sent", "sent"]);
    expect(sink.received).toHaveLength(2);

    // The failed mail is not due for 30 s, but an explicit retry sends it now, once.
    sink.setRefuse(() => false);
    const retry = await deliverMailNow({ ids });
    expect([...retry.values()]).toEqual(["sent", "sent", "sent"]);
    expect(sink.received.map((m) => m.to[0]).sort()).toEqual([
      "n1@example.org",
      "n2@example.org",
      "n3@example.org",
    ]);
  });

  it("keeps the worker off held mails, which deliverMailNow still sends at once", async () => {
    const queued = await enqueueMails([mail(1)], { holdSeconds: 120 });
    const id = queued.get("bulk-1")?.id ?? "";
    expect((await deliverDueMail()).size).toBe(0);
    expect((await deliverMailNow({ ids: [id] })).get(id)).toBe("sent");
    expect(sink.received).toHaveLength(1);
  });

  it("leaves a mail another sender holds alone", async () => {
    const queued = await enqueueMails([mail(1)]);
    const id = queued.get("bulk-1")?.id ?? "";
    await testDb.db.update(mailOutbox).set({ status: "sending", attempts: 1 });
    await setJob(id, "live-lease");
    expect((await deliverMailNow({ ids: [id] })).get(id)).toBe("sending");
    expect(sink.received).toHaveLength(0);
  });
});

describe("the send → mark-sent window (at most once)", () => {
  let gated: GatedSmtpSink;
  let via: MailTransport;

  beforeAll(async () => {
    gated = await startGatedSmtpSink();
    via = createMailTransport({ smtpUrl: gated.url, mailDir: "/nonexistent" });
  });
  afterAll(async () => {
    await gated.close();
  });
  beforeEach(() => {
    gated.received.length = 0;
  });

  const row = async (id: string) =>
    (await testDb.db.select().from(mailOutbox).where(eq(mailOutbox.id, id)))[0];

  it("a sender that lost its claim before the end of the message abandons it: the server never gets it", async () => {
    const { id } = await enqueueMail({ to: "fay@example.org", subject: "Fenced", ...body });
    const held = gated.holdAt("rcpt", 0);
    const sending = deliverMailNow({ ids: [id], transport: via });
    await held;
    // Meanwhile its lease ran out and another sender took the mail (attempt 2).
    await testDb.db
      .update(mailOutbox)
      .set({ status: "sending", attempts: 2 })
      .where(eq(mailOutbox.id, id));
    gated.release();
    expect((await sending).get(id)).toBe("sending");
    expect(gated.received).toHaveLength(0);
    // The first sender wrote nothing: the claim is the second sender's, untouched.
    expect(await row(id)).toMatchObject({ status: "sending", attempts: 2, dataEndAt: null });
  });

  it("a connection lost after the end of the message makes the mail uncertain, never resent", async () => {
    const { id } = await enqueueMail({ to: "gus@example.org", subject: "Unanswered", ...body });
    const held = gated.holdAt("data-end", 0);
    const sending = deliverMailNow({ ids: [id], transport: via });
    await held;
    gated.dropConnections();
    expect((await sending).get(id)).toBe("uncertain");
    const stored = await row(id);
    expect(stored?.status).toBe("uncertain");
    expect(stored?.dataEndAt).not.toBeNull();
    expect(stored?.lastError).toContain("may have it");
    // Neither a runner nor an explicit retry sends it again.
    expect((await deliverDueMail({ transport: via })).size).toBe(0);
    expect((await deliverMailNow({ ids: [id], transport: via })).get(id)).toBe("uncertain");
    expect(gated.countsByMessageId().get(`<${id}@soundtrail>`)).toBe(1);
  });

  it("a refusal of the message clears the mark: the server said no, so it is retried", async () => {
    const { id } = await enqueueMail({ to: "hal@example.org", subject: "Refused", ...body });
    const held = gated.holdAt("data-end", 0);
    const sending = deliverMailNow({ ids: [id], transport: via });
    await held;
    gated.release(Object.assign(new Error("451 Try again later"), { responseCode: 451 }));
    expect((await sending).get(id)).toBe("failed");
    expect(await row(id)).toMatchObject({ status: "failed", dataEndAt: null });
    expect((await deliverMailNow({ ids: [id], transport: via })).get(id)).toBe("sent");
  });

  it("after a crash, sends again what never reached the end of its message, and only that", async () => {
    const before = await enqueueMail({ to: "ida@example.org", subject: "Before", ...body });
    const after = await enqueueMail({ to: "jo@example.org", subject: "After", ...body });
    const held = await enqueueMails(
      [{ ...body, to: "kim@example.org", subject: "Held", idempotencyKey: "held-1" }],
      {
        holdSeconds: 120,
      },
    );
    // What a process killed mid-send leaves: two live claims, one past the end of its message.
    await testDb.db
      .update(mailOutbox)
      .set({ status: "sending", attempts: 1 })
      .where(inArray(mailOutbox.id, [before.id, after.id]));
    await setJob(before.id, "live-lease");
    await setJob(after.id, "live-lease");
    await testDb.db
      .update(mailOutbox)
      .set({ dataEndAt: sql`now()` })
      .where(eq(mailOutbox.id, after.id));
    expect(await recoverInterruptedMail()).toEqual({ resent: 1, uncertain: 1 });
    const outcomes = await deliverDueMail({ transport: via });
    expect(outcomes.get(before.id)).toBe("sent");
    expect(outcomes.get(held.get("held-1")?.id ?? "")).toBe("sent");
    expect(outcomes.get(after.id)).toBe("uncertain");
    expect(await row(after.id)).toMatchObject({ status: "uncertain" });
    expect(gated.received.map((m) => m.to[0]).sort()).toEqual([
      "ida@example.org",
      "kim@example.org",
    ]);
  });
});
