import { useEffect, useRef } from "react";
import { data, Links, Meta, Outlet, Scripts, ScrollRestoration } from "react-router";
import { bootMiddleware } from "~/app.server";
import type { Route } from "./+types/root";
import "./app.css";
import { useNewVersionCheck } from "~/components/hooks/use-new-version";
import { RouteErrorScreen } from "~/components/layout/error-screen";
import { showToast, Toaster } from "~/components/ui/toaster";
import { colorModeOf } from "~/lib/color-mode.server";
import { requestInfoContext, viewerContext } from "~/lib/context.server";
import { getEnv, publicEnv } from "~/lib/env.server";
import { useNonce } from "~/lib/nonce";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { clearFlashCookie, readFlashToast } from "~/lib/toast.server";
import { useAuthBroadcast } from "~/lib/use-auth-broadcast";
import { useColorMode } from "~/lib/use-color-mode";
import { useServiceWorker } from "~/lib/use-service-worker";
import { viewerMiddleware } from "~/viewer.server";

const PAGE_DESCRIPTION = "Share your music journey with friends";

/** The browser's toolbar takes the page's background: one colour per theme. */
const THEME_COLORS = { light: "#ffffff", dark: "#030712" } as const;

export const meta: Route.MetaFunction = () => [{ title: "Soundtrail" }];

export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "icon", href: "/favicon.ico", sizes: "32x32" },
  { rel: "apple-touch-icon", href: "/icon-192.png" },
  { rel: "manifest", href: "/manifest.webmanifest" },
];

export const middleware: Route.MiddlewareFunction[] = [bootMiddleware, viewerMiddleware];

export async function loader({ request, context }: Route.LoaderArgs) {
  const [colorMode, { toast, present }] = await Promise.all([
    colorModeOf(request),
    readFlashToast(request),
  ]);
  const viewer = context.get(viewerContext);
  return data(
    {
      colorMode,
      toast,
      viewer,
      buildId: context.get(requestInfoContext).buildId,
      config: publicEnv(getEnv()),
    },
    present ? { headers: { "Set-Cookie": await clearFlashCookie() } } : undefined,
  );
}

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  const colorMode = useColorMode();
  return (
    <html lang="en" data-theme={colorMode} suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {colorMode === "system" ? (
          <>
            <meta
              name="theme-color"
              content={THEME_COLORS.light}
              media="(prefers-color-scheme: light)"
            />
            <meta
              name="theme-color"
              content={THEME_COLORS.dark}
              media="(prefers-color-scheme: dark)"
            />
          </>
        ) : (
          <meta name="theme-color" content={THEME_COLORS[colorMode]} />
        )}
        {/* Spec §1: every page carries the product's description (route meta never repeats it). */}
        <meta name="description" content={PAGE_DESCRIPTION} />
        <Meta />
        <Links />
      </head>
      <body className="min-h-dvh bg-background text-foreground">
        {/* .skip-link (app.css): hidden until focused. */}
        <a href="#main" className="skip-link">
          Skip to content
        </a>
        {children}
        <Toaster />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

// A send the network let down reloads nothing (that would fail too): ADR 037.
export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function App({ loaderData }: Route.ComponentProps) {
  const shown = useRef<string | null>(null);
  useEffect(() => {
    const toast = loaderData.toast;
    if (!toast) return;
    const key = JSON.stringify(toast);
    if (shown.current === key) return;
    shown.current = key;
    showToast(toast);
  }, [loaderData.toast]);
  useNewVersionCheck(loaderData.buildId);
  useServiceWorker();
  useAuthBroadcast(loaderData.viewer?.id ?? null);
  return <Outlet />;
}

export function ErrorBoundary() {
  return <RouteErrorScreen />;
}
