import { z } from "zod";
import { EMAIL_BATCH_SIZE } from "./batches";
import { MAX_HTML_LENGTH, MAX_REASON_LENGTH, MAX_SUBJECT_LENGTH } from "./limits";

const subject = z
  .string({ error: "Give the mail a subject." })
  .trim()
  .min(1, "Give the mail a subject.")
  .max(MAX_SUBJECT_LENGTH, `Keep the subject under ${MAX_SUBJECT_LENGTH + 1} characters.`);
const html = z
  .string({ error: "Write the body of the mail." })
  .refine((value) => value.trim().length > 0, "Write the body of the mail.")
  .refine(
    (value) => value.length <= MAX_HTML_LENGTH,
    `Keep the body under ${MAX_HTML_LENGTH + 1} characters.`,
  );

/** One mail of `POST /api/send-email-batch` (spec §7: from, to with one address, subject, html). */
export const batchEmailSchema = z.object({
  from: z.string({ error: "Give a sender." }).trim().min(1, "Give a sender.").max(320),
  to: z
    .array(z.string(), { error: "List the recipient in `to`." })
    .length(1, "Send each mail to exactly one address.")
    .pipe(z.array(z.email("This is not a valid e-mail address.").max(254))),
  subject,
  html,
});

/**
 * The body of `POST /api/send-email-batch`: spec §7's `{ emails: [{ from, to, subject, html }] }`.
 * The optional `campaignId` ties the mails to a stored campaign (the admin screen's bulk mail),
 * whose recipients give every mail its idempotency key (`campaign:<id>:<userId>`).
 */
export const sendEmailBatchSchema = z.object({
  campaignId: z.uuid("This is not the id of a bulk e-mail.").optional(),
  emails: z
    .array(batchEmailSchema, { error: "Send a list of mails in `emails`." })
    .min(1, "Send at least one mail.")
    .max(EMAIL_BATCH_SIZE, `Send at most ${EMAIL_BATCH_SIZE} mails per batch.`),
});
export type SendEmailBatchInput = z.infer<typeof sendEmailBatchSchema>;

/** Issues of a failed parse as `emails.3.to: message` lines. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) =>
    issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message,
  );
}

/** What `/api/send-email-batch` answers for each mail, in the order they were sent. */
export type BatchEmailResult =
  | { to: string; ok: true; id: string; status: "sent" | "queued" }
  | {
      to: string;
      ok: false;
      id?: string;
      status: "failed" | "skipped" | "rejected";
      error: string;
    };

export interface SendEmailBatchResponse {
  results: BatchEmailResult[];
  sent: number;
  failed: number;
}

/** The bulk e-mail form: a campaign and who gets it. */
export const campaignSchema = z
  .object({
    subject,
    html,
    audience: z.enum(["everyone", "selected"], { error: "Choose who gets the mail." }),
    userIds: z.array(z.string().min(1).max(200)).max(100_000).default([]),
  })
  .superRefine((value, ctx) => {
    if (value.audience === "selected" && value.userIds.length === 0) {
      ctx.addIssue({ code: "custom", path: ["userIds"], message: "Choose at least one person." });
    }
  });
export type CampaignInput = z.infer<typeof campaignSchema>;

const reason = z
  .string({ error: "Give a reason." })
  .trim()
  .min(1, "Give a reason.")
  .max(MAX_REASON_LENGTH, `Keep the reason under ${MAX_REASON_LENGTH + 1} characters.`);

const userId = z.string().min(1).max(200);

/** The users table's actions. */
export const userActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("grant-admin"), userId }),
  z.object({ intent: z.literal("revoke-admin"), userId }),
  z.object({ intent: z.literal("ban"), userId, reason }),
  z.object({ intent: z.literal("unban"), userId }),
]);
export type UserAction = z.infer<typeof userActionSchema>;

/** Deleting a comment as a moderator. */
export const deleteCommentSchema = z.object({
  intent: z.literal("delete"),
  commentId: z.uuid("Choose a comment."),
  reason,
});

/** The reports queue's actions. */
export const reportActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("resolve"), reportId: z.uuid() }),
  z.object({ intent: z.literal("delete-content"), reportId: z.uuid(), reason }),
]);
export type ReportAction = z.infer<typeof reportActionSchema>;

export const jobActionSchema = z.object({
  intent: z.enum(["retry", "discard"], { error: "Choose retry or discard." }),
  jobId: z.coerce
    .number({ error: "Not a job." })
    .int("Not a job.")
    .positive("Not a job.")
    .max(Number.MAX_SAFE_INTEGER, "Not a job."),
});
export type JobAction = z.infer<typeof jobActionSchema>;
