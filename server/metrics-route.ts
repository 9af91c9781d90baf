import { readdirSync } from "node:fs";
import { matchRoutes, type RouteObject } from "react-router";

/** The fields of a server build's route manifest this needs. */
export interface ManifestRoute {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
}

/** Paths the server answers itself, before the app. */
const SERVER_PATHS: Record<string, string> = {
  "/healthz": "healthz",
  "/readyz": "readyz",
  "/metrics": "metrics",
};

/**
 * Maps a request path to the label /metrics counts it under: the id of the deepest route of
 * the app that matches (e.g. `routes/_app/post` for every `/post/:id`), `static` for built
 * files, or `unmatched`. `.data` requests (client navigations) count under their page's route.
 * A label set bounded by the route table, whatever URLs clients send.
 */
export function createRouteLabeler(
  manifest: Record<string, ManifestRoute | undefined>,
  clientDir: string | null,
): (pathname: string) => string {
  const children = new Map<string | undefined, ManifestRoute[]>();
  for (const route of Object.values(manifest)) {
    if (!route) continue;
    const siblings = children.get(route.parentId) ?? [];
    siblings.push(route);
    children.set(route.parentId, siblings);
  }
  const tree = (parentId: string | undefined): RouteObject[] =>
    (children.get(parentId) ?? []).map((route) =>
      route.index
        ? { id: route.id, index: true, path: route.path }
        : {
            id: route.id,
            path: route.path,
            caseSensitive: route.caseSensitive,
            children: tree(route.id),
          },
    );
  const routes = tree(undefined);
  let staticEntries = new Set<string>();
  try {
    if (clientDir) staticEntries = new Set(readdirSync(clientDir));
  } catch {
    // No client build: nothing is static.
  }
  return (pathname) => {
    const server = SERVER_PATHS[pathname];
    if (server) return server;
    const first = pathname.split("/")[1] ?? "";
    if (first && staticEntries.has(first)) return "static";
    let path = pathname;
    if (path.endsWith(".data")) {
      path = path.slice(0, -".data".length);
      if (path === "/_root") path = "/";
    }
    const matches = matchRoutes(routes, path);
    return matches?.at(-1)?.route.id ?? "unmatched";
  };
}
