import { z } from "zod";

export const MISSING_CREDENTIALS =
  "You must provide either an email or phone number and a password";
export const MISSING_IDENTIFIER = "You must provide either an email or phone number.";

const trimmed = z.string().trim();

/**
 * A phone number in international form: `+49 151 2345-678` and `0049…` become `+491512345678`.
 * Returns null when it cannot be one.
 */
export function normalizePhone(input: string): string | null {
  let phone = input.replace(/[\s().-]/g, "");
  if (phone.startsWith("00")) phone = `+${phone.slice(2)}`;
  return /^\+[1-9]\d{6,14}$/.test(phone) ? phone : null;
}

const INVALID_PHONE =
  "Enter a phone number in international form, starting with + and the country code.";

/** Checks `email` / `phone` (one of them is used) and normalises the phone number. */
function checkContact(value: { email?: string; phone?: string }, ctx: z.RefinementCtx): void {
  if (value.email && !z.email().safeParse(value.email).success) {
    ctx.addIssue({ code: "custom", path: ["email"], message: "Enter a valid e-mail address." });
  }
  if (!value.email && value.phone && !normalizePhone(value.phone)) {
    ctx.addIssue({ code: "custom", path: ["phone"], message: INVALID_PHONE });
  }
}

const CREDENTIAL_FIELDS = new Set(["email", "phone", "password"]);

export const signupSchema = z
  .object({
    email: trimmed.max(254).optional(),
    phone: trimmed.max(32).optional(),
    password: z.string().max(128).optional(),
    username: z
      .string({ error: "Choose a username." })
      .trim()
      .min(3, "Use at least 3 characters.")
      .max(30, "Use at most 30 characters.")
      .regex(/^[A-Za-z0-9_.]+$/, "Use only letters, digits, “_” and “.”."),
    displayName: z
      .string({ error: "Tell people what to call you." })
      .trim()
      .min(1, "Tell people what to call you.")
      .max(60, "Use at most 60 characters."),
    redirectTo: z.string().optional(),
  })
  // Also when the username or display name is wrong: every mistake shows at once.
  .superRefine(
    (value, ctx) => {
      if (!(value.email || value.phone) || !value.password) {
        ctx.addIssue({ code: "custom", path: ["form"], message: MISSING_CREDENTIALS });
        return;
      }
      checkContact(value, ctx);
    },
    {
      // Runs when the contact and password fields parsed (whatever the other fields hold):
      // a field of the wrong type has its own message and would break the checks here.
      when: (payload) =>
        typeof payload.value === "object" &&
        payload.value !== null &&
        !payload.issues.some((issue) => CREDENTIAL_FIELDS.has(String(issue.path?.[0]))),
    },
  )
  .transform((value) => ({
    ...value,
    phone: value.email ? undefined : (normalizePhone(value.phone ?? "") ?? undefined),
  }));

/** The sign-in form: a password, or a one-time code by e-mail or SMS. */
export const loginSchema = z
  .object({
    intent: z.enum(["password", "code"]).default("password"),
    email: trimmed.max(254).optional(),
    phone: trimmed.max(32).optional(),
    password: z.string().max(128).optional(),
    redirectTo: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    if (value.intent === "code" && !(value.email || value.phone)) {
      ctx.addIssue({ code: "custom", path: ["form"], message: MISSING_IDENTIFIER });
      return;
    }
    if (value.intent === "password" && (!(value.email || value.phone) || !value.password)) {
      ctx.addIssue({ code: "custom", path: ["form"], message: MISSING_CREDENTIALS });
      return;
    }
    checkContact(value, ctx);
  })
  .transform((value) => ({
    ...value,
    phone: value.email ? undefined : (normalizePhone(value.phone ?? "") ?? undefined),
  }));

export const codeSchema = z.object({
  code: trimmed.min(1, "Enter the code.").max(32, "That code is too long."),
});

export type { FieldErrors } from "~/lib/forms";

/** Reads a form into a plain object, turning empty strings into undefined. */
export function formValues(form: FormData): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of form.entries()) {
    if (typeof value === "string") out[key] = value === "" ? undefined : value;
  }
  return out;
}
