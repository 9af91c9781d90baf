import { data, redirect } from "react-router";
import type { MessageFailure } from "./forms";
import { safeRedirectPath } from "./redirects";
import { forForm } from "./route-errors.server";
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
 * Runs a feature call for an action: `{ ok: true, …result }` for fetchers; for plain forms a
 * redirect back with a toast. A refusal (AppError) is answered at the edge
 * (route-errors.server.ts): `{ ok: false, message, fieldErrors }` with its status for
 * fetchers, the same redirect with an error toast titled `failureTitle` for plain forms.
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
  const to = returnPath(request, form, options.fallback);
  const result = await forForm(
    document ? { toast: { to, title: options.failureTitle } } : {},
    options.run,
  );
  if (document) {
    const toast = options.success?.(result);
    return toast ? redirectWithToast(to, toast) : redirect(to);
  }
  return data<ActionOutcome<T>>({ ok: true, ...result });
}
