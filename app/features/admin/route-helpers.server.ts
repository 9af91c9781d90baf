import { data, redirect } from "react-router";
import { appErrorInit, isAppError } from "~/core/errors";
import { logger } from "~/core/logger.server";
import { messageFailure } from "~/lib/forms";
import { loginUrlFor } from "~/lib/redirects";

/**
 * Runs an admin action and answers what the page shows as a toast: `{ ok: true, message }`, or
 * `{ ok: false, message, fieldErrors }` with the AppError's status (the shape of every fetcher action).
 */
export async function runAdminAction(run: () => Promise<string>) {
  try {
    return { ok: true as const, message: await run() };
  } catch (error) {
    if (isAppError(error)) {
      return data(messageFailure(error.message), appErrorInit(error));
    }
    throw error;
  }
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
