import { Outlet } from "react-router";
import { RouteErrorScreen } from "~/components/layout/error-screen";
import { redirectRulesMiddleware } from "~/features/auth/guards.server";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import type { Route } from "./+types/layout";
import { AppShell } from "./app-shell";

export const middleware: Route.MiddlewareFunction[] = [redirectRulesMiddleware];

export function loader() {
  return null;
}

// A send the network let down reloads nothing (that would fail too): ADR 037.
export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function AppLayout() {
  return (
    <AppShell>
      <Outlet />
    </AppShell>
  );
}

/** An error or a 404 inside the app keeps the header and the footer (and the live stream). */
export function ErrorBoundary() {
  return (
    <AppShell>
      <RouteErrorScreen inLayout />
    </AppShell>
  );
}
