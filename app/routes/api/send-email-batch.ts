import { data } from "react-router";
import { sendEmailBatch } from "~/features/admin/email.server";
import { MAX_BATCH_REQUEST_BYTES } from "~/features/admin/limits";
import { describeIssues, sendEmailBatchSchema } from "~/features/admin/schemas";
import { requireAdminApi } from "~/features/auth/guards.server";
import { messageFailure } from "~/lib/forms";
import type { Route } from "./+types/send-email-batch";

export function loader() {
  throw data(messageFailure("Use POST to send a batch of e-mails."), {
    status: 405,
    headers: { Allow: "POST" },
  });
}

async function readJson(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > MAX_BATCH_REQUEST_BYTES) {
    throw data(messageFailure("The request is too large."), { status: 413 });
  }
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BATCH_REQUEST_BYTES) {
    throw data(messageFailure("The request is too large."), { status: 413 });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw data(messageFailure("The body is not valid JSON."), { status: 400 });
  }
}

/** An `Idempotency-Key` header (IETF draft): any visible ASCII, at most 255 characters. */
function idempotencyKeyOf(request: Request): string | null {
  const key = request.headers.get("Idempotency-Key")?.trim() ?? "";
  if (!key) return null;
  if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw data(messageFailure("Idempotency-Key must be 1 to 255 visible ASCII characters."), {
      status: 400,
    });
  }
  return key;
}

/**
 * `POST /api/send-email-batch` (spec §7), admin only: `{ emails: [{ from, to: [address],
 * subject, html }] }` with at most 100 mails, and optionally the admin screen's `campaignId`.
 * Answers `{ results: [{ to, ok, id?, status, error? }], sent, failed }`, one result per mail
 * in order (docs/api/send-email-batch.md).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const viewer = requireAdminApi(context);
  if (request.method !== "POST") {
    throw data(messageFailure("Use POST to send a batch of e-mails."), {
      status: 405,
      headers: { Allow: "POST" },
    });
  }
  const idempotencyKey = idempotencyKeyOf(request);
  const parsed = sendEmailBatchSchema.safeParse(await readJson(request));
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    throw data(
      { ...messageFailure(issues[0] ?? "The body is not valid."), issues },
      { status: 400 },
    );
  }
  return sendEmailBatch({ actorId: viewer.id, idempotencyKey, ...parsed.data });
}
