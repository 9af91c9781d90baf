import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { and, eq, gt } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { verification } from "~/db/schema";
import { getEnv, resolveAuthSecret } from "~/lib/env.server";

/** Codes sent by SMS: 6 digits, 10 minutes, 5 tries. */
export const CODE_LENGTH = 6;
export const CODE_TTL_S = 10 * 60;
export const CODE_MAX_ATTEMPTS = 5;

export type CodePurpose = "phone-sign-up" | "phone-sign-in" | "phone-change";

function identifierOf(purpose: CodePurpose, subject: string): string {
  return `code:${purpose}:${subject}`;
}

/** A keyed hash: a leaked table does not give the codes away, and codes are short-lived. */
export function hashCode(subject: string, code: string): string {
  const secret = resolveAuthSecret(getEnv());
  return createHmac("sha256", secret).update(`${subject}\0${code}`).digest("base64url");
}

/** Creates a fresh code for `subject` (replacing any earlier one) and returns it to be sent. */
export async function issueCode(options: {
  purpose: CodePurpose;
  subject: string;
  /** Extra state to keep with the code (e.g. a pending sign-up), returned on success. */
  payload?: unknown;
}): Promise<string> {
  const code = String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, "0");
  const identifier = identifierOf(options.purpose, options.subject);
  const value = JSON.stringify({
    hash: hashCode(options.subject, code),
    attempts: 0,
    payload: options.payload ?? null,
  });
  const db = getDb();
  await db.transaction(async (tx) => {
    await tx.delete(verification).where(eq(verification.identifier, identifier));
    await tx.insert(verification).values({
      id: crypto.randomUUID(),
      identifier,
      value,
      expiresAt: new Date(Date.now() + CODE_TTL_S * 1000),
    });
  });
  return code;
}

export type CodeCheck =
  | { ok: true; payload: unknown }
  | { ok: false; reason: "invalid" | "expired" | "too_many_attempts" };

interface StoredCode {
  hash: string;
  attempts: number;
  payload: unknown;
}

/**
 * Checks `code` and consumes it on success. Each wrong try counts; the fifth ends the code.
 * The row is locked while it is checked, so two guesses cannot race past the limit.
 */
export async function consumeCode(options: {
  purpose: CodePurpose;
  subject: string;
  code: string;
}): Promise<CodeCheck> {
  const identifier = identifierOf(options.purpose, options.subject);
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .select({ id: verification.id, value: verification.value })
      .from(verification)
      .where(and(eq(verification.identifier, identifier), gt(verification.expiresAt, new Date())))
      .for("update");
    if (!row) return { ok: false, reason: "expired" } as const;
    const stored = JSON.parse(row.value) as StoredCode;
    const expected = Buffer.from(stored.hash);
    const actual = Buffer.from(hashCode(options.subject, options.code.trim()));
    if (expected.length === actual.length && timingSafeEqual(expected, actual)) {
      await tx.delete(verification).where(eq(verification.id, row.id));
      return { ok: true, payload: stored.payload } as const;
    }
    const attempts = stored.attempts + 1;
    if (attempts >= CODE_MAX_ATTEMPTS) {
      await tx.delete(verification).where(eq(verification.id, row.id));
      return { ok: false, reason: "too_many_attempts" } as const;
    }
    await tx
      .update(verification)
      .set({ value: JSON.stringify({ ...stored, attempts }) })
      .where(eq(verification.id, row.id));
    return { ok: false, reason: "invalid" } as const;
  });
}
