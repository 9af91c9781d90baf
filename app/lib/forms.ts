import type { z } from "zod";

/** Field errors keyed by field name (`form` for the whole form). */
export type FieldErrors = Partial<Record<string, string[]>>;

/**
 * What every form action answers when it refuses (ADR 023): `message` is the sentence for the
 * whole form, shown at its top (absent when only fields are wrong); `fieldErrors` the messages
 * shown under each field, keyed by the field's name. Routes add what they echo back (`values`)
 * or which step the form is at.
 */
export interface FormFailure {
  ok: false;
  message?: string;
  fieldErrors: FieldErrors;
}

/**
 * The refusal in an action's data, or null: what a page shows when the action was refused at
 * the edge (app/lib/route-errors.server.ts) rather than by a `data()` of its own.
 */
export function failureIn(actionData: unknown): FormFailure | null {
  if (typeof actionData !== "object" || actionData === null) return null;
  const candidate = actionData as Partial<FormFailure>;
  return candidate.ok === false && typeof candidate.fieldErrors === "object"
    ? (actionData as FormFailure)
    : null;
}

/** A refusal from field errors, the whole form's (`form`) becoming its `message`. */
export function formFailure(errors: FieldErrors, message?: string): FormFailure {
  const { form, ...fieldErrors } = errors;
  const whole = [message, ...(form ?? [])].filter(Boolean).join(" ");
  return { ok: false, ...(whole ? { message: whole } : {}), fieldErrors };
}

/** A refusal with a sentence for the whole form, as fetcher actions show it in a toast. */
export type MessageFailure = FormFailure & { message: string };

/** An AppError (or any expected failure) as a refusal: its message for the whole form. */
export function messageFailure(message: string, fieldErrors: FieldErrors = {}): MessageFailure {
  return { ok: false, message, fieldErrors };
}

/** A refusal that always says something: its own message, else its first field's. */
export function withMessage(failure: FormFailure, fallback = "Check the form."): MessageFailure {
  return {
    ...failure,
    message: failure.message ?? Object.values(failure.fieldErrors).flat()[0] ?? fallback,
  };
}

/** The refusal of input its schema rejected. */
export function invalidForm(error: z.ZodError): FormFailure {
  return formFailure(zodFieldErrors(error));
}

export function zodFieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    const list = out[key] ?? [];
    if (!list.includes(issue.message)) list.push(issue.message);
    out[key] = list;
  }
  return out;
}

/** The string fields of a form as a plain object (files are skipped; empty strings kept). */
export function formStrings(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of form.entries()) {
    if (typeof value === "string" && !(key in out)) out[key] = value;
  }
  return out;
}
