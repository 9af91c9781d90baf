import type { ResendState } from "~/components/hooks/use-resend";
import { FAILED_MESSAGE, OFFLINE_MESSAGE } from "~/lib/resilient-send";
import { cn } from "~/lib/utils";

/**
 * Says in place what became of a send the network let down (ADR 037): "You're offline — we'll
 * send it when you're back", or "Couldn't send — Retry". Nothing when all is well; the live
 * region is always there, so a screen reader hears the change.
 */
export function SendStatus({
  state,
  onRetry,
  className,
}: {
  state: ResendState;
  onRetry: () => void;
  className?: string;
}) {
  return (
    <p
      role="status"
      className={cn(
        "text-sm text-foreground empty:hidden",
        state === "ok" ? "" : "rounded-md border border-border bg-muted px-2 py-1",
        className,
      )}
    >
      {state === "offline" ? OFFLINE_MESSAGE : null}
      {state === "retrying" ? `${FAILED_MESSAGE} — trying again…` : null}
      {state === "failed" ? (
        <>
          {FAILED_MESSAGE} —{" "}
          <button type="button" onClick={onRetry} className="font-medium underline">
            Retry
          </button>
        </>
      ) : null}
    </p>
  );
}
