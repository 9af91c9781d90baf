import type { ReactNode } from "react";
import { Link, useLocation, useMatches, useRouteLoaderData } from "react-router";
import { AppHeader, type HeaderViewer } from "~/components/layout/app-header";
import { SiteFooter } from "~/components/layout/site-footer";
import { LiveStatus } from "~/features/realtime/components/live-status";
import { UnreadBadge, useNotificationsLabel } from "~/features/realtime/components/unread-badge";
import { LiveProvider } from "~/features/realtime/live-provider";
import { HeaderSearch } from "~/features/search/components/header-search";
import { LivePreviews } from "~/features/unfurl/components/live-previews";
import { useColorModePreference } from "~/lib/use-color-mode";
import { cn } from "~/lib/utils";

/** The header, with the live unread count and connection state (inside `LiveProvider`). */
function LiveAppHeader({
  viewer,
  colorMode,
}: {
  viewer: HeaderViewer | null;
  colorMode: ReturnType<typeof useColorModePreference>;
}) {
  const notificationsName = useNotificationsLabel();
  // `/search` has its own big box (and takes the shortcut); every other page has the header's.
  const isSearchPage = useLocation().pathname === "/search";
  return (
    <AppHeader
      viewer={viewer}
      colorMode={colorMode}
      notificationBadge={viewer ? <UnreadBadge /> : null}
      notificationsName={viewer ? notificationsName : undefined}
      status={viewer ? <LiveStatus /> : null}
      search={viewer && !isSearchPage ? <HeaderSearch /> : null}
    />
  );
}

/** The header, the guest notice and the footer around `children`: the page or its error. */
export function AppShell({ children }: { children: ReactNode }) {
  const root = useRouteLoaderData<{
    viewer:
      | (HeaderViewer & {
          id: string;
          isGuest?: boolean;
          unreadNotifications: number;
          notificationsSeq: number;
        })
      | null;
  }>("root");
  const viewer = root?.viewer ?? null;
  const colorMode = useColorModePreference();
  // A route can ask for more room with `export const handle = { isWide: true }` (admin tables).
  const isWide = useMatches().some(
    (match) => (match.handle as { isWide?: boolean } | undefined)?.isWide,
  );
  return (
    <LiveProvider viewer={viewer}>
      {viewer ? <LivePreviews /> : null}
      <div className="flex min-h-dvh flex-col">
        <LiveAppHeader viewer={viewer} colorMode={colorMode} />
        {viewer?.isGuest ? (
          <aside
            aria-label="Guest account"
            className="border-b border-border bg-muted px-4 py-2 text-center text-sm"
          >
            You are using Soundtrail as a guest.{" "}
            <Link to="/auth/upgrade" className="font-medium text-primary underline">
              Save your account
            </Link>{" "}
            to keep everything and sign in from anywhere.
          </aside>
        ) : null}
        <main
          id="main"
          className={cn("mx-auto w-full flex-1 px-4 py-8", isWide ? "max-w-6xl" : "max-w-3xl")}
        >
          {children}
        </main>
        <SiteFooter isSignedIn={viewer !== null} />
      </div>
    </LiveProvider>
  );
}
