import { type MiddlewareFunction, type RouterContextProvider, redirect } from "react-router";
import { getViewerFromHeaders } from "~/features/auth/accounts.server";
import { bootstrap } from "./app.server";
import { type Viewer, viewerContext } from "./context.server";
import { decideRedirect, loginUrlFor } from "./redirects";

type Ctx = Readonly<RouterContextProvider>;

/** Root middleware: makes sure the database is up and resolves who is asking. */
export const viewerMiddleware: MiddlewareFunction<Response> = async (
  { request, context },
  next,
) => {
  await bootstrap();
  const { viewer, setCookies } = await getViewerFromHeaders(request.headers);
  context.set(viewerContext, viewer);
  const response = await next();
  // Sliding session renewal: pass on the refreshed cookie.
  for (const cookie of setCookies) response.headers.append("Set-Cookie", cookie);
  return response;
};

/** Layout middleware: applies the spec §2 redirect rules on every document and data request. */
export const redirectRulesMiddleware: MiddlewareFunction<Response> = ({ request, context }) => {
  const url = new URL(request.url);
  const viewer = context.get(viewerContext);
  const target = decideRedirect({ pathname: url.pathname, search: url.search, viewer });
  if (target) throw redirect(target);
};

export function getViewer(context: Ctx): Viewer | null {
  return context.get(viewerContext);
}

/** The signed-in viewer; otherwise a redirect to the login page that remembers `request`. */
export function requireUser(context: Ctx, request: Request): Viewer {
  const viewer = context.get(viewerContext);
  if (!viewer) {
    const url = new URL(request.url);
    throw redirect(loginUrlFor(`${url.pathname}${url.search}`));
  }
  return viewer;
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
