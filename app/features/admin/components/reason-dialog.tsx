import { type ReactNode, useEffect, useId, useRef } from "react";
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { MAX_REASON_LENGTH } from "../limits";
import type { ActionResult } from "./action-toast";

/**
 * A button that opens a modal asking for a reason before a moderation action (delete, ban).
 * Built on <dialog>: focus moves into it, Escape closes it, the page behind is inert.
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
  const dialog = useRef<HTMLDialogElement>(null);
  const fetcher = useFetcher<ActionResult>();
  const titleId = useId();
  const reasonId = useId();
  const errorId = useId();
  const busy = fetcher.state !== "idle";
  const error = fetcher.data && !fetcher.data.ok ? fetcher.data.error : null;

  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok) dialog.current?.close();
  }, [fetcher.state, fetcher.data]);

  return (
    <>
      <Button
        variant="secondary"
        size="sm"
        aria-label={triggerLabel}
        onClick={() => dialog.current?.showModal()}
      >
        {trigger}
      </Button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl border border-border bg-background p-0 text-foreground shadow-xl backdrop:bg-black/50"
      >
        <fetcher.Form method="post" action={action} className="flex flex-col gap-4 p-6">
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          <div className="text-sm text-muted-foreground">{description}</div>
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
      </dialog>
    </>
  );
}
