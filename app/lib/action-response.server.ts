import { data, redirect } from "react-router";
import { appErrorInit, isAppError } from "~/core/errors";
import { type MessageFailure, messageFailure } from "./forms";
import { safeRedirectPath } from "./redirects";
import type { ToastMessage } from "./toast";
import { redirectWithToast } from "./toast.server";

/** What a fetcher action answers: its result, or a message to show in a toast. */
export type ActionOutcome<T extends object> = ({ ok: true } & T) | MessageFailure;

/**
 * True when the browser submitted a plain form (no JavaScript): the answer must then be a
 * redirect back to a page, not data.
 */
export function isDocumentSubmit(request: Request): boolean {
  return request.headers.get("Sec-Fetch-Mode") === "navigate";
}

/** Where a plain form wants to go back to: its `redirectTo` field, else the Referer, else `fallback`. */
export function returnPath(request: Request, form: FormData, fallback: string): string {
  const field = form.get("redirectTo");
  const fromField = typeof field === "string" ? safeRedirectPath(field) : null;
  if (fromField) return fromField;
  try {
    const referer = new URL(request.headers.get("Referer") ?? "");
    if (referer.origin === new URL(request.url).origin) {
      return safeRedirectPath(`${referer.pathname}${referer.search}`) ?? fallback;
    }
  } catch {
    // no usable Referer
  }
  return fallback;
}

/**
 * Runs a feature call for an action. Expected failures (AppError) become `{ ok: false, message, fieldErrors }`
 * with their HTTP status; for plain forms both outcomes redirect back with a toast.
 */
export async function respond<T extends object>(options: {
  request: Request;
  form: FormData;
  fallback: string;
  run: () => Promise<T>;
  /** The toast a plain-form submission shows on success. */
  success?: (result: T) => ToastMessage | null;
  /** Title of the toast shown when the call is refused. */
  failureTitle: string;
}) {
  const { request, form } = options;
  const document = isDocumentSubmit(request);
  try {
    const result = await options.run();
    if (document) {
      const toast = options.success?.(result);
      const to = returnPath(request, form, options.fallback);
      return toast ? redirectWithToast(to, toast) : redirect(to);
    }
    return data<ActionOutcome<T>>({ ok: true, ...result });
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (document) {
      return redirectWithToast(returnPath(request, form, options.fallback), {
        type: "error",
        title: options.failureTitle,
        description: error.message,
      });
    }
    return data<ActionOutcome<T>>(messageFailure(error.message), appErrorInit(error));
  }
}
