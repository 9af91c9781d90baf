import { redirect } from "react-router";
import { isAppError } from "~/core/errors";
import { logger } from "~/core/logger.server";
import type { MessageFailure } from "~/lib/forms";
import { loginUrlFor } from "~/lib/redirects";

/**
 * Runs an admin action and answers what the page shows as a toast: `{ ok: true, message }`;
 * a refusal (AppError) is answered at the edge as `{ ok: false, message, fieldErrors }` with
 * its status (app/lib/route-errors.server.ts), the shape of every fetcher action.
 */
export async function runAdminAction(
  run: () => Promise<string>,
): Promise<{ ok: true; message: string } | MessageFailure> {
  return { ok: true, message: await run() };
}

/**
 * Loads an admin screen's data. A failure is logged and becomes the screen's spec message
 * (e.g. "Failed to load users") instead of an error page; losing the admin role meanwhile
 * sends the visitor where requireAdmin would.
 */
export async function loadAdminData<T>(
  request: Request,
  failureMessage: string,
  load: () => Promise<T>,
): Promise<{ data: T; error: null } | { data: null; error: string }> {
  try {
    return { data: await load(), error: null };
  } catch (error) {
    if (isAppError(error) && error.code === "unauthenticated") {
      const url = new URL(request.url);
      throw redirect(loginUrlFor(`${url.pathname}${url.search}`));
    }
    if (isAppError(error) && error.code === "forbidden") throw redirect("/feed");
    logger.error({ err: error, path: new URL(request.url).pathname }, failureMessage);
    return { data: null, error: failureMessage };
  }
}
