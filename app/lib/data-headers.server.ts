import type { HeadersArgs, ServerBuild } from "react-router";

/**
 * Headers that describe the HTTP message rather than the route's answer, or that React Router
 * merges itself (Set-Cookie): never copied from a loader's or action's `data()`.
 */
const NOT_PASSED_ON = new Set([
  "set-cookie",
  "content-type",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "location",
]);

/**
 * The `headers` of a route that exports none: its parent's headers plus what its own loader,
 * action and (when it is the error boundary) the failing call set with `data(…, { headers })`.
 * React Router's default keeps only Set-Cookie from those, so `Retry-After` on a 429, or
 * `Allow` on a 405, silently never reached the client.
 */
export function passDataHeaders({
  parentHeaders,
  loaderHeaders,
  actionHeaders,
  errorHeaders,
}: HeadersArgs): Headers {
  const headers = new Headers(parentHeaders);
  for (const source of [loaderHeaders, actionHeaders, errorHeaders]) {
    if (!source) continue;
    for (const [name, value] of source) {
      if (!NOT_PASSED_ON.has(name.toLowerCase())) headers.set(name, value);
    }
  }
  return headers;
}

/**
 * The build with `passDataHeaders` as the `headers` export of every route that has none, so
 * the headers a route sets with `data()` reach documents and `.data` responses alike, whichever
 * route sets them. A route's own `headers` export still wins.
 */
export function withDataHeaders(build: ServerBuild): ServerBuild {
  const routes: ServerBuild["routes"] = {};
  for (const [id, route] of Object.entries(build.routes)) {
    if (!route) continue;
    routes[id] =
      route.module.headers === undefined
        ? { ...route, module: { ...route.module, headers: passDataHeaders } }
        : route;
  }
  return { ...build, routes };
}
