import { z } from "zod";

export const MISSING_CREDENTIALS =
  "You must provide either an email or phone number and a password";
export const MISSING_IDENTIFIER = "You must provide either an email or phone number.";

const trimmed = z.string().trim();

export const signupSchema = z
  .object({
    email: trimmed.max(254).optional(),
    password: z.string().max(128).optional(),
    username: trimmed
      .min(3, "Use at least 3 characters.")
      .max(30, "Use at most 30 characters.")
      .regex(/^[A-Za-z0-9_.]+$/, "Use only letters, digits, “_” and “.”."),
    displayName: trimmed
      .min(1, "Tell people what to call you.")
      .max(60, "Use at most 60 characters."),
    redirectTo: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    if (!value.email || !value.password) {
      ctx.addIssue({ code: "custom", path: ["form"], message: MISSING_CREDENTIALS });
      return;
    }
    if (!z.email().safeParse(value.email).success) {
      ctx.addIssue({ code: "custom", path: ["email"], message: "Enter a valid e-mail address." });
    }
  });

export const loginSchema = z
  .object({
    email: trimmed.max(254).optional(),
    password: z.string().max(128).optional(),
    redirectTo: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    if (!value.email || !value.password) {
      ctx.addIssue({ code: "custom", path: ["form"], message: MISSING_CREDENTIALS });
    }
  });

/** Field errors keyed by field name (`form` for the whole form). */
export type FieldErrors = Partial<Record<string, string[]>>;

export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    const list = out[key] ?? [];
    list.push(issue.message);
    out[key] = list;
  }
  return out;
}

/** Reads a form into a plain object, turning empty strings into undefined. */
export function formValues(form: FormData): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of form.entries()) {
    if (typeof value === "string") out[key] = value === "" ? undefined : value;
  }
  return out;
}
