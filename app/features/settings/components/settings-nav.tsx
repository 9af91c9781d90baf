import {
  Bell,
  ChevronRight,
  Download,
  ListMusic,
  Lock,
  Mail,
  Palette,
  Radio,
  ShieldCheck,
  User,
} from "lucide-react";
import { Link, NavLink } from "react-router";
import { cn } from "~/lib/utils";
import { SETTINGS_SECTIONS, type SettingsSectionSlug } from "../constants";

const ICONS: Record<SettingsSectionSlug, typeof User> = {
  profile: User,
  account: Mail,
  security: ShieldCheck,
  notifications: Bell,
  privacy: Lock,
  scrobbling: Radio,
  listening: ListMusic,
  data: Download,
  appearance: Palette,
};

/** The side menu of /settings on wide screens. */
export function SettingsNav({ className }: { className?: string }) {
  return (
    <nav aria-label="Settings sections" className={className}>
      <ul className="flex flex-col gap-1">
        {SETTINGS_SECTIONS.map(({ slug, label }) => {
          const Icon = ICONS[slug];
          return (
            <li key={slug}>
              <NavLink
                to={`/settings/${slug}`}
                prefetch="intent"
                className={({ isActive }) =>
                  cn(
                    "flex items-center gap-2 rounded-lg px-3 py-2 text-sm font-medium",
                    isActive
                      ? "bg-accent text-accent-foreground"
                      : "text-muted-foreground hover:bg-muted hover:text-foreground",
                  )
                }
              >
                <Icon aria-hidden="true" className="size-4" />
                {label}
              </NavLink>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** Every section with what it holds: /settings itself (the list a phone starts from). */
export function SettingsList() {
  return (
    <nav aria-label="All settings">
      <ul className="divide-y divide-border overflow-hidden rounded-xl border border-border bg-card">
        {SETTINGS_SECTIONS.map(({ slug, label, description }) => {
          const Icon = ICONS[slug];
          return (
            <li key={slug}>
              <Link
                to={`/settings/${slug}`}
                prefetch="intent"
                viewTransition
                className="flex items-center gap-3 px-4 py-3 hover:bg-muted"
              >
                <Icon aria-hidden="true" className="size-5 shrink-0 text-primary" />
                <span className="min-w-0 flex-1">
                  <span className="block font-medium">{label}</span>
                  <span className="block text-sm text-muted-foreground">{description}</span>
                </span>
                <ChevronRight aria-hidden="true" className="size-4 text-muted-foreground" />
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
