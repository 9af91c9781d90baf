import type { ReactNode } from "react";
import { Outlet } from "react-router";
import { ColorModeSwitch } from "~/components/layout/color-mode-switch";
import { RouteErrorScreen } from "~/components/layout/error-screen";
import { Logo } from "~/components/layout/logo";
import { redirectRulesMiddleware } from "~/features/auth/guards.server";
import { useColorModePreference } from "~/lib/use-color-mode";
import type { Route } from "./+types/layout";

export const middleware: Route.MiddlewareFunction[] = [redirectRulesMiddleware];

export function loader() {
  return null;
}

function AuthShell({ children }: { children: ReactNode }) {
  const colorMode = useColorModePreference();
  return (
    <div className="flex min-h-dvh flex-col bg-card">
      <header className="mx-auto flex h-16 w-full max-w-md items-center justify-between px-4">
        <Logo />
        <ColorModeSwitch current={colorMode} />
      </header>
      <main id="main" className="mx-auto w-full max-w-md flex-1 px-4 pb-16 pt-4">
        {children}
      </main>
    </div>
  );
}

export default function AuthLayout() {
  return (
    <AuthShell>
      <Outlet />
    </AuthShell>
  );
}

/** An error or a 404 under /auth keeps the logo and the colour switch. */
export function ErrorBoundary() {
  return (
    <AuthShell>
      <RouteErrorScreen inLayout />
    </AuthShell>
  );
}
