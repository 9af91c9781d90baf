import type { ReactNode } from "react";
import { Outlet } from "react-router";
import { ColorModeSwitch } from "~/components/layout/color-mode-switch";
import { RouteErrorScreen } from "~/components/layout/error-screen";
import { Logo } from "~/components/layout/logo";
import { SiteFooter } from "~/components/layout/site-footer";
import { ButtonLink } from "~/components/ui/button";
import { redirectRulesMiddleware } from "~/features/auth/guards.server";
import { useColorModePreference } from "~/lib/use-color-mode";
import type { Route } from "./+types/layout";

export const middleware: Route.MiddlewareFunction[] = [redirectRulesMiddleware];

export function loader() {
  return null;
}

function LandingShell({ children }: { children: ReactNode }) {
  const colorMode = useColorModePreference();
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="border-b border-border">
        <div className="mx-auto flex h-16 max-w-6xl items-center gap-3 px-4">
          <Logo />
          <div className="ml-auto flex items-center gap-2">
            <ColorModeSwitch current={colorMode} />
            <ButtonLink to="/auth/login" variant="ghost" size="sm">
              Sign in
            </ButtonLink>
          </div>
        </div>
      </header>
      {children}
      <SiteFooter />
    </div>
  );
}

export default function LandingLayout() {
  return (
    <LandingShell>
      <Outlet />
    </LandingShell>
  );
}

/** An error on the landing page keeps its header and footer. */
export function ErrorBoundary() {
  return (
    <LandingShell>
      <main id="main" className="flex-1">
        <RouteErrorScreen inLayout />
      </main>
    </LandingShell>
  );
}
