import {
  type ButtonHTMLAttributes,
  type ReactNode,
  type RefObject,
  useId,
  useImperativeHandle,
  useRef,
} from "react";
import { Button } from "./button";

export interface DialogHandle {
  /** Opens the dialog modally; focus goes into it and returns to `returnFocusTo` on close. */
  open(returnFocusTo?: HTMLElement | null): void;
  close(): void;
}

/**
 * The one modal of the app (docs/decisions/020-ui-primitives.md): the native `<dialog>` opened
 * with `showModal()`. The browser makes the page behind inert, traps focus, closes it on
 * Escape and exposes it as a modal dialog; this adds the title as its name and puts focus back
 * on what opened it.
 */
export function Dialog({
  ref,
  title,
  description,
  children,
  onClose,
}: {
  ref: RefObject<DialogHandle | null>;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  onClose?: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const descriptionId = useId();
  useImperativeHandle(ref, () => ({
    open(returnFocusTo) {
      opener.current =
        returnFocusTo ??
        (document.activeElement instanceof HTMLElement ? document.activeElement : null);
      dialog.current?.showModal();
    },
    close() {
      dialog.current?.close();
    },
  }));
  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onClose={() => {
        onClose?.();
        // Escape, Cancel or the action: focus returns to the control that opened it.
        if (opener.current?.isConnected) opener.current.focus();
        opener.current = null;
      }}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl border border-border bg-background p-0 text-foreground shadow-xl backdrop:bg-black/50"
    >
      <div className="flex flex-col gap-4 p-6">
        <h2 id={titleId} className="text-lg font-semibold">
          {title}
        </h2>
        {description ? (
          <div id={descriptionId} className="text-sm text-muted-foreground">
            {description}
          </div>
        ) : null}
        {children}
      </div>
    </dialog>
  );
}

/**
 * A submit button that asks first: it submits its form only after "confirm" in a dialog.
 * Without JavaScript it submits straight away (as the action is still checked on the server).
 * Replaces `window.confirm`, which cannot be styled, read well by screen readers, or tested.
 */
export function ConfirmSubmitButton({
  title,
  description,
  confirmLabel,
  children,
  ...button
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, "type" | "title"> & {
  title: string;
  description?: ReactNode;
  confirmLabel: string;
}) {
  const dialog = useRef<DialogHandle>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const confirmed = useRef(false);
  return (
    <>
      <button
        {...button}
        ref={trigger}
        type="submit"
        onClick={(event) => {
          button.onClick?.(event);
          if (event.defaultPrevented) return;
          if (confirmed.current) {
            confirmed.current = false;
            return;
          }
          event.preventDefault();
          dialog.current?.open(event.currentTarget);
        }}
      >
        {children}
      </button>
      <Dialog ref={dialog} title={title} description={description}>
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={() => dialog.current?.close()}>
            Cancel
          </Button>
          <Button
            variant="danger"
            onClick={() => {
              dialog.current?.close();
              // Submit through the trigger, so its name/value and the form's handlers apply.
              confirmed.current = true;
              trigger.current?.click();
            }}
          >
            {confirmLabel}
          </Button>
        </div>
      </Dialog>
    </>
  );
}
