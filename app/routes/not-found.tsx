import { data } from "react-router";
import { RouteErrorScreen } from "~/components/layout/error-screen";
import { AppShell } from "./_app/app-shell";

/**
 * Any path no other route matches (spec §2: 404, "Page not found: {path}"), inside the app's
 * header, navigation and footer so the visitor can go on from there. Not under the app layout:
 * its redirect rules would send a signed-out visitor to sign in instead of saying "not found".
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
