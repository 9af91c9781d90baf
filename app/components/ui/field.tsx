import { type InputHTMLAttributes, useId } from "react";
import { cn } from "~/lib/utils";

/** A labelled input with its hint and errors announced to assistive technology. */
export function Field({
  label,
  errors,
  hint,
  className,
  ...input
}: InputHTMLAttributes<HTMLInputElement> & { label: string; errors?: string[]; hint?: string }) {
  const id = useId();
  const errorId = `${id}-errors`;
  const hintId = `${id}-hint`;
  const hasErrors = Boolean(errors?.length);
  return (
    <div className={cn("flex flex-col gap-1.5", className)}>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        aria-invalid={hasErrors || undefined}
        aria-describedby={
          [hint ? hintId : null, hasErrors ? errorId : null].filter(Boolean).join(" ") || undefined
        }
        className={cn(
          "h-10 rounded-lg border bg-background px-3 text-foreground",
          hasErrors ? "border-danger" : "border-border",
        )}
        {...input}
      />
      {hint ? (
        <p id={hintId} className="text-xs text-muted-foreground">
          {hint}
        </p>
      ) : null}
      <FieldErrorList id={errorId} errors={errors} />
    </div>
  );
}

/** A field's error messages, under it; `id` is what the field's aria-describedby names. */
export function FieldErrorList({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return null;
  return (
    <ul id={id} className="text-sm text-danger">
      {errors.map((e) => (
        <li key={e}>{e}</li>
      ))}
    </ul>
  );
}

/** The sentence for the whole form (a refusal's `message`), at its top and announced. */
export function FormErrors({ message }: { message?: string | null }) {
  if (!message) return null;
  return (
    <div
      role="alert"
      className="rounded-lg border border-danger bg-background p-3 text-sm text-danger"
    >
      <p>{message}</p>
    </div>
  );
}
