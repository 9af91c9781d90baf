import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Form, NavLink, useLocation } from "react-router";
import { Backdrop } from "~/components/ui/backdrop";
import { ButtonLink } from "~/components/ui/button";
import { Icon, type IconName } from "~/components/ui/icon";
import type { ColorMode } from "~/lib/color-mode";
import { useFocusTrap } from "~/lib/use-focus-trap";
import { cn } from "~/lib/utils";
import { ColorModeSwitch } from "./color-mode-switch";
import { Logo } from "./logo";

export interface HeaderViewer {
  displayName: string;
  username: string;
  isAdmin: boolean;
  /** Their picture; the header shows their initial without one. */
  avatarUrl?: string | null;
}

interface NavItem {
  to: string;
  label: string;
  icon: IconName;
  adminOnly?: boolean;
  /** Signed-out visitors may open only `/feed` (spec §6): the rest is not offered to them. */
  membersOnly?: boolean;
  /** Shown after the label (hidden from screen readers: `accessibleName` says it). */
  badge?: ReactNode;
  /** The link's name when the label alone does not say it all ("Notifications, 2 unread"). */
  accessibleName?: string;
}

function navItems(notificationBadge: ReactNode, notificationsName?: string): NavItem[] {
  return [
    { to: "/feed", label: "Feed", icon: "house" },
    { to: "/search", label: "Search", icon: "search", membersOnly: true },
    {
      to: "/notifications",
      label: "Notifications",
      icon: "bell",
      badge: notificationBadge,
      accessibleName: notificationsName,
      membersOnly: true,
    },
    { to: "/chatbot", label: "Assistant", icon: "bot", membersOnly: true },
  ];
}

/**
 * The default layout's header: product name, navigation to every destination, the
 * notification badge slot, the user menu and the colour-mode switch. Below `md` the
 * navigation collapses behind a menu button.
 */
export function AppHeader({
  viewer,
  colorMode,
  notificationBadge = null,
  notificationsName,
  status = null,
  search = null,
}: {
  viewer: HeaderViewer | null;
  colorMode: ColorMode;
  notificationBadge?: ReactNode;
  /** "Notifications, 2 unread": one accessible name (an sr-only span would add a stray space). */
  notificationsName?: string;
  /** Shown before the user menu: the live connection's state. */
  status?: ReactNode;
  /** The header's search box (signed-in pages); it replaces the Search link on wide screens. */
  search?: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const navId = useId();
  const location = useLocation();

  // biome-ignore lint/correctness/useExhaustiveDependencies: close the menu whenever the page changes
  useEffect(() => setOpen(false), [location.pathname]);

  const navRef = useRef<HTMLElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  // While the phone menu is open, focus stays in it (the menu button, then its links) and
  // Escape closes it, giving focus back to the menu button.
  useFocusTrap({
    active: open,
    containers: () => [navRef.current, toggleRef.current],
    onEscape: () => {
      setOpen(false);
      toggleRef.current?.focus();
    },
  });

  const items = navItems(notificationBadge, notificationsName).filter(
    (item) => (!item.adminOnly || viewer?.isAdmin) && (!item.membersOnly || viewer),
  );

  return (
    <header className="sticky top-0 z-30 border-b border-border bg-background/95 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-3 px-4">
        <Logo to="/feed" isCompact={viewer !== null} />
        {open ? <Backdrop className="md:hidden" onClose={() => setOpen(false)} /> : null}
        <nav
          ref={navRef}
          id={navId}
          aria-label="Main"
          className={cn(
            "absolute inset-x-0 top-16 border-b border-border bg-background px-4 py-3 md:static md:block md:border-0 md:bg-transparent md:p-0",
            open ? "block" : "hidden",
          )}
        >
          <ul className="flex flex-col gap-1 md:flex-row md:items-center">
            {items.map(({ to, label, icon, badge, accessibleName }) => (
              <li key={to} className={search && to === "/search" ? "md:hidden" : undefined}>
                {/* .nav-link (app.css): its look, the current page's by aria-current, and the
                    label's span hidden between md and xl. */}
                <NavLink
                  to={to}
                  aria-label={accessibleName}
                  prefetch="intent"
                  viewTransition
                  onClick={() => setOpen(false)}
                  className="nav-link"
                >
                  <Icon name={icon} className="size-4" />
                  <span>{label}</span>
                  {badge}
                </NavLink>
              </li>
            ))}
          </ul>
          {viewer ? null : (
            <div className="mt-3 flex items-center justify-between border-t border-border pt-3 sm:hidden">
              <span className="text-sm text-muted-foreground">Theme</span>
              <ColorModeSwitch current={colorMode} />
            </div>
          )}
        </nav>
        <div className="ml-auto flex shrink-0 items-center gap-2">
          {search}
          {status}
          {viewer ? null : (
            <div className="hidden sm:block">
              <ColorModeSwitch current={colorMode} />
            </div>
          )}
          {viewer ? (
            // On a phone the navigation hides behind the menu; the bell and its count stay in sight.
            <NavLink
              to="/notifications"
              // The navigation's own link to it is enough for React Router to discover the route.
              discover="none"
              className={({ isActive }) =>
                cn(
                  "flex items-center gap-1 rounded-md p-2 hover:bg-muted md:hidden",
                  isActive ? "bg-accent text-accent-foreground" : "text-muted-foreground",
                )
              }
            >
              <Icon name="bell" className="size-5" />
              <span className="sr-only">{notificationsName ?? "Notifications"}</span>
              {notificationBadge}
            </NavLink>
          ) : null}
          {viewer ? (
            // One menu at a time: opening the account menu closes the phone navigation.
            <AccountMenu viewer={viewer} colorMode={colorMode} onOpen={() => setOpen(false)} />
          ) : (
            <SignedOutActions />
          )}
          <button
            ref={toggleRef}
            type="button"
            className="rounded-md p-2 hover:bg-muted md:hidden"
            aria-expanded={open}
            aria-controls={navId}
            onClick={() => setOpen((v) => !v)}
          >
            {open ? <Icon name="x" className="size-5" /> : <Icon name="menu" className="size-5" />}
            <span className="sr-only">{open ? "Close menu" : "Open menu"}</span>
          </button>
        </div>
      </div>
    </header>
  );
}

function SignedOutActions() {
  return (
    <div className="flex items-center gap-2">
      <ButtonLink to="/auth/login" variant="ghost" size="sm" className="whitespace-nowrap">
        <Icon name="log-in" className="size-4" />
        Sign in
      </ButtonLink>
      <ButtonLink to="/auth/signup" size="sm" className="whitespace-nowrap">
        <Icon name="user-plus" className="size-4" />
        Join
      </ButtonLink>
    </div>
  );
}

/** A row of the account menu (app.css). */
const accountItemClass = "menu-item";

/**
 * The account menu behind the avatar: profile, settings, admin when allowed, colour mode and
 * sign out. A `<details>` disclosure like the post menu, so it works by keyboard and without
 * JavaScript; with it, Escape, a click elsewhere or a chosen link close it.
 */
function AccountMenu({
  viewer,
  colorMode,
  onOpen,
}: {
  viewer: HeaderViewer;
  colorMode: ColorMode;
  onOpen: () => void;
}) {
  const details = useRef<HTMLDetailsElement>(null);
  const location = useLocation();
  // The server renders the items (without JavaScript the closed <details> hides them); once the
  // page is hydrated they exist only while the menu is open, so nothing hidden doubles the
  // person's name, "Profile" or "Settings" on the page.
  const [isHydrated, setHydrated] = useState(false);
  const [isOpen, setOpen] = useState(false);
  useEffect(() => {
    setHydrated(true);
    // Opened before the page was hydrated (React did not hear that toggle): keep the items.
    if (details.current?.open) setOpen(true);
  }, []);
  // Close when the page changes; not on the first run, which is hydration, not a new page.
  const shownPath = useRef(location.pathname);
  useEffect(() => {
    if (shownPath.current === location.pathname) return;
    shownPath.current = location.pathname;
    if (details.current) details.current.open = false;
  }, [location.pathname]);
  useEffect(() => {
    const onPointer = (event: PointerEvent) => {
      const menu = details.current;
      if (menu?.open && event.target instanceof Node && !menu.contains(event.target)) {
        menu.open = false;
      }
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, []);
  // While open, focus stays in the menu; Escape closes it and gives focus back to the avatar.
  useFocusTrap({
    active: isOpen,
    containers: () => [details.current],
    onEscape: () => {
      if (!details.current) return;
      details.current.open = false;
      details.current.querySelector("summary")?.focus();
    },
  });
  return (
    <details
      ref={details}
      className="relative"
      onToggle={(event) => {
        setOpen(event.currentTarget.open);
        if (event.currentTarget.open) onOpen();
      }}
    >
      {isOpen ? (
        <Backdrop
          className="sm:bg-black/20"
          onClose={() => {
            if (details.current) details.current.open = false;
          }}
        />
      ) : null}
      {/* .account-summary (app.css): the person's picture, else their initial, in a circle. */}
      <summary className="account-summary">
        {viewer.avatarUrl ? (
          <img src={viewer.avatarUrl} alt="" width={32} height={32} decoding="async" />
        ) : (
          <span aria-hidden="true">{viewer.displayName.slice(0, 1).toUpperCase()}</span>
        )}
        <span className="sr-only">{`Account menu, ${viewer.displayName}`}</span>
      </summary>
      {isHydrated && !isOpen ? null : (
        <div className="absolute right-0 z-40 mt-2 w-64 rounded-xl border border-border bg-card p-1 shadow-lg">
          <p className="border-b border-border px-3 py-2 text-sm">
            <span className="block truncate font-semibold">{viewer.displayName}</span>
            <span className="block truncate text-muted-foreground">@{viewer.username}</span>
          </p>
          <ul className="py-1">
            <li>
              <NavLink to="/profile" className={accountItemClass}>
                <Icon name="user" className="size-4" />
                Profile
              </NavLink>
            </li>
            <li>
              <NavLink to="/settings" className={accountItemClass}>
                <Icon name="settings" className="size-4" />
                Settings
              </NavLink>
            </li>
            {viewer.isAdmin ? (
              <li>
                <NavLink to="/admin" className={accountItemClass}>
                  <Icon name="shield" className="size-4" />
                  Admin
                </NavLink>
              </li>
            ) : null}
          </ul>
          <div className="flex items-center justify-between border-t border-border px-3 py-2">
            <span className="text-sm text-muted-foreground">Theme</span>
            <ColorModeSwitch current={colorMode} />
          </div>
          <Form method="post" action="/auth/logout" className="border-t border-border pt-1">
            <button type="submit" className={accountItemClass}>
              <Icon name="log-out" className="size-4" />
              Sign out
            </button>
          </Form>
        </div>
      )}
    </details>
  );
}
