import { data, type ServerBuild } from "react-router";
import { type AppErrorCode, appErrorInit, isAppError } from "~/core/errors";
import { withDataHeaders } from "./data-headers.server";
import type { FieldErrors, FormFailure } from "./forms";
import { redirectWithToast } from "./toast.server";

/**
 * What an expected failure says, however it was reported: an AppError thrown by a feature, or
 * a refused account action returned as data (`kind` is its AppError code, `code` the spec's
 * machine code such as `weak_password`).
 */
export interface ExpectedFailure {
  kind: AppErrorCode;
  message?: string;
  fieldErrors?: FieldErrors;
  code?: string;
  reasons?: readonly string[];
  retryAfterSeconds?: number;
}

/**
 * What a form's refusal carries besides its messages: the intent of the form that failed, the
 * values to show again, a step… — and two ways it is shown:
 * - `field`: the input the message belongs under (else it is the whole form's), or one per
 *   AppError code (`{ conflict: "username" }`: a taken name under the name, the rest on top);
 * - `toast`: go back to `to` and show the message in a toast titled `title` (for actions whose
 *   page has no place for it: a button in a list).
 */
export type FailureEcho = {
  field?: string | Partial<Record<AppErrorCode, string>>;
  toast?: { to: string; title: string };
} & Record<string, unknown>;

/**
 * The one shape of a refusal (ADR 023), as JSON and as an action's data: `{ ok: false,
 * message?, fieldErrors }`, the spec's machine `code` and `reasons` when it has them, and what
 * the form echoes back.
 */
export type Refusal<E extends FailureEcho = FailureEcho> = Omit<E, "field" | "toast"> &
  FormFailure & { code?: string; reasons?: readonly string[] };

/** An AppError as an ExpectedFailure; null for anything else (a bug, left to the error screen). */
export function expectedFailureOf(error: unknown): ExpectedFailure | null {
  if (error instanceof FormRefusal) return error.failure;
  if (!isAppError(error)) return null;
  return {
    kind: error.code,
    message: error.message,
    retryAfterSeconds: error.retryAfterSeconds,
  };
}

/** The body and status (with Retry-After when it has one) a failure answers with. */
export function refusalOf<E extends FailureEcho>(
  failure: ExpectedFailure,
  echo: E = {} as E,
): { body: Refusal<E>; init: ResponseInit } {
  const { field: fields, toast: _toast, ...extra } = echo;
  const field = typeof fields === "string" ? fields : fields?.[failure.kind];
  const fieldErrors: FieldErrors = { ...failure.fieldErrors };
  let message = failure.message;
  if (field && message) {
    fieldErrors[field] = [message, ...(fieldErrors[field] ?? [])];
    message = undefined;
  }
  return {
    body: {
      ...(extra as Omit<E, "field" | "toast">),
      ok: false,
      ...(message ? { message } : {}),
      fieldErrors,
      ...(failure.code ? { code: failure.code } : {}),
      ...(failure.reasons ? { reasons: failure.reasons } : {}),
    },
    init: appErrorInit({ code: failure.kind, retryAfterSeconds: failure.retryAfterSeconds }),
  };
}

/**
 * A refused action's answer: its refusal as the action's data, with its status (a refused
 * account action is returned this way; an AppError is thrown and reaches the edge).
 */
export function refuse<E extends FailureEcho = Record<never, never>>(
  failure: ExpectedFailure,
  echo?: E,
) {
  const { body, init } = refusalOf(failure, echo ?? ({} as E));
  return data(body, init);
}

/** The refusal as the edge answers it for an action: data, or the toast its echo asks for. */
function refusedAction(failure: ExpectedFailure, echo: FailureEcho) {
  if (!echo.toast) return refuse(failure, echo);
  return redirectWithToast(echo.toast.to, {
    type: "error",
    title: echo.toast.title,
    description: failure.message,
  });
}

/** An expected failure on its way to the edge, with what its form echoes back. */
export class FormRefusal extends Error {
  override name = "FormRefusal";
  constructor(
    readonly failure: ExpectedFailure,
    readonly echo: FailureEcho = {},
  ) {
    super(failure.message ?? "refused");
  }
}

/**
 * Runs a feature call for a form: an AppError it throws reaches the edge with `echo` (which
 * form it was, the values to show again, the field its message belongs under). Anything else
 * passes through untouched.
 */
export async function forForm<T>(echo: FailureEcho, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const failure = error instanceof FormRefusal ? null : expectedFailureOf(error);
    if (!failure) throw error;
    throw new FormRefusal(failure, echo);
  }
}

/**
 * Where expected failures become answers, once for every route (docs/architecture.md, Errors):
 * an AppError (or a FormRefusal) thrown by a loader is the error screen with its status and
 * message for documents and `.data` requests; thrown by an action it is the action's data,
 * `{ ok: false, message, fieldErrors }` with its status, so the form that sent it shows it.
 * Resource routes (no component) answer the same refusal as JSON. Anything else is a bug and
 * stays one (logged by handleError, the error screen's 500).
 */
function withExpectedFailures<Args, Context>(
  handler: (args: Args, handlerContext?: Context) => unknown,
  kind: "loader" | "action",
  isResource: boolean,
) {
  return async (args: Args, handlerContext?: Context) => {
    try {
      return await handler(args, handlerContext);
    } catch (error) {
      const failure = expectedFailureOf(error);
      if (!failure) throw error;
      const echo = error instanceof FormRefusal ? error.echo : {};
      if (kind === "action" && !isResource) return refusedAction(failure, echo);
      const { body, init } = refusalOf(failure, echo);
      if (isResource && kind === "action") {
        // Returned, not thrown: a fetcher (the like button) reads a refusal as its data and
        // says why; a thrown Response would reach the page's error screen instead. A plain
        // form (no JavaScript) goes back with the toast.
        if (echo.toast) return refusedAction(failure, echo);
        return Response.json(body, init);
      }
      if (isResource) throw Response.json(body, init);
      throw data(failure.message ?? "", init);
    }
  };
}

/**
 * A route module as the server runs it: its loader and action answering expected failures as
 * above (what tests that call a route's functions directly call).
 */
export function atTheEdge<
  M extends {
    default?: unknown;
    loader?: (args: never, handlerContext?: never) => unknown;
    action?: (args: never, handlerContext?: never) => unknown;
  },
>(module: M): M {
  const isResource = module.default === undefined;
  const wrapped = { ...module };
  if (module.loader) {
    wrapped.loader = withExpectedFailures(module.loader, "loader", isResource) as M["loader"];
  }
  if (module.action) {
    wrapped.action = withExpectedFailures(module.action, "action", isResource) as M["action"];
  }
  return wrapped;
}

/** The build with every route's loader and action answering expected failures as above. */
export function withRouteErrors(build: ServerBuild): ServerBuild {
  const routes: ServerBuild["routes"] = {};
  for (const [id, route] of Object.entries(build.routes)) {
    if (route) routes[id] = { ...route, module: atTheEdge(route.module) };
  }
  return { ...build, routes };
}

/**
 * The server build as every server runs it (vite.config.ts puts it in place of React Router's
 * own): expected failures answered at the edge, and the headers of data() passed on.
 */
export function atTheServerEdge(build: ServerBuild): ServerBuild {
  return withRouteErrors(withDataHeaders(build));
}
