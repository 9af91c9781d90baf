import {
  EMAIL_BATCH_CONCURRENCY,
  EMAIL_BATCH_SIZE,
  settleWithConcurrency,
  splitIntoBatches,
} from "./batches";
import {
  applyPlaceholders,
  applyTextPlaceholders,
  type PlaceholderRecipient,
} from "./placeholders";
import type { SendEmailBatchResponse } from "./schemas";

export interface SendableRecipient extends PlaceholderRecipient {
  userId: string;
  email: string;
}

export interface SendableCampaign {
  id: string;
  from: string;
  subject: string;
  /** The template, with `{{username}}` and `{{display_name}}` still in it. */
  html: string;
}

export interface FailedRecipient<R extends SendableRecipient = SendableRecipient> {
  recipient: R;
  error: string;
}

export interface BulkSendOutcome<R extends SendableRecipient = SendableRecipient> {
  sent: number;
  /** Accepted and recorded, being delivered in the background. */
  queued: number;
  /** Left out because they unsubscribed meanwhile. */
  skipped: number;
  failed: FailedRecipient<R>[];
  batches: number;
  failedBatches: number;
}

export interface BulkSendOptions<R extends SendableRecipient> {
  campaign: SendableCampaign;
  recipients: readonly R[];
  /** Posts one batch to `/api/send-email-batch`; throws when the request as a whole fails. */
  postBatch: (body: {
    campaignId?: string;
    emails: { from: string; to: [string]; subject: string; html: string }[];
  }) => Promise<SendEmailBatchResponse>;
  onProgress?: (done: number, total: number) => void;
  batchSize?: number;
  concurrency?: number;
}

/**
 * Sends a campaign the way spec §5/§7 describe: recipients split into batches of 100, each
 * mail's placeholders filled in for its recipient, batches posted in parallel (3 at a time).
 * A failed batch never stops the others; every recipient that did not go out is returned
 * with the reason, ready for a retry.
 */
export async function sendCampaignInBatches<R extends SendableRecipient>(
  options: BulkSendOptions<R>,
): Promise<BulkSendOutcome<R>> {
  const batches = splitIntoBatches(options.recipients, options.batchSize ?? EMAIL_BATCH_SIZE);
  const total = options.recipients.length;
  let done = 0;
  options.onProgress?.(0, total);
  const outcome: BulkSendOutcome<R> = {
    sent: 0,
    queued: 0,
    skipped: 0,
    failed: [],
    batches: batches.length,
    failedBatches: 0,
  };
  const settled = await settleWithConcurrency(
    batches,
    options.concurrency ?? EMAIL_BATCH_CONCURRENCY,
    async (batch) => {
      try {
        return await options.postBatch({
          campaignId: options.campaign.id,
          emails: batch.map((recipient) => ({
            from: options.campaign.from,
            to: [recipient.email],
            subject: applyTextPlaceholders(options.campaign.subject, recipient),
            html: applyPlaceholders(options.campaign.html, recipient),
          })),
        });
      } finally {
        done += batch.length;
        options.onProgress?.(done, total);
      }
    },
  );
  settled.forEach((result, index) => {
    const batch = batches[index] ?? [];
    if (result.status === "rejected") {
      outcome.failedBatches++;
      const error =
        result.reason instanceof Error ? result.reason.message : "The batch could not be sent.";
      for (const recipient of batch) outcome.failed.push({ recipient, error });
      return;
    }
    let batchFailed = false;
    batch.forEach((recipient, i) => {
      const answer = result.value.results[i];
      if (!answer) {
        batchFailed = true;
        outcome.failed.push({ recipient, error: "No answer for this mail." });
      } else if (answer.ok) {
        if (answer.status === "sent") outcome.sent++;
        else outcome.queued++;
      } else if (answer.status === "skipped") {
        outcome.skipped++;
      } else {
        batchFailed = true;
        outcome.failed.push({ recipient, error: answer.error });
      }
    });
    if (batchFailed) outcome.failedBatches++;
  });
  return outcome;
}
