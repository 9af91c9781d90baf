import { useCallback, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import { showToast } from "~/components/ui/toaster";
import {
  type BulkSendOutcome,
  type SendableCampaign,
  type SendableRecipient,
  sendCampaignInBatches,
} from "../bulk-send";
import { SEND_FAILED } from "../errors";
import type { SendEmailBatchResponse } from "../schemas";

async function postBatch(body: unknown): Promise<SendEmailBatchResponse> {
  const response = await fetch("/api/send-email-batch", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json().catch(() => null)) as
    | (SendEmailBatchResponse & { message?: string })
    | null;
  if (!response.ok || !json) {
    throw new Error(json?.message ?? `The server answered ${response.status}.`);
  }
  return json;
}

export type BulkSendState =
  | { phase: "idle" }
  | { phase: "sending"; subject: string; done: number; total: number }
  | {
      phase: "finished";
      subject: string;
      campaign: SendableCampaign;
      outcome: BulkSendOutcome;
      total: number;
    };

/**
 * Sends a campaign from the browser in batches and keeps what the page shows: progress while
 * sending, then the outcome with the recipients that failed (for "Retry failed").
 */
export function useBulkSender() {
  const [state, setState] = useState<BulkSendState>({ phase: "idle" });
  const running = useRef(false);
  const revalidator = useRevalidator();

  const send = useCallback(
    async (campaign: SendableCampaign, recipients: readonly SendableRecipient[]) => {
      if (running.current) return;
      running.current = true;
      setState({ phase: "sending", subject: campaign.subject, done: 0, total: recipients.length });
      try {
        const outcome = await sendCampaignInBatches({
          campaign,
          recipients,
          postBatch,
          onProgress: (done, total) =>
            setState({ phase: "sending", subject: campaign.subject, done, total }),
        });
        setState({
          phase: "finished",
          subject: campaign.subject,
          campaign,
          outcome,
          total: recipients.length,
        });
        if (outcome.failed.length > 0) {
          showToast({
            type: "error",
            title: SEND_FAILED,
            description: `${outcome.failed.length} of ${recipients.length} did not go out. Retry them below.`,
          });
        } else {
          showToast({
            type: "success",
            title: `Sent to ${outcome.sent + outcome.queued} ${outcome.sent + outcome.queued === 1 ? "person" : "people"}.`,
          });
        }
      } finally {
        running.current = false;
        void revalidator.revalidate();
      }
    },
    [revalidator],
  );

  const retryFailed = useCallback(() => {
    if (state.phase !== "finished" || state.outcome.failed.length === 0) return;
    void send(
      state.campaign,
      state.outcome.failed.map((failure) => failure.recipient),
    );
  }, [state, send]);

  return { state, send, retryFailed };
}
