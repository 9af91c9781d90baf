import { createHmac } from "node:crypto";
import { type Cookie, createCookie, redirect } from "react-router";
import { z } from "zod";
import { parseCookies } from "./cookies.server";
import { getEnv, resolveAuthSecret } from "./env.server";
import { FLASH_COOKIE, type ToastMessage } from "./toast";

/** A flashed toast: what the cookie may carry (it is signed, but checked all the same). */
const toastSchema = z.object({
  id: z.string().max(64).optional(),
  type: z.enum(["info", "success", "warning", "error"]).default("info"),
  title: z.string().min(1).max(140),
  description: z.string().max(500).optional(),
}) satisfies z.ZodType<ToastMessage, unknown>;

let cached: { secret: string; cookie: Cookie } | undefined;

/**
 * React Router's signed cookie for the toast shown on the next page. Its key is derived from
 * AUTH_SECRET for this purpose only, so a value signed for one cookie is never valid in another.
 */
function flashCookie(): Cookie {
  const secret = resolveAuthSecret(getEnv());
  if (cached?.secret !== secret) {
    const key = createHmac("sha256", secret).update("soundtrail flash-toast cookie").digest("hex");
    cached = {
      secret,
      cookie: createCookie(FLASH_COOKIE, {
        secrets: [key],
        httpOnly: true,
        maxAge: 60,
        path: "/",
        sameSite: "lax",
      }),
    };
  }
  return cached.cookie;
}

/** A Set-Cookie header carrying a toast for the next page the browser loads. */
export async function flashToastCookie(toast: ToastMessage): Promise<string> {
  return flashCookie().serialize(toastSchema.parse(toast));
}

/** The Set-Cookie header that removes a flashed toast once it was shown. */
export function clearFlashCookie(): Promise<string> {
  return flashCookie().serialize("", { maxAge: 0 });
}

/** Reads the flashed toast of a request, if any, and whether a cookie needs clearing. */
export async function readFlashToast(
  request: Request,
): Promise<{ toast: ToastMessage | null; present: boolean }> {
  const header = request.headers.get("Cookie");
  // Present at all (even forged or expired): then the answer clears it.
  if (!parseCookies(header).has(FLASH_COOKIE)) return { toast: null, present: false };
  let value: unknown;
  try {
    value = await flashCookie().parse(header);
  } catch {
    return { toast: null, present: true };
  }
  const parsed = toastSchema.safeParse(value);
  return { toast: parsed.success ? parsed.data : null, present: true };
}

/** `redirect()` that shows `toast` on the page it lands on. */
export async function redirectWithToast(
  url: string,
  toast: ToastMessage,
  init?: ResponseInit,
): Promise<Response> {
  const headers = new Headers(init?.headers);
  headers.append("Set-Cookie", await flashToastCookie(toast));
  return redirect(url, { ...init, headers });
}
