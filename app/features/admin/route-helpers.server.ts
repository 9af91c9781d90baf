import { data, redirect } from "react-router";
import { logger } from "~/core/logger.server";
import { loginUrlFor } from "~/lib/redirects";
import { AdminError } from "./errors";

/**
 * Runs an admin action and answers what the page shows as a toast: `{ ok, message }`, or
 * `{ ok: false, error }` with the AdminError's status.
 */
export async function runAdminAction(run: () => Promise<string>) {
  try {
    return { ok: true as const, message: await run() };
  } catch (error) {
    if (error instanceof AdminError) {
      return data({ ok: false as const, error: error.message }, { status: error.status });
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
    if (error instanceof AdminError && error.status === 401) {
      const url = new URL(request.url);
      throw redirect(loginUrlFor(`${url.pathname}${url.search}`));
    }
    if (error instanceof AdminError && error.status === 403) throw redirect("/feed");
    logger.error({ err: error, path: new URL(request.url).pathname }, failureMessage);
    return { data: null, error: failureMessage };
  }
}
