import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setDatabase } from "~/db/client.server";
import { mailOutbox } from "~/db/schema";
import { createTestDatabase, type TestDatabase } from "~/db/test-db.server";
import { startSmtpSink } from "../../../tests/support/smtp-sink";
import {
  createMailTransport,
  deliverDueMail,
  enqueueMail,
  type MailTransport,
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
});

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
    await testDb.db.update(mailOutbox).set({ nextAttemptAt: sql`now() - interval '1 second'` });
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
    await testDb.db
      .update(mailOutbox)
      .set({ status: "sending", attempts: 1, lockedUntil: sql`now() - interval '1 second'` });
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
