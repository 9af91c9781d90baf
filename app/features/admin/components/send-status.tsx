import { useId } from "react";
import { Button } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { SEND_FAILED } from "../errors";
import type { BulkSendState } from "./use-bulk-sender";

/** Progress while a bulk mail goes out, then what happened, with a retry for failures. */
export function SendStatus({ state, onRetry }: { state: BulkSendState; onRetry: () => void }) {
  const progressId = useId();
  if (state.phase === "idle") return null;
  if (state.phase === "sending") {
    return (
      <div className="flex flex-col gap-2 rounded-xl border border-border p-4">
        <label htmlFor={progressId} className="text-sm font-medium">
          Sending “{state.subject}”
        </label>
        <progress
          id={progressId}
          max={state.total}
          value={state.done}
          className="h-3 w-full overflow-hidden rounded-full accent-primary [&::-webkit-progress-bar]:bg-muted [&::-webkit-progress-value]:bg-primary"
        />
        <p className="text-sm text-muted-foreground" aria-live="polite">
          {state.done} of {state.total} handled…
        </p>
      </div>
    );
  }
  const { outcome, total } = state;
  const delivered = outcome.sent + outcome.queued;
  if (outcome.failed.length === 0) {
    return (
      <div role="status" className="flex items-start gap-3 rounded-xl border border-border p-4">
        <Icon name="circle-check" className="mt-0.5 size-5 shrink-0 text-primary" />
        <div>
          <p className="font-semibold">
            “{state.subject}” went out to {delivered} of {total} {total === 1 ? "person" : "people"}
            .
          </p>
          {outcome.skipped > 0 ? (
            <p className="text-sm text-muted-foreground">
              {outcome.skipped} unsubscribed meanwhile and were left out.
            </p>
          ) : null}
        </div>
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-3 rounded-xl border border-danger p-4">
      <div role="alert" className="flex items-start gap-3 text-danger">
        <Icon name="triangle-exclamation-point" className="mt-0.5 size-5 shrink-0" />
        <div>
          <p className="font-semibold">{SEND_FAILED}</p>
          <p className="text-sm">
            {delivered} of {total} went out; {outcome.failed.length} did not (
            {outcome.failedBatches} of {outcome.batches}{" "}
            {outcome.batches === 1 ? "batch" : "batches"} had failures). They are kept and will be
            retried automatically; you can also retry them now.
          </p>
        </div>
      </div>
      <Button onClick={onRetry} className="self-start">
        <Icon name="rotate-cw" className="size-4" />
        Retry failed ({outcome.failed.length})
      </Button>
      <details>
        <summary className="cursor-pointer text-sm font-medium">Show who did not get it</summary>
        <ul className="mt-2 max-h-64 overflow-y-auto text-sm">
          {outcome.failed.map(({ recipient, error }) => (
            <li key={recipient.userId} className="border-t border-border py-1.5 break-words">
              <span className="font-medium">{recipient.email}</span>:{" "}
              <span className="text-muted-foreground">{error}</span>
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
