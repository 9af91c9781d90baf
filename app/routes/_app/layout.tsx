import { Outlet, useRouteLoaderData } from "react-router";
import { AppHeader, type HeaderViewer } from "~/components/layout/app-header";
import { SiteFooter } from "~/components/layout/site-footer";
import { redirectRulesMiddleware } from "~/lib/guards.server";
import { useColorModePreference } from "~/lib/use-color-mode";
import type { Route } from "./+types/layout";

export const middleware: Route.MiddlewareFunction[] = [redirectRulesMiddleware];

export function loader() {
  return null;
}

export default function AppLayout() {
  const root = useRouteLoaderData<{ viewer: HeaderViewer | null }>("root");
  const colorMode = useColorModePreference();
  return (
    <div className="flex min-h-dvh flex-col">
      <AppHeader viewer={root?.viewer ?? null} colorMode={colorMode} />
      <main id="main" className="mx-auto w-full max-w-3xl flex-1 px-4 py-8">
        <Outlet />
      </main>
      <SiteFooter />
    </div>
  );
}
