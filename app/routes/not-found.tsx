import { data } from "react-router";
import { RouteErrorScreen } from "~/components/layout/error-screen";
import { AppShell } from "./_app/app-shell";

/**
 * Any path no other route matches (spec §2: 404, "Page not found: {path}"), inside the app's
 * header, navigation and footer so the visitor can go on from there. Not under the app layout:
 * its redirect rules would send a signed-out visitor to sign in instead of saying "not found".
 *
 * Beware: this splat matches every path the browser has not discovered yet (lazy route
 * discovery). A `fetcher.load` of a resource route started while its discovery is still on the
 * wire can be answered by this route's 404 (React Router 7.18) and take the page down: load
 * resource routes (`/api/…`) with a plain `fetch`, as the composer's suggestions and the
 * listening-now strip do; fetchers only for routes already on the page.
 */
export function loader() {
  throw data("Not Found", { status: 404 });
}

export default function NotFound() {
  return null;
}

export function ErrorBoundary() {
  return (
    <AppShell>
      <RouteErrorScreen inLayout />
    </AppShell>
  );
}
