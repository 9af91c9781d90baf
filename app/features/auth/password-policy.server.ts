import { createRequire } from "node:module";

export type WeakPasswordReason = "length" | "characters" | "pwned";

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 128;

let common: Set<string> | undefined;
/**
 * The list is read on the first password checked, not when the server starts: zxcvbn's
 * dictionaries are several megabytes a server answering pages does not need (issue 17, memory).
 */
function commonPasswords(): Set<string> {
  if (!common) {
    const { dictionary } = createRequire(import.meta.url)(
      "@zxcvbn-ts/language-common",
    ) as typeof import("@zxcvbn-ts/language-common");
    common = new Set((dictionary["passwords-common"] as string[]).map((p) => p.toLowerCase()));
  }
  return common;
}

/**
 * Why a password is too weak (empty when it is fine): shorter than 10 characters, fewer than
 * two kinds of characters (lower, upper, digit, symbol), or on the bundled list of ~49,000
 * commonly used passwords (checked offline), or the same as the user's own name or address.
 */
export function weakPasswordReasons(
  password: string,
  personal: (string | undefined | null)[] = [],
): WeakPasswordReason[] {
  const reasons: WeakPasswordReason[] = [];
  if ([...password].length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    reasons.push("length");
  }
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((re) =>
    re.test(password),
  ).length;
  if (kinds < 2) reasons.push("characters");
  const lower = password.toLowerCase();
  const personalValues = personal
    .filter((v): v is string => Boolean(v))
    .flatMap((v) => [v.toLowerCase(), v.toLowerCase().split("@")[0] ?? ""])
    .filter((v) => v.length >= 3);
  if (commonPasswords().has(lower) || personalValues.includes(lower)) reasons.push("pwned");
  return reasons;
}

export const weakPasswordMessages: Record<WeakPasswordReason, string> = {
  length: `Use at least ${MIN_PASSWORD_LENGTH} characters (and at most ${MAX_PASSWORD_LENGTH}).`,
  characters: "Mix at least two kinds of characters: lower case, upper case, digits or symbols.",
  pwned: "This password is too common or too easy to guess. Choose another one.",
};
