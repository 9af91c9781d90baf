import { NavLink } from "react-router";
import { Icon, type IconName } from "~/components/ui/icon";
import { cn } from "~/lib/utils";

const SECTIONS: { to: string; label: string; icon: IconName; end: boolean }[] = [
  { to: "/admin", label: "Statistics", icon: "chart-column", end: true },
  { to: "/admin/comments", label: "Comments", icon: "message-square", end: false },
  { to: "/admin/users", label: "Users", icon: "users", end: false },
  { to: "/admin/reports", label: "Reports", icon: "flag", end: false },
  { to: "/admin/audit", label: "Audit log", icon: "scroll-text", end: false },
  { to: "/admin/jobs", label: "Jobs", icon: "clock", end: false },
  { to: "/admin/email", label: "Bulk e-mail", icon: "mail", end: false },
];

/** The admin area's section navigation; scrolls sideways on a phone. */
export function AdminNav() {
  return (
    <nav aria-label="Admin sections" className="-mx-4 mb-6 overflow-x-auto px-4">
      <ul className="flex min-w-max gap-1 border-b border-border">
        {SECTIONS.map(({ to, label, icon, end }) => (
          <li key={to}>
            <NavLink
              to={to}
              end={end}
              prefetch="intent"
              className={({ isActive }) =>
                cn(
                  "-mb-px flex items-center gap-2 border-b-2 px-3 py-2 text-sm font-medium",
                  isActive
                    ? "border-primary text-foreground"
                    : "border-transparent text-muted-foreground hover:text-foreground",
                )
              }
            >
              <Icon name={icon} className="size-4" />
              {label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
