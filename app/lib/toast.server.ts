import { createHmac, timingSafeEqual } from "node:crypto";
import { redirect } from "react-router";
import { z } from "zod";
import { parseCookies, serializeCookie } from "./cookies.server";
import { getEnv, resolveAuthSecret } from "./env.server";
import { FLASH_COOKIE, type ToastMessage } from "./toast";

/** A flashed toast: what the cookie may carry (it is signed, but checked all the same). */
const toastSchema = z.object({
  id: z.string().max(64).optional(),
  type: z.enum(["info", "success", "warning", "error"]).default("info"),
  title: z.string().min(1).max(140),
  description: z.string().max(500).optional(),
}) satisfies z.ZodType<ToastMessage, unknown>;

function sign(payload: string): string {
  const secret = resolveAuthSecret(getEnv());
  return createHmac("sha256", secret).update(`flash:${payload}`).digest("base64url");
}

/** A Set-Cookie header carrying a toast for the next page the browser loads. */
export function flashToastCookie(toast: ToastMessage): string {
  const payload = Buffer.from(JSON.stringify(toastSchema.parse(toast))).toString("base64url");
  return serializeCookie(FLASH_COOKIE, `${payload}.${sign(payload)}`, {
    httpOnly: true,
    maxAge: 60,
  });
}

export const clearFlashCookie = serializeCookie(FLASH_COOKIE, "", { httpOnly: true, maxAge: 0 });

/** Reads the flashed toast of a request, if any, and whether a cookie needs clearing. */
export function readFlashToast(request: Request): { toast: ToastMessage | null; present: boolean } {
  const raw = parseCookies(request.headers.get("Cookie")).get(FLASH_COOKIE);
  if (!raw) return { toast: null, present: false };
  const [payload, mac] = raw.split(".");
  if (!payload || !mac) return { toast: null, present: true };
  const expected = Buffer.from(sign(payload));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { toast: null, present: true };
  }
  try {
    const parsed = toastSchema.safeParse(JSON.parse(Buffer.from(payload, "base64url").toString()));
    return { toast: parsed.success ? parsed.data : null, present: true };
  } catch {
    return { toast: null, present: true };
  }
}

/** `redirect()` that shows `toast` on the page it lands on. */
export function redirectWithToast(url: string, toast: ToastMessage, init?: ResponseInit) {
  const headers = new Headers(init?.headers);
  headers.append("Set-Cookie", flashToastCookie(toast));
  return redirect(url, { ...init, headers });
}
