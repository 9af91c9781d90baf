import { data, type MiddlewareFunction, type RouterContextProvider, redirect } from "react-router";
import { hasBearer } from "~/lib/bearer";
import { type Viewer, viewerContext } from "~/lib/context.server";
import { messageFailure } from "~/lib/forms";
import { decideRedirect, loginUrlFor } from "~/lib/redirects";
import { verifyAdminAccess } from "./admin-role.server";

type Ctx = Readonly<RouterContextProvider>;

/** Layout middleware: applies the spec §2 redirect rules on every document and data request. */
export const redirectRulesMiddleware: MiddlewareFunction<Response> = async ({
  request,
  context,
}) => {
  const url = new URL(request.url);
  const isAdminArea = url.pathname === "/admin" || url.pathname.startsWith("/admin/");
  let viewer = context.get(viewerContext);
  if (viewer && isAdminArea) {
    // The admin area re-reads the role itself; a failure to read it means "not admin".
    const isAdmin = await verifyAdminAccess(viewer.id);
    if (isAdmin !== viewer.isAdmin) {
      viewer = { ...viewer, isAdmin };
      context.set(viewerContext, viewer);
    }
  }
  // Admin mutations answer 401/403 from their own guard (requireAdminApi), not a redirect.
  if (isMutation(request) && isAdminArea) return;
  const target = decideRedirect({ pathname: url.pathname, search: url.search, viewer });
  if (target) throw redirect(target);
};

function isMutation(request: Request): boolean {
  return request.method !== "GET" && request.method !== "HEAD";
}

export function getViewer(context: Ctx): Viewer | null {
  return context.get(viewerContext);
}

/** The signed-in viewer; otherwise a redirect to the login page that remembers `request`. */
export function requireUser(context: Ctx, request: Request): Viewer {
  const viewer = context.get(viewerContext);
  if (!viewer) {
    // An app with a token that does not (or no longer) work: a 401 it can act on, not a page.
    if (hasBearer(request.headers)) throw bearerRefused();
    const url = new URL(request.url);
    throw redirect(loginUrlFor(`${url.pathname}${url.search}`));
  }
  return viewer;
}

const BEARER_REFUSED = "The access token is not valid: refresh it or sign in again.";
const BEARER_CHALLENGE = `Bearer error="invalid_token", error_description="${BEARER_REFUSED}"`;

/** The answer to a bearer request whose token is not valid (expired, signed out, aal1 of a two-step account). */
export function bearerRefused() {
  return data(messageFailure(BEARER_REFUSED), {
    status: 401,
    headers: { "WWW-Authenticate": BEARER_CHALLENGE },
  });
}

/** The same refusal as a finished JSON response (the viewer middleware answers with it). */
export function bearerRefusedResponse(): Response {
  return Response.json(
    { ...messageFailure(BEARER_REFUSED), error: "invalid_token" },
    {
      status: 401,
      headers: { "WWW-Authenticate": BEARER_CHALLENGE, "Cache-Control": "no-store" },
    },
  );
}

/** Only for visitors who are signed out. */
export function requireAnonymous(context: Ctx): void {
  if (context.get(viewerContext)) throw redirect("/feed");
}

/** Only for administrators: signed-out visitors go to login, others to the feed. */
export function requireAdmin(context: Ctx, request: Request): Viewer {
  const viewer = requireUser(context, request);
  if (!viewer.isAdmin) throw redirect("/feed");
  return viewer;
}

/**
 * For admin actions and resource routes (`/api/send-email-batch`): the admin viewer, else the
 * refusal with 401 when signed out and 403 without the admin role — thrown as the answer
 * itself, so no loader of the admin area runs after a refused action (it would redirect).
 */
export function requireAdminApi(context: Ctx): Viewer {
  const viewer = context.get(viewerContext);
  if (!viewer) throw data(messageFailure("Sign in to continue."), { status: 401 });
  if (!viewer.isAdmin) {
    throw data(messageFailure("You need the admin role for this."), { status: 403 });
  }
  return viewer;
}
