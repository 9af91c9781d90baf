import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { parseCookies, serializeCookie } from "~/lib/cookies.server";
import { getEnv, resolveAuthSecret } from "~/lib/env.server";

/**
 * OWASP's "device cookies" against lockout: a device that once signed in to an account gets a
 * signed cookie naming that account. Password guesses from elsewhere use up the account's
 * budget; a known device has a budget of its own, so guessers cannot lock the owner out.
 */
export const DEVICE_COOKIE = "st_device";
const MAX_AGE_S = 400 * 24 * 60 * 60;

function sign(payload: string): string {
  return createHmac("sha256", resolveAuthSecret(getEnv()))
    .update(`device\0${payload}`)
    .digest("base64url");
}

function accountTag(account: string): string {
  return sign(`account\0${account.trim().toLowerCase()}`).slice(0, 22);
}

/** The Set-Cookie value that marks this device as one `account` signed in from. */
export function deviceCookieFor(account: string): string {
  const payload = `${accountTag(account)}.${randomBytes(12).toString("base64url")}`;
  return serializeCookie(DEVICE_COOKIE, `${payload}.${sign(payload)}`, {
    httpOnly: true,
    sameSite: "Lax",
    secure: new URL(getEnv().BASE_URL).protocol === "https:",
    maxAge: MAX_AGE_S,
  });
}

/**
 * The id of this device when its cookie is genuine and was issued for `account`, else null.
 * The id keys the device's own rate-limit budget.
 */
export function knownDeviceId(headers: Headers, account: string): string | null {
  const value = parseCookies(headers.get("Cookie")).get(DEVICE_COOKIE);
  if (!value) return null;
  const [tag, nonce, signature] = value.split(".");
  if (!tag || !nonce || !signature) return null;
  const expected = Buffer.from(sign(`${tag}.${nonce}`));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return tag === accountTag(account) ? nonce : null;
}
