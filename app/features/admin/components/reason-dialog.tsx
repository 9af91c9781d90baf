import { type ReactNode, useEffect, useId, useRef } from "react";
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Dialog, type DialogHandle } from "~/components/ui/dialog";
import { MAX_REASON_LENGTH } from "../limits";
import type { ActionResult } from "./action-toast";

/**
 * A button that opens a modal asking for a reason before a moderation action (delete, ban).
 * The app's one modal (`Dialog`, the native <dialog>): focus moves into it, Escape closes it,
 * the page behind is inert, and focus returns to the button.
 */
export function ReasonDialog({
  trigger,
  triggerLabel,
  title,
  description,
  confirmLabel,
  reasonLabel = "Reason",
  fields,
  action,
}: {
  trigger: ReactNode;
  /** The accessible name of the trigger button (e.g. "Delete comment by @ana"). */
  triggerLabel: string;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  reasonLabel?: string;
  /** Hidden fields sent with the reason (intent, ids). */
  fields: Record<string, string>;
  /** Where to post; defaults to the current route. */
  action?: string;
}) {
  const dialog = useRef<DialogHandle>(null);
  const fetcher = useFetcher<ActionResult>();
  const reasonId = useId();
  const errorId = useId();
  const busy = fetcher.state !== "idle";
  const error = fetcher.data && !fetcher.data.ok ? fetcher.data.message : null;

  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok) dialog.current?.close();
  }, [fetcher.state, fetcher.data]);

  return (
    <>
      <Button
        variant="secondary"
        size="sm"
        aria-label={triggerLabel}
        onClick={(event) => dialog.current?.open(event.currentTarget)}
      >
        {trigger}
      </Button>
      <Dialog ref={dialog} title={title} description={description}>
        <fetcher.Form method="post" action={action} className="flex flex-col gap-4">
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <div className="flex flex-col gap-1.5">
            <label htmlFor={reasonId} className="text-sm font-medium">
              {reasonLabel}
            </label>
            <textarea
              id={reasonId}
              name="reason"
              required
              maxLength={MAX_REASON_LENGTH}
              rows={3}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? errorId : undefined}
              className="rounded-lg border border-border bg-background px-3 py-2 text-foreground"
            />
            {error ? (
              <p id={errorId} role="alert" className="text-sm text-danger">
                {error}
              </p>
            ) : null}
          </div>
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={() => dialog.current?.close()}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" disabled={busy}>
              {busy ? "Working…" : confirmLabel}
            </Button>
          </div>
        </fetcher.Form>
      </Dialog>
    </>
  );
}
