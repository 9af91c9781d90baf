import type { ResendState } from "~/components/hooks/use-resend";
import {
  FAILED_MESSAGE,
  FAILED_SAVE_MESSAGE,
  OFFLINE_MESSAGE,
  OFFLINE_SAVE_MESSAGE,
} from "~/lib/resilient-send";
import { cn } from "~/lib/utils";

/**
 * Says in place what became of a send the network let down (ADR 037): "You're offline — we'll
 * send it when you're back", or "Couldn't send — Retry" (a settings form says "save"). Nothing
 * when all is well; the live region is always there, so a screen reader hears the change.
 */
export function SendStatus({
  state,
  onRetry,
  verb = "send",
  className,
}: {
  state: ResendState;
  onRetry: () => void;
  verb?: "send" | "save";
  className?: string;
}) {
  const offline = verb === "save" ? OFFLINE_SAVE_MESSAGE : OFFLINE_MESSAGE;
  const failed = verb === "save" ? FAILED_SAVE_MESSAGE : FAILED_MESSAGE;
  return (
    <p
      role="status"
      className={cn(
        "text-sm text-foreground empty:hidden",
        state === "ok" ? "" : "rounded-md border border-border bg-muted px-2 py-1",
        className,
      )}
    >
      {state === "offline" ? offline : null}
      {state === "retrying" ? `${failed} — trying again…` : null}
      {state === "failed" ? (
        <>
          {failed} —{" "}
          <button type="button" onClick={onRetry} className="font-medium underline">
            Retry
          </button>
        </>
      ) : null}
    </p>
  );
}
